"""Eval cases: realistic requests to the CRM "units" agent, each naming the tool(s) it needs.

English, Arabic and Turkish are written separately, each as a speaker of that language would ask
(the Arabic is mostly Gulf colloquial, some Modern Standard, as users of an Arabic-first CRM
write), not as translations of one another. A case may name a core tool; core tools are always
bound, so recall is measured over the non-core tools a case names, and every case names at least
one. ``OFF_TOPIC`` holds messages no tool applies to, for the score analysis.

Keep these apart from ``toolret.demo.examples``: examples are what tool authors attach to tools;
cases are what the eval asks. A test rejects any example that equals or nearly equals a case.

Every case is in one of two halves, recorded on its row and fixed once and for all:

- ``TUNE``: the tuning half. Descriptions, examples, document templates and scoring may be
  changed to make these cases pass.
- ``HELD``: the held-back half. Only reported and gated (``evals.recall.gate``); never revise a
  description or an example because a held-back case failed.

The split is stratified by tool: the cases of each tool, across the three languages, rotate
through six patterns (Arabic held; English and Turkish held; English held; Arabic and Turkish
held; Turkish held; English and Arabic held), so every tool has cases in both halves and each
language is about half held back (English 23 of 46, Arabic 21 of 46, Turkish 20 of 41). A
language's second case of one tool takes the other half from its first.

Honest caveat: before the split was made (issue 9), the examples had been revised while every
case was visible, so the held-back figures of that first state are optimistic. From the split
on, tuning looks only at the ``TUNE`` half.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CASES",
    "HELD",
    "LANGUAGES",
    "OFF_TOPIC",
    "SPLITS",
    "TUNE",
    "Case",
    "OffTopic",
    "Split",
    "cases_in",
]

LANGUAGES = ("en", "ar", "tr")
"""The languages that have cases; every non-core tool needs a case in each."""

Split = Literal["tune", "held"]
TUNE: Split = "tune"
"""The tuning half: what descriptions, examples and ranking choices may be fitted to."""
HELD: Split = "held"
"""The held-back half: reported and gated, never tuned on."""
SPLITS: tuple[Split, ...] = (TUNE, HELD)


@dataclass(frozen=True)
class Case:
    """One request, its language, the tools the agent needs to serve it, and its half."""

    language: str
    prompt: str
    tools: tuple[str, ...]
    split: Split = TUNE


@dataclass(frozen=True)
class OffTopic:
    """A message no tool in the roster applies to."""

    language: str
    prompt: str


_EN: tuple[tuple[str, ...], ...] = (
    # records
    (
        TUNE,
        "Add a new lead called Omar Haddad, phone 0551234567, he's interested in two-bedroom units",
        "create_record",
    ),
    (HELD, "Unit B-12 is now reserved, please update it", "update_record"),
    (TUNE, "Layla's email changed to layla.m@outlook.com, fix it on her contact", "update_record"),
    (HELD, "Remove the deal for Villa 7, the buyer walked away", "delete_record"),
    (
        TUNE,
        "Reassign all of Khalid's open leads to Mona, he's leaving the company",
        "bulk_update_records",
    ),
    (
        TUNE,
        "Wipe out all the dummy contacts we made while testing last week",
        "bulk_delete_records",
    ),
    (
        HELD,
        "The developer sent me a spreadsheet with 300 new units, get them into the system",
        "import_records",
    ),
    (TUNE, "Send me an Excel file of all leases ending this year", "export_records"),
    (HELD, "How many units are still available in Tower A?", "count_records"),
    (
        TUNE,
        "What's the total value of deals won this quarter, broken down by sales rep?",
        "count_records",
    ),
    (
        HELD,
        "I deleted Sara Ali's contact by accident yesterday, can you get it back?",
        "restore_record",
    ),
    (TUNE, "Ahmed Nasser shows up twice in contacts, combine the two into one", "merge_records"),
    (TUNE, "Who changed the asking price on unit C-3, and what was it before?", "record_history"),
    # objects
    (
        HELD,
        "I want to start tracking maintenance requests as their own kind of record",
        "create_object",
    ),
    (TUNE, "Rename Leads to Prospects across the CRM", "update_object"),
    (HELD, "Get rid of the Campaigns object entirely, we never use it", "delete_object"),
    # fields
    (HELD, "Units need a floor number field", "add_field"),
    (TUNE, "Make the phone field on contacts mandatory", "update_field"),
    (TUNE, "Remove the fax column from companies, nobody has a fax anymore", "delete_field"),
    (
        HELD,
        "The area field on units was set up as text, it should be a number",
        "change_field_type",
    ),
    (TUNE, "Add 'Under offer' as a new stage in the deal pipeline", "manage_field_options"),
    # relations
    (HELD, "How are units connected to buildings and leases in our setup?", "list_relations"),
    (
        HELD,
        "Every unit should belong to a building; set up that connection between the two objects",
        "create_relation",
    ),
    (TUNE, "Drop the relationship between Contacts and Campaigns", "delete_relation"),
    (TUNE, "Attach tenant Fatima Zahra to lease L-2024-118", "link_records"),
    (
        HELD,
        "Unit D-5 is attached to the Marina building by mistake, detach it but keep both records",
        "unlink_records",
    ),
    # views
    (TUNE, "Which saved views do we have for deals?", "list_views"),
    (HELD, "What filters is the 'Hot leads' view using?", "get_view"),
    (HELD, "Make me a kanban board of deals grouped by stage", "create_view"),
    (
        TUNE,
        "In the 'My leads' view hide the budget column and sort by last contacted",
        "update_view",
    ),
    (TUNE, "Delete the old 'Q1 pipeline' view", "delete_view"),
    # comments
    (HELD, "What has the team said about the Al Noor deal so far?", "list_comments"),
    (
        TUNE,
        "Leave a note on Hassan's lead that he prefers sea-view units and tag Rania",
        "add_comment",
    ),
    # tasks
    (HELD, "What's on my plate today?", "list_tasks"),
    (HELD, "Remind me to call Mr. Karim back on Sunday at 10", "create_task"),
    (TUNE, "I sent the contract to Yusuf, tick that task off", "update_task"),
    (TUNE, "Delete the follow-up for the Jumeirah viewing, it was created twice", "delete_task"),
    # catalog
    (
        HELD,
        "Are there ready-made setups for property management we could start from?",
        "browse_catalog",
    ),
    (TUNE, "Install the leasing template", "install_template"),
    # meta
    (HELD, "Who's on the sales team?", "list_members"),
    (HELD, "Undo that, you changed the wrong record", "undo_last_change"),
    # several tools
    (
        HELD,
        "Log a note on the Palm deal that the client wants a discount, and remind me to answer "
        "him by Thursday",
        "add_comment",
        "create_task",
    ),
    (
        TUNE,
        "Add a number field for parking spaces on units and a view showing units with two or more",
        "add_field",
        "create_view",
    ),
    (
        HELD,
        "Mark every reserved unit in Tower B as sold, then export the list for finance",
        "bulk_update_records",
        "export_records",
    ),
    (
        TUNE,
        "Set up a Contracts object and relate it to Contacts",
        "create_object",
        "create_relation",
    ),
    (
        HELD,
        "Find the Acme deal and push its closing date to next month",
        "find_records",
        "update_record",
    ),
)

_AR: tuple[tuple[str, ...], ...] = (
    # records
    (
        HELD,
        "سجّل عميل جديد: عبدالله القحطاني، جواله ٠٥٠٩٨٧٦٥٤٣، يدوّر فيلا في شمال الرياض",
        "create_record",
    ),
    (TUNE, "صفقة أم سلطان وصلت مرحلة التفاوض، حدّثها", "update_record"),
    (HELD, "غيّر رقم جوال المستأجر ماجد إلى ٠٥٥٤٤٤٣٣٢٢", "update_record"),
    (TUNE, "شيل الوحدة ٣٠٧ من النظام، انضافت بالغلط", "delete_record"),
    (HELD, "ارفع أسعار كل الشقق في مشروع الروضة بنسبة ٥٪", "bulk_update_records"),
    (
        TUNE,
        "نظّف النظام من كل العملاء المحتملين اللي حالتهم خاسر من سنة ٢٠٢٢",
        "bulk_delete_records",
    ),
    (HELD, "وصلني شيت من المطوّر فيه ٢٠٠ وحدة، أبي أدخلها كلها مرة وحدة", "import_records"),
    (HELD, "أبغى قائمة المستأجرين كلهم في ملف أرسله للمحاسب", "export_records"),
    (TUNE, "كم صفقة قفلناها الشهر اللي فات؟", "count_records"),
    (HELD, "وش متوسط الإيجار السنوي في برج الياسمين؟", "count_records"),
    (TUNE, "عقد الإيجار حق شركة الأفق انحذف بالغلط، رجّعه لو سمحت", "restore_record"),
    (HELD, "مؤسسة البناء الحديث مدخلة مرتين بنفس البيانات، خلها سجل واحد", "merge_records"),
    (TUNE, "مين اللي عدّل سعر الفيلا ١٢؟ وكم كان السعر قبل التعديل؟", "record_history"),
    # objects
    (HELD, "نحتاج نوع بيانات جديد نسجّل فيه شكاوى السكان", "create_object"),
    (HELD, "أبي اسم «الوحدات» يصير «العقارات» في كل النظام", "update_object"),
    (TUNE, "ما عاد نستخدم موضوع الحملات التسويقية، احذفه هو وكل بياناته", "delete_object"),
    # fields
    (TUNE, "ضيف خانة جديدة للوحدات نسجّل فيها اتجاه الواجهة", "add_field"),
    (HELD, "خلّ رقم الهوية إلزامي عند إضافة أي مستأجر", "update_field"),
    (TUNE, "احذف حقل رقم الفاكس من جهات الاتصال، ما له داعي", "delete_field"),
    (HELD, "حقل تاريخ التسليم مسوّى كنص عادي، أبيه يكون تاريخ", "change_field_type"),
    (HELD, "ضيف خيار «محجوز مبدئياً» في قائمة حالات الوحدة", "manage_field_options"),
    # relations
    (TUNE, "وش العلاقات الموجودة بين الجداول عندنا؟", "list_relations"),
    (TUNE, "أبي أربط العقود بالمستأجرين بحيث يكون لكل مستأجر أكثر من عقد", "create_relation"),
    (HELD, "ألغِ العلاقة بين الصفقات والحملات نهائياً، ما نحتاجها", "delete_relation"),
    (TUNE, "اربط الوحدة ٥٠١ بعقد الإيجار رقم ٨٨٩", "link_records"),
    (HELD, "المستأجر نواف مربوط بالعقد الغلط، افصله عنه بس لا تحذف شي", "unlink_records"),
    # views
    (HELD, "وش طرق العرض المحفوظة عندنا للعملاء؟", "list_views"),
    (TUNE, "ليش العميل سامي ما يطلع في عرض «المتابعات العاجلة»؟ وش الفلاتر اللي فيه؟", "get_view"),
    (TUNE, "سوّ لي عرض تقويم يوريني مواعيد المعاينات", "create_view"),
    (HELD, "في عرض الوحدات الشاغرة أبي أخفي عمود المساحة وأرتّب حسب السعر", "update_view"),
    (TUNE, "امسح طريقة العرض «صفقات ٢٠٢٢» ما نحتاجها", "delete_view"),
    # comments
    (HELD, "وش آخر شي كتبوه الزملاء عن عميلنا أبو خالد؟", "list_comments"),
    (HELD, "اكتب ملاحظة على صفقة الفيلا إن العميل طلب يأجّل التوقيع، ومنشن مها", "add_comment"),
    # tasks
    (TUNE, "وش عندي متابعات متأخرة؟", "list_tasks"),
    (TUNE, "حط لي تذكير أكلم المالك بكرة الصبح بخصوص التجديد", "create_task"),
    (HELD, "أجّل مهمة زيارة الموقع للأسبوع الجاي", "update_task"),
    (TUNE, "مهمة تصوير الشقة ما عاد لها داعي، احذفها", "delete_task"),
    # catalog
    (HELD, "عندكم نماذج جاهزة لشركات إدارة الأملاك؟", "browse_catalog"),
    (HELD, "نزّل قالب الصيانة في مساحة العمل حقتنا", "install_template"),
    # meta
    (TUNE, "مين الموظفين اللي معنا في فريق التأجير؟", "list_members"),
    (TUNE, "لا لا، رجّع اللي سويته قبل شوي، طلع غلط", "undo_last_change"),
    # several tools
    (
        TUNE,
        "حوّل كل عملاء معرض سيتي سكيب لريم وصدّرهم في ملف إكسل",
        "bulk_update_records",
        "export_records",
    ),
    (TUNE, "أنشئ جدول للشكاوى وضيف فيه حقل لدرجة الأهمية", "create_object", "add_field"),
    (
        TUNE,
        "بعد ما تسجّل الصفقة الجديدة لفيصل، حط مهمة لسارة تتابع معه",
        "create_record",
        "create_task",
    ),
    (TUNE, "هل يمكن معرفة عدد الشقق التي بيعت في مشروع الواحة حتى الآن؟", "count_records"),
    (TUNE, "أرجو إضافة تعليق على ملف العميل يفيد بأنه سدّد الدفعة الأولى", "add_comment"),
)

_TR: tuple[tuple[str, ...], ...] = (
    # records
    (
        TUNE,
        "Yeni bir aday ekle: Mehmet Yılmaz, telefonu 0532 111 22 33, 3+1 daire arıyor",
        "create_record",
    ),
    (HELD, "Ayşe Hanım'ın fırsatını 'görüşme' aşamasına taşı", "update_record"),
    (TUNE, "Kadıköy'deki 12 numaralı daireyi sil, yanlışlıkla açılmış", "delete_record"),
    (
        HELD,
        "Can şirketten ayrılıyor, onun tüm açık fırsatlarını Zeynep'e devret",
        "bulk_update_records",
    ),
    (HELD, "Deneme için girdiğimiz bütün sahte kişileri topluca sil", "bulk_delete_records"),
    (
        TUNE,
        "Elimde 150 satırlık bir Excel var, içindeki kiracıları sisteme aktar",
        "import_records",
    ),
    (TUNE, "Bu ay biten kira sözleşmelerini Excel olarak indirmek istiyorum", "export_records"),
    (HELD, "Bu hafta kaç yeni potansiyel müşteri geldi?", "count_records"),
    (TUNE, "Dün yanlışlıkla sildiğim Demir İnşaat kaydını geri getirir misin?", "restore_record"),
    (HELD, "Ali Kaya sistemde iki kere var, bu iki kaydı birleştir", "merge_records"),
    (HELD, "B blok 5 numaralı dairenin fiyatını kim ne zaman değiştirmiş?", "record_history"),
    # objects
    (TUNE, "Bakım taleplerini ayrı bir kayıt türü olarak takip etmek istiyoruz", "create_object"),
    (TUNE, "'Fırsatlar' nesnesinin adını 'Satışlar' yap", "update_object"),
    (HELD, "Kampanyalar nesnesini içindeki her şeyle birlikte tamamen kaldır", "delete_object"),
    # fields
    (TUNE, "Dairelere balkon olup olmadığını tutacağımız bir alan ekle", "add_field"),
    (HELD, "Kişi kaydında e-posta alanı zorunlu olsun", "update_field"),
    (HELD, "Şirketlerdeki faks sütununu sil, kimse kullanmıyor", "delete_field"),
    (TUNE, "Metrekare alanı metin olarak açılmış, sayıya çevir", "change_field_type"),
    (TUNE, "Satış aşamalarına 'Kapora alındı' seçeneğini ekle", "manage_field_options"),
    # relations
    (HELD, "Daireler, bloklar ve sözleşmeler birbirine nasıl bağlı?", "list_relations"),
    (TUNE, "Her daire bir bloğa ait olsun, bu iki nesne arasında ilişki kur", "create_relation"),
    (HELD, "Kişiler ile kampanyalar arasındaki ilişkiyi tamamen kaldır", "delete_relation"),
    (HELD, "Kiracı Elif Şahin'i 2024-57 numaralı sözleşmeye bağla", "link_records"),
    (
        TUNE,
        "D-8 dairesi yanlış bloğa bağlanmış, bağlantıyı kopar ama kayıtları silme",
        "unlink_records",
    ),
    # views
    (TUNE, "Fırsatlar için hangi kayıtlı görünümlerimiz var?", "list_views"),
    (HELD, "'Sıcak müşteriler' görünümü hangi filtreleri kullanıyor?", "get_view"),
    (TUNE, "Fırsatları aşamaya göre gruplayan bir kanban panosu oluştur", "create_view"),
    (
        HELD,
        "'Portföyüm' görünümünde bütçe sütununu gizle, son görüşme tarihine göre sırala",
        "update_view",
    ),
    (HELD, "Eski 'Q1 satışlar' görünümünü kaldır", "delete_view"),
    # comments
    (TUNE, "Ekip Yıldız Rezidans fırsatı hakkında neler yazmış?", "list_comments"),
    (
        TUNE,
        "Hasan Bey'in kaydına deniz manzarası istediğine dair not düş, Selin'i de etiketle",
        "add_comment",
    ),
    # tasks
    (HELD, "Bugün yapmam gereken işler neler?", "list_tasks"),
    (TUNE, "Pazartesi saat 10'da Kerem Bey'i aramamı hatırlat", "create_task"),
    (HELD, "'Sözleşmeyi Murat'a gönder' görevini tamamlandı olarak işaretle", "update_task"),
    (HELD, "Villa gezisi için iki kere açılmış takip görevini sil", "delete_task"),
    # catalog
    (TUNE, "Emlak yönetimi için hazır şablonlarınız var mı?", "browse_catalog"),
    (TUNE, "Kiralama şablonunu çalışma alanımıza kur", "install_template"),
    # meta
    (HELD, "Satış ekibinde kimler var?", "list_members"),
    (TUNE, "Bunu geri al, yanlış kaydı değiştirdin", "undo_last_change"),
    # several tools
    (
        HELD,
        "Yeni bir 'Sözleşmeler' nesnesi oluştur ve kişilere bağla",
        "create_object",
        "create_relation",
    ),
    (
        TUNE,
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
    cases = []
    for split, prompt, *tools in rows:
        if split not in SPLITS:
            raise ValueError(f"case {prompt!r}: split must be TUNE or HELD, not {split!r}")
        cases.append(Case(language, prompt, tuple(tools), HELD if split == HELD else TUNE))
    return tuple(cases)


CASES: tuple[Case, ...] = _build("en", _EN) + _build("ar", _AR) + _build("tr", _TR)
"""Every case, English first, then Arabic, then Turkish."""


def cases_in(language: str, split: Split | None = None) -> tuple[Case, ...]:
    """The cases written in one language (in one half, if ``split`` is given)."""
    return tuple(
        case
        for case in CASES
        if case.language == language and (split is None or case.split == split)
    )
