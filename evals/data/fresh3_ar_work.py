"""The third fresh held-back set, Arabic, part 2 of 2:
views, comments, tasks, the catalog, members, undo, and the two-tool scenarios.

One row per case, (scenario, prompt, tool, ...).

Written on 2026-12-06 (session 47, the third set) before anything was measured on it
(``evals.data.fresh3`` says what the set is for and how it was written). Never edit a row
because of a figure measured on it.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # views
    (
        "warehouse-saved-lists",
        "وش القوائم المحفوظة للمستودعات؟",
        "list_views",
    ),
    (
        "renewals-list-settings",
        "قائمة 'تجديدات هالربع' حقت نوف، على أي فلاتر وأعمدة مبنية؟",
        "get_view",
    ),
    (
        "retail-prospects-board",
        "أبي لوحة لعملاء المحلات المحتملين مقسمة أعمدة حسب مرحلة التأجير، لفريق المول بس",
        "create_view",
    ),
    (
        "deposit-column-on-residents",
        "ضيف عمود التأمين لقائمة الساكنين ورتبها حسب رقم الغرفة",
        "update_view",
    ),
    (
        "last-years-bazaar-board",
        "لوحة 'بسطات بازار رمضان' حقت السنة اللي فاتت ما لها داعي، احذفها",
        "delete_view",
    ),
    (
        "calendars-for-halls",
        "فيه تقويمات مسوية للقاعات؟",
        "list_views",
    ),
    (
        "what-a-board-groups-on",
        "لوحة 'الحجوزات حسب القاعة' مجمعة على أي حقل؟",
        "get_view",
    ),
    (
        "hall-bookings-calendar",
        "سوّ لي تقويم لحجوزات القاعات على تاريخ المناسبة",
        "create_view",
    ),
    (
        "specialty-instead-of-phone",
        "في جدول 'استفسارات العيادات' خبّ عمود الجوال وحط التخصص مكانه",
        "update_view",
    ),
    (
        "empty-test-calendar",
        "تخلص من 'تقويم تجربة' الفاضي حقي في القاعات",
        "delete_view",
    ),
    # comments and tasks
    (
        "notes-on-a-logistics-deal",
        "وش كتبوا الشباب من ملاحظات على صفقة مستودع شركة الأفق للخدمات اللوجستية؟",
        "list_comments",
    ),
    (
        "parents-called-about-a-fee",
        "اكتب في ملف الطالب عمر الحربي إن أهله اتصلوا بخصوص غرامة التأخير",
        "add_comment",
    ),
    (
        "a-colleagues-week",
        "وش عند ماجد من شغل؟",
        "list_tasks",
    ),
    (
        "fire-doors-inspection",
        "ذكّر سلطان يفحص أبواب الطوارئ في مبنى ب الثلاثاء الجاي",
        "create_task",
    ),
    (
        "inspection-slips",
        "فحص أبواب الطوارئ يتأجل ليوم 28، المقاول تعبان",
        "update_task",
    ),
    (
        "welcome-packs-not-needed",
        "ألغِ مهمة 'طلب هدايا الترحيب'، الجامعة بتوفرها هالسنة",
        "delete_task",
    ),
    (
        "anything-new-on-a-booking",
        "أحد كتب شي على حجز المصري من الخميس؟",
        "list_comments",
    ),
    (
        "keys-before-ramadan",
        "اكتب على صفقة عيادة 3 إن د. هيفاء تبي المفاتيح قبل رمضان، ومنشن خالد",
        "add_comment",
    ),
    (
        "forgotten-last-week",
        "فيه شي نسيت أسويه الأسبوع اللي فات؟",
        "list_tasks",
    ),
    (
        "sound-check-before-a-wedding",
        "خل سامر يشيك على نظام الصوت في القاعة قبل زواج الدوسري بيومين",
        "create_task",
    ),
    (
        "caterer-already-called",
        "كلمت المتعهد خلاص، سكّر هالمهمة",
        "update_task",
    ),
    (
        "curtains-quote-pointless",
        "مهمة 'عرض سعر الستاير الجديدة' ما لها داعي والقاعة بتترمم، احذفها",
        "delete_task",
    ),
    # catalog, members, undo
    (
        "student-housing-starter",
        "فيه إعداد جاهز لسكن الطلاب أقدر أطالعه؟",
        "browse_catalog",
    ),
    (
        "self-storage-starter-chosen",
        "خلاص نمشي على قالب التخزين الذاتي اللي شفناه، ركّبه",
        "install_template",
    ),
    (
        "who-to-mention-on-the-cinema-lease",
        "مين من فريق المول أقدر أمنشنه على عقد السينما؟",
        "list_members",
    ),
    (
        "wrong-hall",
        "لا، مو هذا المبنى. رجّعها",
        "undo_last_change",
    ),
    (
        "event-venue-template",
        "قالب قاعات المناسبات وش فيه بالضبط؟",
        "browse_catalog",
    ),
    (
        "clinic-leasing-one",
        "ركّب قالب تأجير العيادات اللي وريتني إياه قبل شوي",
        "install_template",
    ),
    (
        "halls-team-emails",
        "مين في فريق القاعات ووش إيميلاتهم؟",
        "list_members",
    ),
    (
        "wrong-companys-rooms",
        "أوه، التعديل راح على غرف شركة ثانية، رجّعه",
        "undo_last_change",
    ),
    # two tools
    (
        "vacant-shops-count-and-list",
        "كم محل فاضي في الجناح الشرقي؟ وسوّ لي قائمة محفوظة فيهم",
        "count_records",
        "create_view",
    ),
    (
        "room-swap-done-and-noted",
        "مهمة تبديل الغرفة في مبنى ج خلصت، واكتب ملاحظة في ملف عائشة برقم غرفتها الجديدة",
        "update_task",
        "add_comment",
    ),
    (
        "parking-bay-on-memberships",
        "الاشتراكات تحتاج خانة لموقف السيارة، وموقف استوديو التاسع هو P-14",
        "add_field",
        "update_record",
    ),
    (
        "lease-back-and-who-deleted-it",
        "عقد شركة المرفأ للشحن اختفى، رجّعه وقل لي مين حذفه",
        "restore_record",
        "record_history",
    ),
    (
        "tours-for-prospective-students",
        "أبي نسجل جولات الطلاب المحتملين كنوع مستقل، وكل جولة مربوطة بالغرف اللي شافوها",
        "create_object",
        "create_relation",
    ),
    (
        "cinema-lease-open-tasks",
        "وش المهام اللي باقية على عقد السينما؟ حق اللوحة الإعلانية احذفها",
        "list_tasks",
        "delete_task",
    ),
)
