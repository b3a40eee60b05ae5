"""The second fresh held-back set, Arabic (mostly Gulf colloquial, some Modern Standard),
part 2 of 2: views, comments, tasks, the template catalog, the workspace, and the scenarios
that need two tools.

One row per case, (scenario, prompt, tool, ...).

Written on 2026-12-06 (session 47) before anything was measured on it (``evals.data.fresh2``
says what the set is for and how it was written). Never edit a row because of a figure measured
on it.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # views
    (
        "calendar-for-viewings-exists",
        "فيه تقويم للمعاينات من قبل ولا أسوي واحد؟",
        "list_views",
    ),
    (
        "cant-find-mariams-board",
        "وش اللوحات اللي على الصفقات؟ مو لاقي لوحة مريم",
        "list_views",
    ),
    (
        "top-buyers-missing-faisal",
        "فيصل مو طالع في قائمة «كبار المشترين»، على أي أساس تفلتر؟",
        "get_view",
    ),
    (
        "q4-board-mine-or-everyones",
        "لوحة «إغلاقات الربع الرابع» فيها صفقاتي بس ولا صفقات الكل؟",
        "get_view",
    ),
    (
        "lease-end-calendar",
        "سوّ لي تقويم بتواريخ نهاية العقود عشان أرتب التجديدات",
        "create_view",
    ),
    (
        "jeddah-web-leads-table",
        "احفظ لي جدول بعملاء جدة من الموقع اللي ميزانيتهم فوق المليون، بستخدمه كل يوم",
        "create_view",
    ),
    (
        "all-tenants-columns",
        "في «كل المستأجرين» خبّ عمود الملاحظات القديمة وطلّع رقم الجوال بداله",
        "update_view",
    ),
    (
        "vacant-flats-by-floor",
        "رتّب جدول «الشقق الشاغرة» حسب الدور، الأعلى أول",
        "update_view",
    ),
    (
        "two-renewals-boards",
        "صار عندنا لوحتين «تجديدات»، احذف اللي أنا سويتها",
        "delete_view",
    ),
    (
        "eid-offers-board",
        "شيل لوحة «عروض العيد»",
        "delete_view",
    ),
    # comments
    (
        "note-after-showing",
        "سالم كتب شي بعد ما ورّى الشقة ٦٠٤؟",
        "list_comments",
    ),
    (
        "word-from-legal",
        "فيه شي من القانونية على عقد الخليج؟",
        "list_comments",
    ),
    (
        "parking-swap-for-rami",
        "اكتب على عقد الساحل إن المستأجر يبي يبدّل موقفه، رامي شيّك عليها",
        "add_comment",
    ),
    (
        "calls-after-eight",
        "سجّل على عميل الأستاذ فواز: يفضّل المكالمات بعد ٨ بالليل",
        "add_comment",
    ),
    # tasks
    (
        "due-before-the-weekend",
        "وش عندي مستحق قبل الويكند؟",
        "list_tasks",
    ),
    (
        "overdue-handover-to-dos",
        "أي مهام تسليم أبراج النور متأخرة؟",
        "list_tasks",
    ),
    (
        "snagging-report-for-ziad",
        "خل زياد يرسل تقرير ملاحظات التشطيب للمالك قبل الأربعاء",
        "create_task",
    ),
    (
        "check-renewal-next-month",
        "ذكّرني الشهر الجاي أشوف إذا عائلة الحمدان جددوا",
        "create_task",
    ),
    (
        "inspection-pushed-back",
        "أجّل مهمتي «معاينة الفيلا ٥» للثلاثاء الجاي، المالك مسافر",
        "update_task",
    ),
    (
        "keys-handed-over",
        "سلّمنا المفاتيح الصبح، يعني هذي خلصت",
        "update_task",
    ),
    (
        "wrong-dana-to-do",
        "سويت «اتصل على دانة» لدانة الغلط، احذف المهمة",
        "delete_task",
    ),
    (
        "open-house-cancelled",
        "اليوم المفتوح تكنسل، شيل تذكيري بطباعة البروشورات",
        "delete_task",
    ),
    # catalog
    (
        "owners-association-template",
        "عندكم قالب لاتحادات الملاك؟ وش بيسوي؟",
        "browse_catalog",
    ),
    (
        "small-agency-starting",
        "إحنا مكتب صغير خمسة أشخاص توّنا فاتحين، وش الإعدادات الجاهزة اللي نبدأ فيها؟",
        "browse_catalog",
    ),
    (
        "go-with-short-term-rentals",
        "تمام، نمشي على حق الإيجار القصير، ركّبه",
        "install_template",
    ),
    (
        "apply-owners-association",
        "سنعتمد قالب اتحاد الملاك من المكتبة، طبّقه الآن",
        "install_template",
    ),
    # meta
    (
        "khobar-branch-colleagues",
        "مين الزملاء اللي في فرع الخبر؟",
        "list_members",
    ),
    (
        "is-lina-still-here",
        "لينا للحين معنا في مساحة العمل؟",
        "list_members",
    ),
    (
        "not-what-i-asked",
        "لا، رجّعها مثل ما كانت",
        "undo_last_change",
    ),
    (
        "only-floor-three-sold",
        "توك خليت برج D كله مباع، وهو الدور الثالث بس. تراجع عنها",
        "undo_last_change",
    ),
    # two tools
    (
        "merge-and-say-why",
        "ادمج سجلّي شركة المنصور واكتب ملاحظة على السجل الباقي ليش دمجناهم",
        "merge_records",
        "add_comment",
    ),
    (
        "replace-leads-board",
        "بدّل لوحة «عملاء ٢٠٢٥» القديمة بوحدة جديدة مقسّمة حسب المصدر",
        "create_view",
        "delete_view",
    ),
    (
        "unsold-count-and-reminder",
        "كم وحدة باقية ما انباعت في برج E؟ وذكّرني أبلغ المطور يوم الاثنين",
        "count_records",
        "create_task",
    ),
    (
        "wrong-unit-on-lease",
        "العقد L-880 مربوط فيه وحدة غلط: شيل ٤٠٢ منه وحط ٤٢٠",
        "unlink_records",
        "link_records",
    ),
    (
        "commission-set-back",
        "أحد غيّر العمولة في صفقة القرم، شوف كم كانت ورجّعها",
        "record_history",
        "update_record",
    ),
    (
        "leasing-template-if-payments",
        "شوف وش فيه قالب التأجير، وإذا فيه مدفوعات ركّبه",
        "browse_catalog",
        "install_template",
    ),
)
