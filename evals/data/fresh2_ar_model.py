"""The second fresh held-back set, Arabic (mostly Gulf colloquial, some Modern Standard),
part 1 of 2: records, objects, fields and relations.

One row per case, (scenario, prompt, tool, ...).

Written on 2026-12-06 (session 47) before anything was measured on it (``evals.data.fresh2``
says what the set is for and how it was written). Never edit a row because of a figure measured
on it.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # records
    (
        "new-tenant-not-in-contacts",
        "راكان الشمري ٠٥٠٢٢٢٣٣٤٤ بيستأجر دوبلكس الملقا من مايو، وللحين مو مسجل عندنا في الجهات",
        "create_record",
    ),
    (
        "co-broker-firm-signs-up",
        "ضيف شركة المفتاح الأزرق للعقار كشريك، بيسوّقون معنا فلل حطين",
        "create_record",
    ),
    (
        "tenant-switched-numbers",
        "حنان قاسم غيّرت رقمها، جوالها الجديد ٠٥٥٩٨٧١٢٠٠",
        "update_record",
    ),
    (
        "rent-cut-on-one-flat",
        "نزّل إيجار شقة ١٥٠٧ إلى ٦٢ ألف، وباقي شقق الدور خلها زي ما هي",
        "update_record",
    ),
    (
        "plot-listed-by-mistake",
        "أرض الحمراء ما كانت لنا أصلاً، انعرضت بالغلط. شيلها",
        "delete_record",
    ),
    (
        "one-lead-of-a-family",
        "احذف بسام خوري من العملاء المحتملين بس، طلبات أهله خلها",
        "delete_record",
    ),
    (
        "stale-viewing-stage-deals",
        "كل الصفقات اللي واقفة على مرحلة المعاينة من السنة الماضية اعتبرها خسرانة",
        "bulk_update_records",
    ),
    (
        "wrong-area-on-a-tower",
        "كل وحدات أبراج الشروق مكتوب منطقتها دبي مارينا وهي في أبراج بحيرات جميرا، عدّلها كلها",
        "bulk_update_records",
    ),
    (
        "open-day-signups-bounced",
        "المسجلين في اليوم المفتوح ٢٠٢١ كل إيميلاتهم ترجع، امسح كل هذولا العملاء",
        "bulk_delete_records",
    ),
    (
        "zero-phone-leads",
        "أي عميل محتمل رقمه كله أصفار، تخلّص منه",
        "bulk_delete_records",
    ),
    (
        "old-agency-owner-list",
        "هذا ملف الملاك من برنامج مكتبنا القديم بصيغة xlsx، دخّله كله",
        "import_records",
    ),
    (
        "municipality-broker-registry",
        "أرفقت لك سجل الوسطاء من البلدية، أضف اللي مو عندنا منهم",
        "import_records",
    ),
    (
        "auditor-wants-signed-leases",
        "المدقق يبي كل عقود الإيجار الموقعة في ٢٠٢٥ في جدول بيانات قبل الخميس",
        "export_records",
    ),
    (
        "buyers-csv-for-sms-campaign",
        "طلّع مشترين حي الورود في ملف CSV عشان التسويق يرسلون لهم رسائل نصية",
        "export_records",
    ),
    (
        "instagram-leads-last-month",
        "كم عميل جانا من إعلانات إنستغرام الشهر اللي فات؟",
        "count_records",
    ),
    (
        "top-agent-by-value",
        "من أكثر وسيط حقق مبيعات في الربع الثالث من حيث القيمة؟",
        "count_records",
    ),
    (
        "company-with-contracts-removed",
        "شركة بن صالح اللي حذفتها الصبح كانت مربوطة فيها كل عقودنا، رجّعها لي مثل ما كانت",
        "restore_record",
    ),
    (
        "trashed-the-wrong-unit",
        "يا ساتر، حذفت الوحدة ٨٠٨ بدل ٨٠٦. تقدر ترجّع ٨٠٨؟",
        "restore_record",
    ),
    (
        "engineer-with-three-contacts",
        "م. وليد حمدان له ثلاث جهات اتصال، وحدة لكل رقم؛ أبيها وحدة بس",
        "merge_records",
    ),
    (
        "import-made-a-second-building",
        "الاستيراد سوّى مبنى ثاني باسم فلل الغروب، ادمجه مع الأصلي",
        "merge_records",
    ),
    (
        "deal-moved-back-to-negotiation",
        "مين رجّع صفقة النخيل لمرحلة التفاوض أمس؟",
        "record_history",
    ),
    (
        "rent-at-signing",
        "المستأجر يقول الإيجار كان ٤٨ ألف يوم وقّع. وش كان مكتوب في عقده وقتها؟",
        "record_history",
    ),
    # objects
    (
        "service-charge-invoices",
        "بدينا نحصّل رسوم الخدمات من الملاك، ونبي كل فاتورة تكون سجل مستقل",
        "create_object",
    ),
    (
        "key-sets-who-holds-which",
        "نقدر نتابع نسخ المفاتيح كشي مستقل؟ مين ماسك أي نسخة",
        "create_object",
    ),
    (
        "buildings-default-icon",
        "قسم المباني للحين أيقونته الرمادية الافتراضية، حط له أيقونة عمارة",
        "update_object",
    ),
    (
        "deals-become-opportunities",
        "مع الإطلاق في السعودية نريد أن تُسمّى «الصفقات» «الفرص» في النظام كله",
        "update_object",
    ),
    (
        "out-of-short-stays",
        "طلعنا من الإيجار اليومي نهائياً، نوع سجلات الحجوزات احذفه بكل اللي فيه",
        "delete_object",
    ),
    (
        "parking-permits-pilot-over",
        "كائن تصاريح المواقف كان تجربة لمبنى واحد، امسحه من مساحة العمل",
        "delete_object",
    ),
    # fields
    (
        "ejari-number-on-leases",
        "العقود تحتاج مكان نكتب فيه رقم تسجيل إيجاري",
        "add_field",
    ),
    (
        "preferred-contact-language",
        "أبي نعرف كل مشتري بأي لغة يفضّل نتواصل معه",
        "add_field",
    ),
    (
        "service-charge-hint",
        "حط ملاحظة تحت خانة رسوم الخدمة توضح إنها لكل قدم مربع بالسنة",
        "update_field",
    ),
    (
        "new-units-start-available",
        "الوحدات الجديدة خلها تبدأ «متاحة» إلا إذا أحد اختار غير كذا",
        "update_field",
    ),
    (
        "size-and-area-twice",
        "الوحدات فيها «الحجم» و«المساحة م٢» وهم نفس الشي، احذف «الحجم» نهائياً",
        "delete_field",
    ),
    (
        "pet-policy-column-unused",
        "خانة «يسمح بالحيوانات» في العقود ما أحد استخدمها، احذفها بقيمها",
        "delete_field",
    ),
    (
        "preferred-area-one-choice",
        "المشتري ممكن يبي كذا منطقة، بس «المنطقة المفضلة» ما تخليني أختار إلا وحدة",
        "change_field_type",
    ),
    (
        "deposit-without-currency",
        "مبالغ التأمين تطلع أرقام بدون عملة، خلّ الحقل مبلغ مالي",
        "change_field_type",
    ),
    (
        "hotel-apartment-type",
        "ضيف «شقة فندقية» لقائمة أنواع العقار",
        "manage_field_options",
    ),
    (
        "negotiation-becomes-offer-made",
        "مرحلة «التفاوض» في مسار المبيعات خلها «تم تقديم عرض»",
        "manage_field_options",
    ),
    # relations
    (
        "maintenance-to-tenant-or-unit",
        "طلب الصيانة يرتبط بالمستأجر، ولا بالوحدة بس؟",
        "list_relations",
    ),
    (
        "map-for-a-new-admin",
        "عندنا مسؤول نظام جديد يبدأ الأحد، اشرح لي كيف كائناتنا مربوطة ببعض",
        "list_relations",
    ),
    (
        "building-manager-from-contacts",
        "أبي في كل مبنى أختار مدير العمارة من جهات الاتصال",
        "create_relation",
    ),
    (
        "vendors-handle-many-requests",
        "لازم نربط الموردين بطلبات الصيانة، المورد الواحد ياخذ طلبات كثيرة",
        "create_relation",
    ),
    (
        "deals-to-brokers-design-mistake",
        "كان ربط الصفقات بالوسطاء الخارجيين خطأً في التصميم، احذف هذه العلاقة من النموذج",
        "delete_relation",
    ),
    (
        "buildings-no-longer-tied-to-developers",
        "المباني ما عاد لها دخل بالمطورين، شيل هالربط وحقوله",
        "delete_relation",
    ),
    (
        "lift-repair-vendor",
        "حط مؤسسة الفرسان للصيانة على طلب تصليح المصعد في برج C",
        "link_records",
    ),
    (
        "buyer-already-a-contact",
        "بلال هو المشتري في الصفقة D-778 وهو موجود عندنا في الجهات، اربطهم",
        "link_records",
    ),
    (
        "deal-no-longer-with-developer",
        "صفقة ريفرسايد ما عاد لها علاقة بهورايزن للتطوير، افصلهم عن بعض وخلّ الاثنين",
        "unlink_records",
    ),
    (
        "left-his-company",
        "سلطان ترك القابضة الهلالية وصار يشتغل لحاله، جهة اتصاله لازم ما تطلع معهم",
        "unlink_records",
    ),
)
