"""Eval cases: realistic requests to the CRM "units" agent, each naming the tool(s) it needs.

English, Arabic and Turkish are written separately, each as a speaker of that language would ask
(the Arabic is mostly Gulf colloquial, some Modern Standard, as users of an Arabic-first CRM
write), not as translations of one another. A case may name a core tool; core tools are always
bound, so recall is measured over the non-core tools a case names, and every case names at least
one. ``OFF_TOPIC`` holds messages no tool applies to, for the score analysis.

Keep these apart from ``evals.examples``: examples are what tool authors attach to tools; cases
are what the eval asks. A test rejects any example that equals or nearly equals a case.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CASES", "LANGUAGES", "OFF_TOPIC", "Case", "OffTopic", "cases_in"]

LANGUAGES = ("en", "ar", "tr")
"""The languages that have cases; every non-core tool needs a case in each."""


@dataclass(frozen=True)
class Case:
    """One request, its language, and the tools the agent needs to serve it."""

    language: str
    prompt: str
    tools: tuple[str, ...]


@dataclass(frozen=True)
class OffTopic:
    """A message no tool in the roster applies to."""

    language: str
    prompt: str


_EN: tuple[tuple[str, ...], ...] = (
    # records
    (
        "Add a new lead called Omar Haddad, phone 0551234567, he's interested in two-bedroom units",
        "create_record",
    ),
    ("Unit B-12 is now reserved, please update it", "update_record"),
    ("Layla's email changed to layla.m@outlook.com, fix it on her contact", "update_record"),
    ("Remove the deal for Villa 7, the buyer walked away", "delete_record"),
    (
        "Reassign all of Khalid's open leads to Mona, he's leaving the company",
        "bulk_update_records",
    ),
    ("Wipe out all the dummy contacts we made while testing last week", "bulk_delete_records"),
    (
        "The developer sent me a spreadsheet with 300 new units, get them into the system",
        "import_records",
    ),
    ("Send me an Excel file of all leases ending this year", "export_records"),
    ("How many units are still available in Tower A?", "count_records"),
    (
        "What's the total value of deals won this quarter, broken down by sales rep?",
        "count_records",
    ),
    ("I deleted Sara Ali's contact by accident yesterday, can you get it back?", "restore_record"),
    ("Ahmed Nasser shows up twice in contacts, combine the two into one", "merge_records"),
    ("Who changed the asking price on unit C-3, and what was it before?", "record_history"),
    # objects
    ("I want to start tracking maintenance requests as their own kind of record", "create_object"),
    ("Rename Leads to Prospects across the CRM", "update_object"),
    ("Get rid of the Campaigns object entirely, we never use it", "delete_object"),
    # fields
    ("Units need a floor number field", "add_field"),
    ("Make the phone field on contacts mandatory", "update_field"),
    ("Remove the fax column from companies, nobody has a fax anymore", "delete_field"),
    ("The area field on units was set up as text, it should be a number", "change_field_type"),
    ("Add 'Under offer' as a new stage in the deal pipeline", "manage_field_options"),
    # relations
    ("How are units connected to buildings and leases in our setup?", "list_relations"),
    (
        "Every unit should belong to a building; set up that connection between the two objects",
        "create_relation",
    ),
    ("Drop the relationship between Contacts and Campaigns", "delete_relation"),
    ("Attach tenant Fatima Zahra to lease L-2024-118", "link_records"),
    (
        "Unit D-5 is attached to the Marina building by mistake, detach it but keep both records",
        "unlink_records",
    ),
    # views
    ("Which saved views do we have for deals?", "list_views"),
    ("What filters is the 'Hot leads' view using?", "get_view"),
    ("Make me a kanban board of deals grouped by stage", "create_view"),
    ("In the 'My leads' view hide the budget column and sort by last contacted", "update_view"),
    ("Delete the old 'Q1 pipeline' view", "delete_view"),
    # comments
    ("What has the team said about the Al Noor deal so far?", "list_comments"),
    ("Leave a note on Hassan's lead that he prefers sea-view units and tag Rania", "add_comment"),
    # tasks
    ("What's on my plate today?", "list_tasks"),
    ("Remind me to call Mr. Karim back on Sunday at 10", "create_task"),
    ("I sent the contract to Yusuf, tick that task off", "update_task"),
    ("Delete the follow-up for the Jumeirah viewing, it was created twice", "delete_task"),
    # catalog
    ("Are there ready-made setups for property management we could start from?", "browse_catalog"),
    ("Install the leasing template", "install_template"),
    # meta
    ("Who's on the sales team?", "list_members"),
    ("Undo that, you changed the wrong record", "undo_last_change"),
    # several tools
    (
        "Log a note on the Palm deal that the client wants a discount, and remind me to answer "
        "him by Thursday",
        "add_comment",
        "create_task",
    ),
    (
        "Add a number field for parking spaces on units and a view showing units with two or more",
        "add_field",
        "create_view",
    ),
    (
        "Mark every reserved unit in Tower B as sold, then export the list for finance",
        "bulk_update_records",
        "export_records",
    ),
    ("Set up a Contracts object and relate it to Contacts", "create_object", "create_relation"),
    ("Find the Acme deal and push its closing date to next month", "find_records", "update_record"),
)

_AR: tuple[tuple[str, ...], ...] = (
    # records
    (
        "سجّل عميل جديد: عبدالله القحطاني، جواله ٠٥٠٩٨٧٦٥٤٣، يدوّر فيلا في شمال الرياض",
        "create_record",
    ),
    ("صفقة أم سلطان وصلت مرحلة التفاوض، حدّثها", "update_record"),
    ("غيّر رقم جوال المستأجر ماجد إلى ٠٥٥٤٤٤٣٣٢٢", "update_record"),
    ("شيل الوحدة ٣٠٧ من النظام، انضافت بالغلط", "delete_record"),
    ("ارفع أسعار كل الشقق في مشروع الروضة بنسبة ٥٪", "bulk_update_records"),
    ("نظّف النظام من كل العملاء المحتملين اللي حالتهم خاسر من سنة ٢٠٢٢", "bulk_delete_records"),
    ("وصلني شيت من المطوّر فيه ٢٠٠ وحدة، أبي أدخلها كلها مرة وحدة", "import_records"),
    ("أبغى قائمة المستأجرين كلهم في ملف أرسله للمحاسب", "export_records"),
    ("كم صفقة قفلناها الشهر اللي فات؟", "count_records"),
    ("وش متوسط الإيجار السنوي في برج الياسمين؟", "count_records"),
    ("عقد الإيجار حق شركة الأفق انحذف بالغلط، رجّعه لو سمحت", "restore_record"),
    ("مؤسسة البناء الحديث مدخلة مرتين بنفس البيانات، خلها سجل واحد", "merge_records"),
    ("مين اللي عدّل سعر الفيلا ١٢؟ وكم كان السعر قبل التعديل؟", "record_history"),
    # objects
    ("نحتاج نوع بيانات جديد نسجّل فيه شكاوى السكان", "create_object"),
    ("أبي اسم «الوحدات» يصير «العقارات» في كل النظام", "update_object"),
    ("ما عاد نستخدم موضوع الحملات التسويقية، احذفه هو وكل بياناته", "delete_object"),
    # fields
    ("ضيف خانة جديدة للوحدات نسجّل فيها اتجاه الواجهة", "add_field"),
    ("خلّ رقم الهوية إلزامي عند إضافة أي مستأجر", "update_field"),
    ("احذف حقل رقم الفاكس من جهات الاتصال، ما له داعي", "delete_field"),
    ("حقل تاريخ التسليم مسوّى كنص عادي، أبيه يكون تاريخ", "change_field_type"),
    ("ضيف خيار «محجوز مبدئياً» في قائمة حالات الوحدة", "manage_field_options"),
    # relations
    ("وش العلاقات الموجودة بين الجداول عندنا؟", "list_relations"),
    ("أبي أربط العقود بالمستأجرين بحيث يكون لكل مستأجر أكثر من عقد", "create_relation"),
    ("ألغِ العلاقة بين الصفقات والحملات نهائياً، ما نحتاجها", "delete_relation"),
    ("اربط الوحدة ٥٠١ بعقد الإيجار رقم ٨٨٩", "link_records"),
    ("المستأجر نواف مربوط بالعقد الغلط، افصله عنه بس لا تحذف شي", "unlink_records"),
    # views
    ("وش طرق العرض المحفوظة عندنا للعملاء؟", "list_views"),
    ("ليش العميل سامي ما يطلع في عرض «المتابعات العاجلة»؟ وش الفلاتر اللي فيه؟", "get_view"),
    ("سوّ لي عرض تقويم يوريني مواعيد المعاينات", "create_view"),
    ("في عرض الوحدات الشاغرة أبي أخفي عمود المساحة وأرتّب حسب السعر", "update_view"),
    ("امسح طريقة العرض «صفقات ٢٠٢٢» ما نحتاجها", "delete_view"),
    # comments
    ("وش آخر شي كتبوه الزملاء عن عميلنا أبو خالد؟", "list_comments"),
    ("اكتب ملاحظة على صفقة الفيلا إن العميل طلب يأجّل التوقيع، ومنشن مها", "add_comment"),
    # tasks
    ("وش عندي متابعات متأخرة؟", "list_tasks"),
    ("حط لي تذكير أكلم المالك بكرة الصبح بخصوص التجديد", "create_task"),
    ("أجّل مهمة زيارة الموقع للأسبوع الجاي", "update_task"),
    ("مهمة تصوير الشقة ما عاد لها داعي، احذفها", "delete_task"),
    # catalog
    ("عندكم نماذج جاهزة لشركات إدارة الأملاك؟", "browse_catalog"),
    ("نزّل قالب الصيانة في مساحة العمل حقتنا", "install_template"),
    # meta
    ("مين الموظفين اللي معنا في فريق التأجير؟", "list_members"),
    ("لا لا، رجّع اللي سويته قبل شوي، طلع غلط", "undo_last_change"),
    # several tools
    (
        "حوّل كل عملاء معرض سيتي سكيب لريم وصدّرهم في ملف إكسل",
        "bulk_update_records",
        "export_records",
    ),
    ("أنشئ جدول للشكاوى وضيف فيه حقل لدرجة الأهمية", "create_object", "add_field"),
    ("بعد ما تسجّل الصفقة الجديدة لفيصل، حط مهمة لسارة تتابع معه", "create_record", "create_task"),
    ("هل يمكن معرفة عدد الشقق التي بيعت في مشروع الواحة حتى الآن؟", "count_records"),
    ("أرجو إضافة تعليق على ملف العميل يفيد بأنه سدّد الدفعة الأولى", "add_comment"),
)

_TR: tuple[tuple[str, ...], ...] = (
    # records
    (
        "Yeni bir aday ekle: Mehmet Yılmaz, telefonu 0532 111 22 33, 3+1 daire arıyor",
        "create_record",
    ),
    ("Ayşe Hanım'ın fırsatını 'görüşme' aşamasına taşı", "update_record"),
    ("Kadıköy'deki 12 numaralı daireyi sil, yanlışlıkla açılmış", "delete_record"),
    ("Can şirketten ayrılıyor, onun tüm açık fırsatlarını Zeynep'e devret", "bulk_update_records"),
    ("Deneme için girdiğimiz bütün sahte kişileri topluca sil", "bulk_delete_records"),
    ("Elimde 150 satırlık bir Excel var, içindeki kiracıları sisteme aktar", "import_records"),
    ("Bu ay biten kira sözleşmelerini Excel olarak indirmek istiyorum", "export_records"),
    ("Bu hafta kaç yeni potansiyel müşteri geldi?", "count_records"),
    ("Dün yanlışlıkla sildiğim Demir İnşaat kaydını geri getirir misin?", "restore_record"),
    ("Ali Kaya sistemde iki kere var, bu iki kaydı birleştir", "merge_records"),
    ("B blok 5 numaralı dairenin fiyatını kim ne zaman değiştirmiş?", "record_history"),
    # objects
    ("Bakım taleplerini ayrı bir kayıt türü olarak takip etmek istiyoruz", "create_object"),
    ("'Fırsatlar' nesnesinin adını 'Satışlar' yap", "update_object"),
    ("Kampanyalar nesnesini içindeki her şeyle birlikte tamamen kaldır", "delete_object"),
    # fields
    ("Dairelere balkon olup olmadığını tutacağımız bir alan ekle", "add_field"),
    ("Kişi kaydında e-posta alanı zorunlu olsun", "update_field"),
    ("Şirketlerdeki faks sütununu sil, kimse kullanmıyor", "delete_field"),
    ("Metrekare alanı metin olarak açılmış, sayıya çevir", "change_field_type"),
    ("Satış aşamalarına 'Kapora alındı' seçeneğini ekle", "manage_field_options"),
    # relations
    ("Daireler, bloklar ve sözleşmeler birbirine nasıl bağlı?", "list_relations"),
    ("Her daire bir bloğa ait olsun, bu iki nesne arasında ilişki kur", "create_relation"),
    ("Kişiler ile kampanyalar arasındaki ilişkiyi tamamen kaldır", "delete_relation"),
    ("Kiracı Elif Şahin'i 2024-57 numaralı sözleşmeye bağla", "link_records"),
    ("D-8 dairesi yanlış bloğa bağlanmış, bağlantıyı kopar ama kayıtları silme", "unlink_records"),
    # views
    ("Fırsatlar için hangi kayıtlı görünümlerimiz var?", "list_views"),
    ("'Sıcak müşteriler' görünümü hangi filtreleri kullanıyor?", "get_view"),
    ("Fırsatları aşamaya göre gruplayan bir kanban panosu oluştur", "create_view"),
    (
        "'Portföyüm' görünümünde bütçe sütununu gizle, son görüşme tarihine göre sırala",
        "update_view",
    ),
    ("Eski 'Q1 satışlar' görünümünü kaldır", "delete_view"),
    # comments
    ("Ekip Yıldız Rezidans fırsatı hakkında neler yazmış?", "list_comments"),
    (
        "Hasan Bey'in kaydına deniz manzarası istediğine dair not düş, Selin'i de etiketle",
        "add_comment",
    ),
    # tasks
    ("Bugün yapmam gereken işler neler?", "list_tasks"),
    ("Pazartesi saat 10'da Kerem Bey'i aramamı hatırlat", "create_task"),
    ("'Sözleşmeyi Murat'a gönder' görevini tamamlandı olarak işaretle", "update_task"),
    ("Villa gezisi için iki kere açılmış takip görevini sil", "delete_task"),
    # catalog
    ("Emlak yönetimi için hazır şablonlarınız var mı?", "browse_catalog"),
    ("Kiralama şablonunu çalışma alanımıza kur", "install_template"),
    # meta
    ("Satış ekibinde kimler var?", "list_members"),
    ("Bunu geri al, yanlış kaydı değiştirdin", "undo_last_change"),
    # several tools
    (
        "Yeni bir 'Sözleşmeler' nesnesi oluştur ve kişilere bağla",
        "create_object",
        "create_relation",
    ),
    (
        "Rezerve dairelerin hepsini satıldı yap ve listeyi Excel'e aktar",
        "bulk_update_records",
        "export_records",
    ),
)

OFF_TOPIC: tuple[OffTopic, ...] = tuple(
    OffTopic(language, prompt)
    for language, prompt in (
        ("en", "What's the weather going to be like in Riyadh tomorrow?"),
        ("en", "Write me a short poem about the sea"),
        ("en", "Tell me a joke"),
        ("en", "Who won the football match last night?"),
        ("en", "What's a good recipe for chicken biryani?"),
        ("en", "How do I fix a flat bicycle tire?"),
        ("en", "Explain how photosynthesis works"),
        ("en", "Translate 'good morning' into French"),
        ("ar", "كم درجة الحرارة في جدة اليوم؟"),
        ("ar", "اكتب لي قصيدة عن الأم"),
        ("ar", "وش أفضل مطعم مندي في الرياض؟"),
        ("ar", "مين فاز بمباراة الهلال أمس؟"),
        ("ar", "علّمني طريقة عمل الكبسة"),
        ("ar", "متى يبدأ رمضان السنة هذي؟"),
        ("ar", "اشرح لي نظرية النسبية ببساطة"),
        ("ar", "كيف أتعلم البرمجة من الصفر؟"),
        ("tr", "Yarın İstanbul'da hava nasıl olacak?"),
        ("tr", "Bana bir fıkra anlat"),
        ("tr", "Menemen nasıl yapılır?"),
        ("tr", "Dün akşamki maçı kim kazandı?"),
        ("tr", "Fotosentez nasıl işler, kısaca anlatır mısın?"),
        ("tr", "İngilizce öğrenmek için ne önerirsin?"),
        ("fr", "Quel temps fera-t-il demain à Paris ?"),
        ("fr", "Recommande-moi un bon roman policier"),
        ("de", "Erzähl mir einen Witz über Katzen"),
        ("es", "¿Cuál es la capital de Australia?"),
    )
)


def _build(language: str, rows: tuple[tuple[str, ...], ...]) -> tuple[Case, ...]:
    return tuple(Case(language, prompt, tuple(tools)) for prompt, *tools in rows)


CASES: tuple[Case, ...] = _build("en", _EN) + _build("ar", _AR) + _build("tr", _TR)
"""Every case, English first, then Arabic, then Turkish."""


def cases_in(language: str) -> tuple[Case, ...]:
    """The cases written in one language."""
    return tuple(case for case in CASES if case.language == language)
