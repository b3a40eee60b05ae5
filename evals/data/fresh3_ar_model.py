"""The third fresh held-back set, Arabic, part 1 of 2:
records, objects, fields and relations.

One row per case, (scenario, prompt, tool, ...).

Written on 2026-12-06 (session 47, the third set) before anything was measured on it
(``evals.data.fresh3`` says what the set is for and how it was written). Never edit a row
because of a figure measured on it.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # records
    (
        "student-paid-a-room-deposit",
        "طالبة جديدة من كلية التمريض، ريم العتيبي، دفعت عربون غرفة 114. سجّلها كساكنة",
        "create_record",
    ),
    (
        "kiosk-fit-out-deadline-moved",
        "كشك القهوة في الفود كورت تمدد له موعد انتهاء التجهيز إلى 20 أبريل",
        "update_record",
    ),
    (
        "enquiry-under-the-wrong-client",
        "احذف استفسار مستودع W-12 اللي سجلته على عميل غلط، بسجله من جديد على الصح",
        "delete_record",
    ),
    (
        "summer-term-residents-left",
        "الترم الصيفي خلص الجمعة، خلّ كل طلاب الصيفي حالتهم غادر السكن",
        "bulk_update_records",
    ),
    (
        "trial-week-desk-bookings",
        "امسح كل حجوزات المكاتب حقت أسبوع التجربة المجاني اللي ما تحولت لاشتراك",
        "bulk_delete_records",
    ),
    (
        "retail-prospects-from-a-mall-agent",
        "وسيط التأجير في المول أرسل لي ملف إكسل فيه 40 محل مهتم، دخّلهم النظام",
        "import_records",
    ),
    (
        "storage-renters-for-the-insurer",
        "شركة التأمين تبي ملف بكل مستأجري وحدات التخزين مع مساحة كل وحدة قبل الاثنين",
        "export_records",
    ),
    (
        "empty-beds-per-hall",
        "كم سرير فاضي عندنا في كل مبنى من مباني السكن؟",
        "count_records",
    ),
    (
        "paused-membership-deleted",
        "حذفت اشتراك استوديو النخبة على بالي تركونا، وطلعوا بس موقفينه مؤقتاً. رجّعه",
        "restore_record",
    ),
    (
        "bakery-entered-twice",
        "مخبز السنابل موجود مرتين، وحدة من بوابة المول ووحدة أنا كتبتها. خلها وحدة",
        "merge_records",
    ),
    (
        "ceiling-height-disagrees",
        "مستودع W-7 مكتوب ارتفاعه 8 متر والبروشور يقول 10، مين عدّل عليه؟",
        "record_history",
    ),
    (
        "dentist-wants-a-clinic-suite",
        "د. هيفاء القحطاني تبي عيادة 3 في المجمع الطبي لعيادة أسنان، افتح لها صفقة",
        "create_record",
    ),
    (
        "wedding-grew",
        "زواج آل الدوسري صار 350 معزوم بدل 250، وحجز القاعة لسا مكتوب فيه الرقم القديم",
        "update_record",
    ),
    (
        "engagement-party-called-off",
        "حفلة ملكة 9 مايو انلغت، احذف هالحجز بس ولا تلمس غيره",
        "delete_record",
    ),
    (
        "staff-housing-contract-renewed",
        "شركة النور للمقاولات جددت سنة، مدد تاريخ النهاية لكل غرف عمالهم إلى 31 ديسمبر 2027",
        "bulk_update_records",
    ),
    (
        "old-facebook-page-requests",
        "احذف كل طلبات معاينة الورش اللي جت من صفحة الفيسبوك القديمة",
        "bulk_delete_records",
    ),
    (
        "worker-roster-csv",
        "الموارد البشرية في شركة النور أرسلوا كشف العمال CSV، سوّ ساكن لكل اسم فيه",
        "import_records",
    ),
    (
        "hall-bookings-to-print",
        "طلّع لي حجوزات القاعة لهالشهر في إكسل، بطبعها للمطبخ",
        "export_records",
    ),
    (
        "guests-per-wedding",
        "كم متوسط عدد المعازيم في حجوزات الزواجات هالموسم؟",
        "count_records",
    ),
    (
        "intern-cleared-a-contact",
        "المتدرب مسح جهة اتصال د. سامي أمس، ولسا نحتاجها، استرجعها",
        "restore_record",
    ),
    (
        "two-of-one-dentist",
        "صار عندنا د. هيفاء القحطاني مرتين، وحدة بإيميل العيادة ووحدة بالجيميل، خلّ وحدة بس",
        "merge_records",
    ),
    (
        "deposit-dropped-overnight",
        "عربون حجز القاعة الكبرى نزل فجأة إلى 2000 بين يوم وليلة، متى ومين؟",
        "record_history",
    ),
    # objects and fields
    (
        "atrium-pop-up-bookings",
        "صرنا نأجر الساحة الوسطى للفعاليات المؤقتة، وأبي كل حجز ينحفظ كنوع بيانات لحاله",
        "create_object",
    ),
    (
        "warehouses-cover-cold-stores",
        "عدّل وصف قسم المستودعات عشان الموظفين الجدد يعرفون إنه يشمل المستودعات المبردة بعد",
        "update_object",
    ),
    (
        "lockers-taken-out",
        "شلنا الخزائن من مساحة العمل، احذف قسم الخزائن من النظام بكل ما فيه",
        "delete_object",
    ),
    (
        "student-allergies",
        "مطبخ السكن يحتاج نعرف الحساسية الغذائية لكل طالب، ضيف لها خانة في ملفه",
        "add_field",
    ),
    (
        "loading-bays-must-be-filled",
        "ما أبي أحد يحفظ عقد مستودع بدون ما يعبّي عدد أرصفة التحميل",
        "update_field",
    ),
    (
        "smoking-room-checkbox",
        "شيل خانة 'غرفة تدخين' من الغرف، المبنى كله صار ممنوع فيه التدخين من زمان",
        "delete_field",
    ),
    (
        "storage-size-in-square-metres",
        "حجم وحدة التخزين حالياً صغير/وسط/كبير بس، أبيه بالمتر المربع بالضبط",
        "change_field_type",
    ),
    (
        "fit-out-leasing-step",
        "مراحل تأجير المحلات ناقصها مرحلة 'تجهيز' بين 'تم التوقيع' و'تم الافتتاح'",
        "manage_field_options",
    ),
    (
        "machines-lent-to-workshops",
        "الورش نعطيها معدات إعارة، أبي سجل خاص للمعدات كل وحدة لها سجلها",
        "create_object",
    ),
    (
        "one-clinic-suite-label",
        "كل سجل فوقه مكتوب 'عيادات'، المفروض السجل الواحد يقول 'عيادة'",
        "update_object",
    ),
    (
        "catering-outsourced",
        "صار البوفيه عند متعهد خارجي، فقسم قوائم الطعام حق القاعات ما نحتاجه، احذفه بسجلاته",
        "delete_object",
    ),
    (
        "x-ray-room-in-a-suite",
        "في العيادات أبي نوضح هل فيها غرفة أشعة خاصة أو لا",
        "add_field",
    ),
    (
        "pax-means-guests",
        "غيّر اسم 'Pax' في حجوزات القاعة إلى 'عدد المعازيم'، محد يفهم وش يعني غير المطبخ",
        "update_field",
    ),
    (
        "shift-pattern-field",
        "شيل حقل 'نظام الورديات' من غرف العمال، الموارد البشرية صارت تتابعه وإحنا ما نحدثه أبد",
        "delete_field",
    ),
    (
        "machine-power-as-text",
        "قدرة المعدة مكتوبة نص زي '5kW' و'7 كيلو'، أبيها رقم أقدر أفلتر عليه",
        "change_field_type",
    ),
    (
        "ladies-and-mens-sections",
        "قائمة أقسام القاعة تحتاج 'قسم النساء' و'قسم الرجال' كخيارين منفصلين",
        "manage_field_options",
    ),
    # relations
    (
        "what-points-at-warehouses",
        "قبل لا أسوي التقارير، وش الأقسام اللي مربوطة بالمستودعات وبأي طريقة؟",
        "list_relations",
    ),
    (
        "guarantors-for-students",
        "كل طالب لازم يكون له كفيل نختاره من جهات الاتصال، والكفيل ممكن يكفل أكثر من طالب",
        "create_relation",
    ),
    (
        "shops-no-longer-in-zones",
        "ما عاد نقسم المحلات على مناطق المول، شيل ربط المناطق بالمحلات نهائياً",
        "delete_relation",
    ),
    (
        "kiosk-gets-its-tenant",
        "كشك K3 صار يشغله مطعم بيت الشاورما، اربطهم فيه",
        "link_records",
    ),
    (
        "member-went-remote",
        "مكتب 14 ما عاد لفيصل، صار يشتغل عن بعد بالكامل، بس اشتراكه يبقى",
        "unlink_records",
    ),
    (
        "staff-room-tied-to-whom",
        "غرفة العمال مربوطة بالشركة صاحبة العمل ولا بكل عامل؟",
        "list_relations",
    ),
    (
        "caterer-per-booking",
        "خل كل حجز قاعة يختار متعهد الضيافة من شركات الموردين، والمتعهد الواحد له حجوزات كثيرة",
        "create_relation",
    ),
    (
        "insurance-panels-on-suites",
        "العيادات ما عادت تحتاج الربط مع شبكات التأمين، احذف هالعلاقة وحقولها",
        "delete_relation",
    ),
    (
        "booking-under-a-family",
        "حط حجز القاعة الكبرى يوم 14 يونيو تحت جهة اتصال عائلة المصري",
        "link_records",
    ),
    (
        "welding-machine-returned",
        "ورشة 5 رجّعت مكينة اللحام، ما أبيها تطلع عندهم بعد الحين",
        "unlink_records",
    ),
)
