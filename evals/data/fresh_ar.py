"""The fresh held-back set, Arabic (mostly Gulf colloquial, some Modern Standard): one row per
case, (scenario, prompt, tool, ...).

Written on 2026-12-06 before anything was measured on it (``evals.data.fresh`` says what the set
is for and how it was written). Never edit a row because of a figure measured on it.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # records
    (
        "walk-in-couple-at-the-sales-office",
        "زوجين دخلوا مكتب المبيعات الحين يسألون عن مارينا هايتس: يوسف وهدى الصالح، إيميله "
        "yousef.saleh@gmail.com، سجّلهم كعملاء محتملين",
        "create_record",
    ),
    (
        "owner-lists-a-flat-with-us",
        "الأستاذ طارق يبينا نأجّر شقته الثلاث غرف في العليا بـ٨٥ ألف بالسنة، وهي مو موجودة "
        "بالنظام للحين",
        "create_record",
    ),
    (
        "buyer-budget-went-up",
        "عمر رجع اتصل، ميزانيته صارت مليون و٨٠٠ ألف بدل مليون ونص",
        "update_record",
    ),
    ("give-one-deal-to-a-colleague", "صفقة فيلا الروضة خلّها باسم فهد بدالي", "update_record"),
    (
        "lead-asks-to-be-erased",
        "سمير عزيز طلب نمسح بياناته عندنا، فاحذف سجله من العملاء المحتملين",
        "delete_record",
    ),
    (
        "brokerage-firm-closed-down",
        "مكتب نجم الخليج للوساطة سكّر من السنة اللي فاتت، شيل سجل الشركة حقتهم",
        "delete_record",
    ),
    (
        "tower-handed-over",
        "تم تسليم البرج B اليوم، لذا أصبحت جميع شققه جاهزة ولم تعد على الخارطة",
        "bulk_update_records",
    ),
    (
        "contacts-gone-quiet",
        "أي جهة اتصال ما كلمناها من ٢٠٢٣، خلّ حالتها غير نشطة",
        "bulk_update_records",
    ),
    (
        "bot-spam-from-the-web-form",
        "نموذج الموقع انضرب من بوتات البارحة، مئات العملاء الوهميين بأسماء عشوائية، نظّفهم كلهم",
        "bulk_delete_records",
    ),
    (
        "old-cancelled-reservations",
        "يرجى حذف جميع الحجوزات الملغاة التي مضى عليها أكثر من ستة أشهر",
        "bulk_delete_records",
    ),
    (
        "portal-enquiries-as-csv",
        "بروبرتي فايندر أرسلوا استفسارات هالأسبوع بملف CSV، دخّلها عندنا كعملاء محتملين",
        "import_records",
    ),
    (
        "new-prices-from-a-finance-sheet",
        "المالية عدّلت قائمة الأسعار في ملف إكسل، طبّق الأسعار الجديدة من الملف على الوحدات المطابقة",
        "import_records",
    ),
    (
        "bank-wants-mortgage-buyers",
        "البنك يطلب قائمة بالمشترين عندنا اللي بالتمويل العقاري، أقدر آخذها في ملف؟",
        "export_records",
    ),
    (
        "statement-for-a-landlord",
        "أبو جابر يبي يشوف كل الوحدات اللي يملكها عندنا، حطها في إكسل أرسله له على الإيميل",
        "export_records",
    ),
    (
        "occupancy-in-a-district",
        "كم شقة من شققنا في الخبر مؤجرة حالياً، ومن أصل كم؟",
        "count_records",
    ),
    ("biggest-sale-this-year", "أكبر صفقة هالسنة؟", "count_records"),
    (
        "company-vanished-after-a-cleanup",
        "شركة الفنار التجارية اختفت من القائمة بعد تنظيف يوم الثلاثاء، ونادية محتاجتها",
        "restore_record",
    ),
    (
        "dropped-buyer-came-back",
        "المشتري اللي شلناه الأسبوع الماضي رجع ويبي الفيلا، رجّع الصفقة اللي حذفتها",
        "restore_record",
    ),
    (
        "two-spellings-of-one-company",
        "«الراشد القابضة» و«شركة الراشد للاستثمار القابضة» هي نفس الشركة",
        "merge_records",
    ),
    (
        "signed-up-twice",
        "حصة سجّلت من الموقع ومرة ثانية في الفرع، أبيها تطلع عندي مرة وحدة بس",
        "merge_records",
    ),
    (
        "when-a-deal-was-marked-lost",
        "متى انحطّت صفقة القصر على إنها خاسرة، ومين اللي سواها؟",
        "record_history",
    ),
    ("first-listed-price", "بكم عرضنا الفيلا ٢٢ أول ما نزّلناها؟", "record_history"),
    # objects
    (
        "a-home-for-developers",
        "صرنا نتعامل مع أكثر من مطوّر عقاري، أبي لهم مكان مستقل بسجلاتهم الخاصة",
        "create_object",
    ),
    (
        "site-visits-as-their-own-records",
        "المعاينات تستاهل سجلات خاصة فيها التاريخ والموظف والوحدة، مو مجرد تذكيرات",
        "create_object",
    ),
    (
        "unit-number-as-the-title",
        "الوحدات تطلع بعنوان هو رقم داخلي، خلّ رقم الوحدة هو اللي يظهر كعنوان",
        "update_object",
    ),
    ("misspelt-object-name", "في القائمة مكتوب «عقارت»، الصح «عقارات»", "update_object"),
    (
        "referral-pilot-ended",
        "انتهت تجربة برنامج الإحالات، احذف نوع «الإحالات» بالكامل بسجلاته وكل شي فيه",
        "delete_object",
    ),
    (
        "tickets-from-a-template-by-mistake",
        "ركّبنا قالب الدعم بالغلط، شيل كائن «التذاكر» اللي أنشأه",
        "delete_object",
    ),
    # fields
    ("tenant-nationality", "من اليوم ورايح نحتاج نسجّل جنسية كل مستأجر", "add_field"),
    (
        "is-the-flat-furnished",
        "الوسطاء كل شوي يسألون هل الشقة مؤثثة، خلّ للوحدات مكان نحدد فيه هالشي",
        "add_field",
    ),
    (
        "clearer-budget-label",
        "سمِّ عمود «الميزانية» «أقصى ميزانية (ريال)» عشان محد يتلخبط فيه",
        "update_field",
    ),
    (
        "same-id-number-twice",
        "مستأجرين اثنين طلع لهم نفس رقم الهوية، تأكد إن هالشي ما يتكرر مرة ثانية",
        "update_field",
    ),
    (
        "legacy-id-from-the-old-crm",
        "عمود «المعرّف القديم» اللي جانا من النظام السابق ما منه فايدة، شيله باللي فيه",
        "delete_field",
    ),
    (
        "home-phone-never-filled",
        "محد أبد يعبّي «هاتف المنزل» في جهات الاتصال، امسحه",
        "delete_field",
    ),
    (
        "viewing-date-needs-a-time",
        "مواعيد المعاينات تحفظ اليوم بس، أحتاج الساعة بعد",
        "change_field_type",
    ),
    (
        "commission-typed-as-text",
        "العمولة مكتوبة نص حر مثل '2.5%'، خلها نسبة مئوية صدق عشان نقدر نجمعها",
        "change_field_type",
    ),
    (
        "retire-a-lead-rating",
        "ما عاد نصنّف العملاء المحتملين «بارد»، شيل هالخيار",
        "manage_field_options",
    ),
    (
        "cities-missing-when-picking",
        "الرياض والدمام مو طالعين لما أختار المدينة",
        "manage_field_options",
    ),
    # relations
    (
        "what-hangs-off-a-building",
        "إذا فتحت مبنى، وش أنواع السجلات الثانية اللي ممكن تكون مربوطة فيه؟",
        "list_relations",
    ),
    (
        "do-payments-know-their-lease",
        "هل الدفعات تعرف لأي عقد تتبع، ولا تعرف المستأجر بس؟",
        "list_relations",
    ),
    (
        "agents-cover-many-buildings",
        "كل مبنى عنده كم وسيط وكل وسيط يغطي أكثر من مبنى، جهّز هالشي",
        "create_relation",
    ),
    (
        "who-referred-a-lead",
        "أبي كل عميل محتمل يبيّن مين من عملائنا الحاليين رشّحه، نختاره من جهات الاتصال",
        "create_relation",
    ),
    (
        "vendors-and-buildings-apart",
        "ألغِ الصلة بين الموردين والمباني من أساسها، صرنا نتابع هالشي عن طريق العقود",
        "delete_relation",
    ),
    (
        "interested-in-clutter",
        "علاقة «مهتم بـ» بين العملاء المحتملين والوحدات بس تلخبط، طلّعها من نموذج البيانات",
        "delete_relation",
    ),
    (
        "owner-of-a-flat",
        "الشقة ١٢٠٤ ملك الدكتور سامي الحربي، خلّه يظهر إنه مالكها",
        "link_records",
    ),
    (
        "co-tenant-on-a-lease",
        "ضيف نورة كمستأجرة ثانية على عقد زوجها L-2025-031، هي موجودة أصلاً في جهات الاتصال",
        "link_records",
    ),
    (
        "tenant-moved-out",
        "خالد طلع من شقة 3B الشهر اللي فات، بس الشقة للحين مكتوب عليها إنه ساكن فيها",
        "unlink_records",
    ),
    (
        "sold-villa-out-of-a-campaign",
        "الفيلا ٩ انباعت، طلّعها من حملة عروض الصيف بس لا تحذف أي شي",
        "unlink_records",
    ),
    # views
    ("boards-a-colleague-made", "وش اللوحات اللي سواها ماجد لنفسه؟", "list_views"),
    (
        "a-vacancy-list-already",
        "قبل ما أسوي وحدة، فيه قائمة محفوظة للشقق الفاضية من قبل؟",
        "list_views",
    ),
    (
        "sold-villas-still-showing",
        "لماذا ما زالت الفلل المباعة تظهر في «الفلل المتاحة»؟",
        "get_view",
    ),
    ("which-date-a-calendar-uses", "على أي تاريخ يشتغل تقويم «التسليمات»؟", "get_view"),
    (
        "maintenance-board-by-urgency",
        "اعرض طلبات الصيانة كبطاقات في أعمدة حسب الاستعجال، وخلّها محفوظة للفريق",
        "create_view",
    ),
    (
        "my-listings-expiring-soon",
        "أبي قائمة أرجع لها دايم فيها إعلاناتي اللي تنتهي خلال ٣٠ يوم",
        "create_view",
    ),
    (
        "vacant-units-one-city",
        "قائمة «الوحدات الشاغرة» خلّها تعرض الرياض بس من الحين",
        "update_view",
    ),
    (
        "rename-a-board",
        "عرض «لوحة تجريبية» سمّه «مسار التأجير» من الحين",
        "update_view",
    ),
    ("trial-board-from-yesterday", "شيل لوحة أمس «تجربة ٢»", "delete_view"),
    (
        "a-leavers-personal-view",
        "أحمد ترك الشركة، وعرضه الخاص «قائمة أحمد الساخنة» ما عاد له داعي",
        "delete_view",
    ),
    # comments
    (
        "did-anyone-answer-my-question",
        "أحد رد على سؤالي في عقد الياسمين؟",
        "list_comments",
    ),
    (
        "before-meeting-a-client",
        "عندي اجتماع مع الأستاذ عادل بعد عشر دقايق، وش آخر شي كتبناه عنه؟",
        "list_comments",
    ),
    (
        "site-visit-impressions",
        "اكتب على صفقة هيلتوب إن العميل عجبته الإطلالة بس يشوف المطبخ صغير",
        "add_comment",
    ),
    (
        "bounced-cheque-tell-a-colleague",
        "بلّغ دانة على عقد الريان إن الشيك رجع بدون رصيد",
        "add_comment",
    ),
    # tasks
    (
        "what-a-team-closed-this-week",
        "وش المتابعات اللي قفلها فريق التأجير هالأسبوع؟",
        "list_tasks",
    ),
    (
        "outstanding-before-a-handover",
        "قبل ما نسلّم 7A للمشتري، وش الباقي عليها ما خلص؟",
        "list_tasks",
    ),
    (
        "keys-back-from-a-tenant",
        "كلّف ليان تسترجع المفاتيح من مستأجر 4C قبل ١٥ الشهر",
        "create_task",
    ),
    (
        "building-insurance-renewal",
        "لا تخليني أنسى تجديد تأمين المبنى في ١ مارس",
        "create_task",
    ),
    (
        "valuation-on-the-wrong-list",
        "حطيت التقييم على قائمة سارة بس هو شغل مها",
        "update_task",
    ),
    (
        "gate-code-on-a-to-do",
        "ضيف رمز البوابة 4471 على مهمتي «مقابلة المفتش»",
        "update_task",
    ),
    (
        "buyer-went-elsewhere",
        "الأستاذ نبيل اشترى من مكان ثاني، فمكالمة المتابعة معه ما لها داعي، احذفها",
        "delete_task",
    ),
    ("accidental-to-do", "شيل المهمة «asdf» اللي سويتها بالغلط", "delete_task"),
    # catalog
    (
        "sales-or-leasing-template",
        "ما الفرق بين قالب المبيعات وقالب التأجير؟",
        "browse_catalog",
    ),
    (
        "office-space-starting-point",
        "بدأنا نأجّر مكاتب تجارية، عندكم شي في المكتبة نقدر نستفيد منه لهالغرض؟",
        "browse_catalog",
    ),
    (
        "the-one-with-work-orders",
        "يلا ضيف قالب صيانة العقارات، اللي فيه أوامر العمل",
        "install_template",
    ),
    (
        "empty-branch-workspace",
        "مساحة عمل فرع دبي فاضية، حط فيها إعداد المبيعات القياسي من المكتبة",
        "install_template",
    ),
    # meta
    ("who-covers-a-city", "مين يغطي جدة؟", "list_members"),
    (
        "someone-from-finance-to-tag",
        "فيه أحد من المالية هنا أقدر أمنشنه؟",
        "list_members",
    ),
    (
        "prices-raised-in-the-wrong-building",
        "لحظة، رفعت الأسعار في المبنى الغلط، تراجع عن اللي سويته الحين",
        "undo_last_change",
    ),
    (
        "renamed-on-the-wrong-object",
        "لا، قصدي تغيّر الاسم في الصفقات مو جهات الاتصال، رجّع جهات الاتصال مثل ما كانت",
        "undo_last_change",
    ),
    # several tools
    (
        "new-building-and-its-units",
        "أضف المبنى الجديد «الصفوة ريزدنس»، وبعدها دخّل وحداته الـ١٢٠ من شيت المطوّر",
        "create_record",
        "import_records",
    ),
    (
        "archive-then-purge-expired-listings",
        "نزّل الإعلانات المنتهية من ٢٠٢٢ في ملف للأرشيف، وبعدها امسحها كلها من النظام",
        "export_records",
        "bulk_delete_records",
    ),
    (
        "note-and-hand-over-a-task",
        "اكتب على صفقة الجازي إن العميل مسافر، وحوّل مهمة الاتصال فيه لهند",
        "add_comment",
        "update_task",
    ),
    (
        "late-tenants-count-and-list",
        "كم مستأجر متأخر في الإيجار؟ وأرسل لي قائمتهم في ملف إكسل بعد",
        "count_records",
        "export_records",
    ),
    (
        "sea-view-flag-and-fill-it",
        "أضف خانة نعم/لا «إطلالة بحرية» للوحدات، وعلّمها لكل شقة من الدور العاشر وفوق في برج "
        "المارينا",
        "add_field",
        "bulk_update_records",
    ),
)
