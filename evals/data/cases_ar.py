"""Arabic eval cases, mostly Gulf colloquial, some Modern Standard: (scenario, prompt, tool, ...).

The scenario names the user need a case shares with its translations; ``evals.data.cases`` records
each scenario's half and builds the cases.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # records
    (
        "new-lead-with-phone",
        "سجّل عميل جديد: عبدالله القحطاني، جواله ٠٥٠٩٨٧٦٥٤٣، يدوّر فيلا في شمال الرياض",
        "create_record",
    ),
    ("record-status-or-stage", "صفقة أم سلطان وصلت مرحلة التفاوض، حدّثها", "update_record"),
    ("contact-detail-changed", "غيّر رقم جوال المستأجر ماجد إلى ٠٥٥٤٤٤٣٣٢٢", "update_record"),
    ("record-added-by-mistake", "شيل الوحدة ٣٠٧ من النظام، انضافت بالغلط", "delete_record"),
    (
        "raise-prices-by-percent",
        "ارفع أسعار كل الشقق في مشروع الروضة بنسبة ٥٪",
        "bulk_update_records",
    ),
    (
        "purge-old-lost-leads",
        "نظّف النظام من كل العملاء المحتملين اللي حالتهم خاسر من سنة ٢٠٢٢",
        "bulk_delete_records",
    ),
    (
        "import-a-spreadsheet",
        "وصلني شيت من المطوّر فيه ٢٠٠ وحدة، أبي أدخلها كلها مرة وحدة",
        "import_records",
    ),
    (
        "export-tenants-for-accountant",
        "أبغى قائمة المستأجرين كلهم في ملف أرسله للمحاسب",
        "export_records",
    ),
    ("count-deals-or-leads-in-a-period", "كم صفقة قفلناها الشهر اللي فات؟", "count_records"),
    ("average-rent", "وش متوسط الإيجار السنوي في برج الياسمين؟", "count_records"),
    (
        "restore-deleted-record",
        "عقد الإيجار حق شركة الأفق انحذف بالغلط، رجّعه لو سمحت",
        "restore_record",
    ),
    (
        "merge-duplicate-record",
        "مؤسسة البناء الحديث مدخلة مرتين بنفس البيانات، خلها سجل واحد",
        "merge_records",
    ),
    (
        "who-changed-a-price",
        "مين اللي عدّل سعر الفيلا ١٢؟ وكم كان السعر قبل التعديل؟",
        "record_history",
    ),
    # objects
    ("track-a-new-kind-of-record", "نحتاج نوع بيانات جديد نسجّل فيه شكاوى السكان", "create_object"),
    ("rename-an-object", "أبي اسم «الوحدات» يصير «العقارات» في كل النظام", "update_object"),
    (
        "delete-campaigns-object",
        "ما عاد نستخدم موضوع الحملات التسويقية، احذفه هو وكل بياناته",
        "delete_object",
    ),
    # fields
    ("add-a-field-to-units", "ضيف خانة جديدة للوحدات نسجّل فيها اتجاه الواجهة", "add_field"),
    ("make-a-field-mandatory", "خلّ رقم الهوية إلزامي عند إضافة أي مستأجر", "update_field"),
    ("delete-the-fax-field", "احذف حقل رقم الفاكس من جهات الاتصال، ما له داعي", "delete_field"),
    (
        "field-has-the-wrong-type",
        "حقل تاريخ التسليم مسوّى كنص عادي، أبيه يكون تاريخ",
        "change_field_type",
    ),
    (
        "add-a-dropdown-option",
        "ضيف خيار «محجوز مبدئياً» في قائمة حالات الوحدة",
        "manage_field_options",
    ),
    # relations
    ("how-objects-connect", "وش العلاقات الموجودة بين الجداول عندنا؟", "list_relations"),
    (
        "relate-two-objects",
        "أبي أربط العقود بالمستأجرين بحيث يكون لكل مستأجر أكثر من عقد",
        "create_relation",
    ),
    ("drop-a-relation", "ألغِ العلاقة بين الصفقات والحملات نهائياً، ما نحتاجها", "delete_relation"),
    ("link-two-records", "اربط الوحدة ٥٠١ بعقد الإيجار رقم ٨٨٩", "link_records"),
    (
        "unlink-wrongly-linked-records",
        "المستأجر نواف مربوط بالعقد الغلط، افصله عنه بس لا تحذف شي",
        "unlink_records",
    ),
    # views
    ("which-views-exist", "وش طرق العرض المحفوظة عندنا للعملاء؟", "list_views"),
    (
        "what-a-view-filters",
        "ليش العميل سامي ما يطلع في عرض «المتابعات العاجلة»؟ وش الفلاتر اللي فيه؟",
        "get_view",
    ),
    ("calendar-view", "سوّ لي عرض تقويم يوريني مواعيد المعاينات", "create_view"),
    (
        "hide-a-column-and-sort-a-view",
        "في عرض الوحدات الشاغرة أبي أخفي عمود المساحة وأرتّب حسب السعر",
        "update_view",
    ),
    ("delete-an-old-view", "امسح طريقة العرض «صفقات ٢٠٢٢» ما نحتاجها", "delete_view"),
    # comments
    ("what-the-team-wrote", "وش آخر شي كتبوه الزملاء عن عميلنا أبو خالد؟", "list_comments"),
    (
        "note-on-a-client-record",
        "اكتب ملاحظة على صفقة الفيلا إن العميل طلب يأجّل التوقيع، ومنشن مها",
        "add_comment",
    ),
    # tasks
    ("my-tasks", "وش عندي متابعات متأخرة؟", "list_tasks"),
    ("remind-me-to-call", "حط لي تذكير أكلم المالك بكرة الصبح بخصوص التجديد", "create_task"),
    ("postpone-a-task", "أجّل مهمة زيارة الموقع للأسبوع الجاي", "update_task"),
    ("delete-a-duplicate-task", "مهمة تصوير الشقة ما عاد لها داعي، احذفها", "delete_task"),
    # catalog
    ("ready-made-templates", "عندكم نماذج جاهزة لشركات إدارة الأملاك؟", "browse_catalog"),
    ("install-a-template", "نزّل قالب الصيانة في مساحة العمل حقتنا", "install_template"),
    # meta
    ("who-is-on-a-team", "مين الموظفين اللي معنا في فريق التأجير؟", "list_members"),
    ("undo-a-wrong-change", "لا لا، رجّع اللي سويته قبل شوي، طلع غلط", "undo_last_change"),
    # several tools
    (
        "reassign-a-leavers-records",
        "حوّل كل عملاء معرض سيتي سكيب لريم وصدّرهم في ملف إكسل",
        "bulk_update_records",
        "export_records",
    ),
    (
        "track-a-new-kind-of-record",
        "أنشئ جدول للشكاوى وضيف فيه حقل لدرجة الأهمية",
        "create_object",
        "add_field",
    ),
    (
        "new-deal-and-follow-up-task",
        "بعد ما تسجّل الصفقة الجديدة لفيصل، حط مهمة لسارة تتابع معه",
        "create_record",
        "create_task",
    ),
    (
        "count-units-in-a-building",
        "هل يمكن معرفة عدد الشقق التي بيعت في مشروع الواحة حتى الآن؟",
        "count_records",
    ),
    (
        "note-on-a-client-record",
        "أرجو إضافة تعليق على ملف العميل يفيد بأنه سدّد الدفعة الأولى",
        "add_comment",
    ),
    # written after the re-split, held back from the start: tools whose held-back cases their
    # description restates, or that had no held-back case in this language
    (
        "lease-extended-new-end-date",
        "المستأجر مدّد سنة زيادة، خلّ تاريخ نهاية عقده ٣١ مارس ٢٠٢٦",
        "update_record",
    ),
    (
        "set-a-field-on-many",
        "كل وحدات الدور الأرضي في برج النخيل خلّ نوعها «محل تجاري» بدل «شقة»",
        "bulk_update_records",
    ),
    (
        "purge-a-dropped-buildings-units",
        "ما عاد ندير برج اللؤلؤ، امسح كل وحداته من النظام",
        "bulk_delete_records",
    ),
    (
        "payments-to-open-elsewhere",
        "حمّل جدول دفعات عقود المارينا بصيغة CSV عشان أفتحه في قوقل شيت",
        "export_records",
    ),
    (
        "fold-an-imported-unit-into-its-copy",
        "الوحدة ٢٠٤ طالعة مرتين، مرة من الاستيراد ومرة مدخلة يدوي، خلها وحدة وحدة وخذ السعر اللي "
        "من الاستيراد",
        "merge_records",
    ),
    (
        "who-edited-a-disputed-record",
        "نورة تقول ما لمست ملف المستأجر سلطان، شوف مين عدّل عليه هالأسبوع",
        "record_history",
    ),
    (
        "track-keys-handed-out",
        "نبي نتابع مفاتيح الشقق، مين استلم أي مفتاح ومتى، سوّ لها قسم خاص في النظام",
        "create_object",
    ),
    (
        "describe-an-object-for-newcomers",
        "حط وصف مختصر لقسم «المباني» عشان الموظفين الجدد يعرفون وش ينحط فيه",
        "update_object",
    ),
    (
        "drop-a-field-we-may-not-keep",
        "القانونية يقولون ممنوع نحتفظ بالحالة الاجتماعية للمستأجرين، احذف الخانة هذي بكل بياناتها",
        "delete_field",
    ),
    (
        "leading-zero-lost",
        "أرقام جوالات الملاك تنحذف منها الصفر اللي في البداية لأن الحقل رقمي، حوّله لحقل جوال",
        "change_field_type",
    ),
    (
        "reorder-and-recolour-a-dropdown",
        "في قائمة «مصدر العميل» خلّ «انستقرام» أول خيار ولوّنه بنفسجي",
        "manage_field_options",
    ),
    (
        "can-a-unit-have-two-owners",
        "في نظامنا الوحدة ينفع يكون لها أكثر من مالك ولا الربط بمالك واحد بس؟",
        "list_relations",
    ),
    (
        "relate-maintenance-reports-to-units",
        "نبي كل بلاغ صيانة ينربط بالوحدة اللي جا منها، سوّ الربط بين الجدولين",
        "create_relation",
    ),
    ("parking-bay-goes-with-a-flat", "الموقف P-14 صار تابع لشقة ٩٠٢، اربطهم ببعض", "link_records"),
    (
        "vendor-contract-ended",
        "عقد شركة البستان للنظافة مع برج C خلص، افصلها عن البرج",
        "unlink_records",
    ),
    (
        "how-a-board-is-grouped",
        "لوحة «الوحدات الشاغرة» مجمّعة حسب المبنى ولا حسب الدور؟",
        "get_view",
    ),
    ("campaign-over-remove-its-board", "خلصت حملة رمضان، شيل لوحة عملائها", "delete_view"),
    (
        "colleagues-open-tasks-before-leave",
        "ريم بتطلع إجازة بكرة، وش المتابعات اللي باقية عليها؟",
        "list_tasks",
    ),
    (
        "viewing-cancelled-drop-its-reminder",
        "المعاينة حقت الجمعة تكنسلت، شيل تذكير استلام المفاتيح",
        "delete_task",
    ),
    (
        "prebuilt-for-holiday-rentals",
        "عندكم شي جاهز لتأجير الشاليهات والاستراحات باليومي؟ وش يضيف؟",
        "browse_catalog",
    ),
    (
        "install-the-pack-we-looked-at",
        "باقة الوساطة اللي شفناها أمس، ركّبها في مساحة العمل حقتنا",
        "install_template",
    ),
    ("who-has-admin-rights", "مين عنده صلاحية مدير في النظام عندنا؟", "list_members"),
    (
        "board-was-better-before-your-change",
        "اللوحة كانت أحلى قبل تعديلك، خلها مثل ما كانت قبل شوي",
        "undo_last_change",
    ),
)
