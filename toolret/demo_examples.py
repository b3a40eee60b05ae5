"""Example requests per tool, in English, Arabic and Turkish: what a tool's author attaches.

Written apart from the eval cases (``evals.cases``), with different records, fields and
situations, so the eval measures generalisation rather than recall of its own questions; a test
rejects any example that equals or nearly equals a case. Core tools have none: they are always
bound and never ranked.

Write an example around the intent (the verb and the kind of record), not around particular
records: an example such as "show the last comment on unit 12" attracts every request that
mentions unit 12, whatever it asks for, and pushes the right tool down.
"""

from __future__ import annotations

__all__ = ["EXAMPLES"]

EXAMPLES: dict[str, dict[str, tuple[str, ...]]] = {
    # ---------------------------------------------------------------- records
    "create_record": {
        "en": (
            "Add a new contact",
            "Create a record for a new buyer with their details",
            "Enter a new apartment into the system",
        ),
        "ar": (
            "أضف جهة اتصال جديدة",
            "سجّل مشتري جديد ببياناته",
            "أدخل شقة جديدة في النظام",
        ),
        "tr": (
            "Yeni bir kişi ekle",
            "Yeni bir alıcıyı bilgileriyle kaydet",
            "Fiyatı ve metrekaresiyle yeni bir daire kaydı oluştur",
        ),
    },
    "update_record": {
        "en": (
            "Change a value on this contact",
            "Move this deal to a different stage",
            "Set this unit's status to sold",
            "Edit the rent amount on this lease",
            "Please update the deal amount",
        ),
        "ar": (
            "عدّل بيانات هذا العميل",
            "انقل الصفقة هذي لمرحلة ثانية",
            "خلّ حالة الشقة مباعة",
            "حدّث مبلغ الإيجار في العقد",
        ),
        "tr": (
            "Bu kişinin bilgilerini düzenle",
            "Bu fırsatı başka bir aşamaya taşı",
            "Dairenin durumunu satıldı olarak değiştir",
            "Bu müşterinin telefon numarasını düzelt",
        ),
    },
    "delete_record": {
        "en": (
            "Delete this contact",
            "Remove one deal from the CRM",
            "Trash the record of this apartment",
        ),
        "ar": (
            "احذف جهة الاتصال هذي",
            "احذف سجل هذا العميل",
            "شيل سجل هذي الشقة",
        ),
        "tr": (
            "Bu kişiyi sil",
            "Bir fırsatı sistemden kaldır",
            "Bu dairenin kaydını sil",
        ),
    },
    "bulk_update_records": {
        "en": (
            "Update all matching records at once",
            "Change the owner of every lead in this list",
            "Set the status of all these units in one go",
        ),
        "ar": (
            "عدّل كل السجلات المطابقة مرة وحدة",
            "غيّر المسؤول عن كل العملاء في هذي القائمة",
            "حدّث حالة كل هذي السجلات دفعة وحدة",
        ),
        "tr": (
            "Bir danışmanın bütün müşterilerini başka birine aktar",
            "Bu listedeki bütün adayların sorumlusunu değiştir",
            "Bu dairelerin hepsinin durumunu toplu olarak değiştir",
        ),
    },
    "bulk_delete_records": {
        "en": (
            "Delete all records that match a filter",
            "Remove every lead older than three years",
            "Purge all contacts with no phone or email",
        ),
        "ar": (
            "احذف كل السجلات اللي تطابق الفلتر",
            "امسح كل العملاء اللي أقدم من ثلاث سنوات",
            "احذف جميع جهات الاتصال اللي بدون رقم أو إيميل",
        ),
        "tr": (
            "Bir filtreye uyan kayıtların hepsini toplu olarak sil",
            "Üç yıldan eski tüm adayları kaldır",
            "Telefonu ve e-postası olmayan tüm kişileri toplu sil",
        ),
    },
    "import_records": {
        "en": (
            "Import a CSV file of contacts",
            "Upload an Excel sheet into this object",
            "Bring data from a spreadsheet into the CRM",
        ),
        "ar": (
            "استورد ملف CSV فيه جهات اتصال",
            "ارفع ملف إكسل على هذا الكائن",
            "أبي أدخل بيانات من جدول بيانات للنظام",
        ),
        "tr": (
            "Kişileri içeren bir CSV dosyasını içe aktar",
            "Excel'deki satırları kayıt olarak içe aktar",
            "Bir elektronik tablodaki satırları CRM'e yükle",
        ),
    },
    "export_records": {
        "en": (
            "Download all contacts as CSV",
            "Export these records to an Excel file",
            "Give me a file with our deals",
        ),
        "ar": (
            "نزّل جهات الاتصال كلها بصيغة CSV",
            "صدّر هذي السجلات لملف إكسل",
            "أبي ملف فيه كل الصفقات",
        ),
        "tr": (
            "Tüm kişileri CSV olarak indir",
            "Bu görünümü Excel dosyası olarak indir",
            "Fırsatların yedeğini CSV dosyası olarak al",
        ),
    },
    "count_records": {
        "en": (
            "How many contacts do we have?",
            "Total commission per agent",
            "What's the average deal size?",
        ),
        "ar": (
            "كم عدد جهات الاتصال عندنا؟",
            "ما مجموع العمولات لكل وسيط؟",
            "ما متوسط قيمة الصفقات المغلقة؟",
        ),
        "tr": (
            "Kaç kişi kaydımız var?",
            "Danışman başına toplam komisyon ne kadar?",
            "Ortalama fırsat büyüklüğü nedir?",
        ),
    },
    "restore_record": {
        "en": (
            "Recover a deal from the trash",
            "Undelete a record",
            "Bring back a company that was removed",
        ),
        "ar": (
            "استرجع صفقة من سلة المحذوفات",
            "رجّع سجل محذوف",
            "أبي أستعيد شركة انحذفت",
        ),
        "tr": (
            "Çöp kutusundan bir fırsatı kurtar",
            "Silinmiş bir kaydı geri yükle",
            "Kaldırılan bir şirketi geri getir",
        ),
    },
    "merge_records": {
        "en": (
            "Find and merge duplicate companies",
            "These two leads are the same person, merge them",
            "Deduplicate our contacts",
        ),
        "ar": (
            "ادمج الشركات المكررة",
            "هذول العميلين نفس الشخص، ادمجهم",
            "أبي أشيل التكرار من جهات الاتصال",
        ),
        "tr": (
            "Mükerrer şirket kayıtlarını birleştir",
            "Bu iki aday aynı kişi, tek kayıt yap",
            "Kişilerdeki mükerrer kayıtları bulup birleştir",
        ),
    },
    "record_history": {
        "en": (
            "Show the audit log for this deal",
            "When was this lead's status last changed?",
            "What did this record look like last month?",
        ),
        "ar": (
            "ورني سجل التعديلات على هذي الصفقة",
            "متى آخر مرة تغيّرت حالة هذا العميل؟",
            "كيف كان هذا السجل قبل شهر؟",
        ),
        "tr": (
            "Bu fırsatın değişiklik geçmişini göster",
            "Bu adayın durumu en son ne zaman değişti?",
            "Bu kayıt geçen ay nasıldı?",
        ),
    },
    # ---------------------------------------------------------------- objects
    "create_object": {
        "en": (
            "Set up a new object for vendors",
            "I need a new custom table",
            "Add a new type of record to the workspace",
        ),
        "ar": (
            "أنشئ جدول جديد نتابع فيه الموردين",
            "أبي جدول مخصص جديد",
            "ضيف نوع سجل جديد لمساحة العمل",
        ),
        "tr": (
            "Tedarikçiler için yeni bir nesne oluştur",
            "Yeni bir özel tablo lazım",
            "Çalışma alanına yeni bir kayıt türü ekle",
        ),
    },
    "update_object": {
        "en": (
            "Change the icon of an object",
            "Rename this object",
            "Change the plural label of Contacts",
        ),
        "ar": (
            "غيّر أيقونة الكائن",
            "غيّر التسمية الظاهرة للكائن",
            "عدّل الاسم بصيغة الجمع لجهات الاتصال",
        ),
        "tr": (
            "Nesnenin simgesini değiştir",
            "Bu nesnenin adını değiştir",
            "Kişiler için çoğul etiketi düzenle",
        ),
    },
    "delete_object": {
        "en": (
            "Delete an object with all its data",
            "Remove a whole table from the workspace",
            "Drop this record type completely",
        ),
        "ar": (
            "احذف كائن مع كل بياناته",
            "شيل جدول كامل من مساحة العمل",
            "احذف نوع السجل هذا نهائياً",
        ),
        "tr": (
            "Bir nesneyi tüm verileriyle sil",
            "Bir tabloyu çalışma alanından tamamen kaldır",
            "Bu kayıt türünü tamamen sil",
        ),
    },
    # ---------------------------------------------------------------- fields
    "add_field": {
        "en": (
            "Add a date field to deals",
            "Add a yes/no checkbox field to contacts",
            "New currency field for service charges",
        ),
        "ar": (
            "أضف حقل تاريخ للصفقات",
            "أضف حقل نعم/لا لجهات الاتصال",
            "حقل جديد بالعملة لرسوم الخدمات",
        ),
        "tr": (
            "Fırsatlara bir tarih alanı ekle",
            "Kişilere evet/hayır tipinde bir alan ekle",
            "Aidat için yeni bir para birimi alanı",
        ),
    },
    "update_field": {
        "en": (
            "Rename a field",
            "Set a default value for a field",
            "Add help text to the budget field",
        ),
        "ar": (
            "غيّر اسم حقل",
            "حط قيمة افتراضية لحقل",
            "أضف نص توضيحي لحقل الميزانية",
        ),
        "tr": (
            "Bir alanın adını değiştir",
            "Bir alana varsayılan değer ver",
            "Bir alanı zorunlu hale getir",
        ),
    },
    "delete_field": {
        "en": (
            "Delete a field from an object",
            "Remove an unused column",
            "Drop the 'secondary email' property",
        ),
        "ar": (
            "احذف حقل من الكائن",
            "شيل عمود ما نستخدمه",
            "احذف خاصية «الإيميل الثاني»",
        ),
        "tr": (
            "Bir nesneden alan sil",
            "Kullanılmayan bir sütunu kaldır",
            "'İkinci e-posta' özelliğini sil",
        ),
    },
    "change_field_type": {
        "en": (
            "Convert the budget field from text to currency",
            "Make a dropdown allow multiple choices",
            "Change the data type of a field",
        ),
        "ar": (
            "حوّل حقل الميزانية من نص إلى عملة",
            "خلّ القائمة المنسدلة تقبل أكثر من اختيار",
            "غيّر نوع بيانات حقل",
        ),
        "tr": (
            "Bütçe alanını metinden para birimine dönüştür",
            "Açılır liste birden fazla seçime izin versin",
            "Bir alanın veri tipini değiştir",
        ),
    },
    "manage_field_options": {
        "en": (
            "Add an option to a dropdown",
            "Rename one of the pipeline stages",
            "Remove a choice from the status list",
        ),
        "ar": (
            "أضف خيار لقائمة منسدلة",
            "غيّر اسم إحدى مراحل الصفقات",
            "احذف اختيار من قائمة الحالات",
        ),
        "tr": (
            "Açılır listeye bir seçenek ekle",
            "Satış aşamalarından birinin adını değiştir",
            "Durum listesinden bir seçeneği kaldır",
        ),
    },
    # ---------------------------------------------------------------- relations
    "list_relations": {
        "en": (
            "What is a deal linked to?",
            "Show me the relationships in our data model",
            "Which objects point to Contacts?",
        ),
        "ar": (
            "الصفقة مرتبطة بإيش؟",
            "ورني العلاقات في نموذج البيانات",
            "أي الكائنات مرتبطة بجهات الاتصال؟",
        ),
        "tr": (
            "Bir fırsat neye bağlı?",
            "Veri modelimizdeki ilişkileri göster",
            "Hangi nesneler Kişiler'e bağlanıyor?",
        ),
    },
    "create_relation": {
        "en": (
            "Create a relation between two objects",
            "Make a one-to-many link from Leases to Payments",
            "Add a lookup field pointing to another object",
        ),
        "ar": (
            "أنشئ علاقة بين كائنين",
            "سوّ علاقة واحد لمتعدد بين العقود والدفعات",
            "أضف حقل ربط يشير لكائن ثاني",
        ),
        "tr": (
            "Nesneler arasında yeni bir ilişki tanımla",
            "Sözleşmeler ile ödemeler arasında bire çok ilişki kur",
            "Başka bir nesneye işaret eden bir bağlantı alanı ekle",
        ),
    },
    "delete_relation": {
        "en": (
            "Remove the relation between two objects",
            "Delete a link field on both sides",
            "These objects should no longer be related",
        ),
        "ar": (
            "احذف العلاقة بين كائنين",
            "شيل حقل الربط من الطرفين",
            "ما نبي هالكائنين يكونون مرتبطين ببعض",
        ),
        "tr": (
            "İki nesne arasındaki ilişkiyi sil",
            "İlişki alanını her iki nesneden de kaldır",
            "Bu nesneler artık ilişkili olmasın",
        ),
    },
    "link_records": {
        "en": (
            "Associate this contact with a deal",
            "Link a unit to its building",
            "Connect these two records",
        ),
        "ar": (
            "اربط جهة الاتصال هذي بصفقة",
            "اربط الوحدة بالمبنى حقها",
            "وصّل هالسجلين ببعض",
        ),
        "tr": (
            "Bu kişiyi bir fırsatla ilişkilendir",
            "Daireyi ait olduğu binaya bağla",
            "Kiracıyı kira sözleşmesine bağla",
        ),
    },
    "unlink_records": {
        "en": (
            "Remove this contact from the deal without deleting anyone",
            "Detach the parking spot from the lease",
            "Take this agent off the project",
        ),
        "ar": (
            "شيل جهة الاتصال من الصفقة بدون ما تحذفها",
            "افصل الموقف عن عقد الإيجار",
            "فك ارتباط الوسيط بالمشروع",
        ),
        "tr": (
            "Bu kişiyi fırsattan çıkar ama silme",
            "Kişiyi şirketten ayır",
            "İki kayıt arasındaki bağı kaldır",
        ),
    },
    # ---------------------------------------------------------------- views
    "list_views": {
        "en": (
            "Show all views of this object",
            "What boards and lists exist for leads?",
            "List the saved views",
        ),
        "ar": (
            "اعرض كل طرق العرض لهذا الكائن",
            "وش اللوحات والقوائم الموجودة للعملاء المحتملين؟",
            "أبي قائمة بطرق العرض المحفوظة",
        ),
        "tr": (
            "Bu nesnenin tüm görünümlerini göster",
            "Adaylar için hangi panolar ve listeler var?",
            "Kayıtlı görünümleri listele",
        ),
    },
    "get_view": {
        "en": (
            "How is this view sorted?",
            "Show the filters of a view",
            "Which columns does the 'Owners' view display?",
        ),
        "ar": (
            "كيف مرتّب هذا العرض؟",
            "ورني فلاتر طريقة العرض",
            "وش الأعمدة اللي تظهر في عرض الملاك؟",
        ),
        "tr": (
            "Bu görünüm neye göre sıralı?",
            "Bir görünümün filtrelerini göster",
            "'Mal sahipleri' görünümünde hangi sütunlar var?",
        ),
    },
    "create_view": {
        "en": (
            "Create a calendar view on a date field",
            "Save a filtered list of my open deals",
            "New board view grouped by status",
        ),
        "ar": (
            "أبي تقويم مبني على تاريخ انتهاء العقود",
            "احفظ قائمة مفلترة بصفقاتي المفتوحة",
            "لوحة جديدة مجمّعة حسب الحالة",
        ),
        "tr": (
            "Tarih alanına göre bir takvim görünümü oluştur",
            "Açık fırsatlarımı filtrelenmiş bir liste olarak kaydet",
            "Yeni bir takvim ya da pano görünümü ekle",
        ),
    },
    "update_view": {
        "en": (
            "Add a filter for city = Dubai to this view",
            "Group the deals board by owner instead",
            "Show the phone column in the Contacts view",
        ),
        "ar": (
            "أضف فلتر المدينة = دبي لهذا العرض",
            "خلّ لوحة الصفقات مجمّعة حسب المسؤول",
            "أظهر عمود الجوال في عرض جهات الاتصال",
        ),
        "tr": (
            "Bu görünüme şehir = İstanbul filtresi ekle",
            "Fırsat panosunu sorumluya göre grupla",
            "Kişiler görünümünde telefon sütununu göster",
        ),
    },
    "delete_view": {
        "en": (
            "Remove one of the saved views",
            "Delete a board nobody uses",
            "Get rid of this saved list",
        ),
        "ar": (
            "احذف العرض المكرر",
            "امسح لوحة ما أحد يستخدمها",
            "شيل هذي القائمة المحفوظة",
        ),
        "tr": (
            "Mükerrer bir görünümü sil",
            "Kimsenin kullanmadığı bir panoyu kaldır",
            "Bu kayıtlı listeyi sil",
        ),
    },
    # ---------------------------------------------------------------- comments
    "list_comments": {
        "en": (
            "Show the notes on this contact",
            "Read me the latest comment",
            "Was I mentioned on any deal?",
        ),
        "ar": (
            "اعرض الملاحظات على جهة الاتصال هذي",
            "اقرأ لي آخر تعليق",
            "هل أحد منشنّي في أي صفقة؟",
        ),
        "tr": (
            "Bu kişideki notları göster",
            "Son yorumu oku",
            "Herhangi bir fırsatta benden bahsedilmiş mi?",
        ),
    },
    "add_comment": {
        "en": (
            "Write a comment on this deal",
            "Log a summary of my call",
            "Mention a colleague on this record",
        ),
        "ar": (
            "اكتب تعليق على هذي الصفقة",
            "سجّل ملخص المكالمة",
            "منشن زميل على هذا السجل",
        ),
        "tr": (
            "Bu fırsata bir yorum yaz",
            "Görüşmenin özetini not olarak kaydet",
            "Bu kayıtta bir iş arkadaşını etiketle",
        ),
    },
    # ---------------------------------------------------------------- tasks
    "list_tasks": {
        "en": (
            "Show tasks assigned to me",
            "Which follow-ups are due this week?",
            "List open to-dos on this deal",
        ),
        "ar": (
            "ورني المهام المسندة لي",
            "وش المتابعات المستحقة هالأسبوع؟",
            "اعرض المهام المفتوحة على هذي الصفقة",
        ),
        "tr": (
            "Bana atanmış görevleri göster",
            "Bu hafta vadesi gelen takipler hangileri?",
            "Bu fırsattaki açık yapılacakları listele",
        ),
    },
    "create_task": {
        "en": (
            "Create a to-do for a colleague",
            "Set a reminder to call a client",
            "Add a follow-up task on this deal",
        ),
        "ar": (
            "أنشئ مهمة لزميل",
            "حط تذكير أتصل على عميل",
            "أضف مهمة متابعة على هذي الصفقة",
        ),
        "tr": (
            "Bir iş arkadaşı için yapılacak iş oluştur",
            "Bir müşteriyi aramak için hatırlatıcı kur",
            "Bu fırsata bir takip görevi ekle",
        ),
    },
    "update_task": {
        "en": (
            "Move the due date of this task to Friday",
            "Hand a task over to someone else",
            "Mark a to-do as done",
        ),
        "ar": (
            "غيّر موعد المهمة هذي ليوم الجمعة",
            "حوّل المهمة لشخص ثاني",
            "علّم المهمة إنها منجزة",
        ),
        "tr": (
            "Bu görevin son tarihini cumaya çek",
            "Görevi başka birine devret",
            "Bu görevi bitti olarak kapat",
        ),
    },
    "delete_task": {
        "en": (
            "Delete this follow-up",
            "Cancel a reminder",
            "Delete a to-do I no longer need",
        ),
        "ar": (
            "احذف مهمة",
            "ألغِ تذكير",
            "امسح المهمة هذي",
        ),
        "tr": (
            "Bir görevi sil",
            "Bir hatırlatıcıyı iptal et",
            "Artık gerekmeyen bir yapılacak işi kaldır",
        ),
    },
    # ---------------------------------------------------------------- catalog
    "browse_catalog": {
        "en": (
            "What templates do you offer?",
            "Is there a starter kit for brokers?",
            "What does the customer support template include?",
        ),
        "ar": (
            "وش القوالب المتوفرة؟",
            "فيه حزمة جاهزة لمكاتب الوساطة؟",
            "وش يحتوي قالب خدمة العملاء؟",
        ),
        "tr": (
            "Hangi şablonlar mevcut?",
            "Kullanabileceğimiz şablonların listesini göster",
            "Müşteri destek şablonu neler içeriyor?",
        ),
    },
    "install_template": {
        "en": (
            "Apply a template to our workspace",
            "Set up the customer support template",
            "Install a starter kit from the catalog",
        ),
        "ar": (
            "طبّق قالب على مساحة العمل",
            "جهّز قالب خدمة العملاء",
            "ثبّت حزمة جاهزة من الكتالوج",
        ),
        "tr": (
            "Çalışma alanına bir şablon uygula",
            "Müşteri destek şablonunu katalogdan yükle",
            "Katalogdan bir başlangıç paketi kur",
        ),
    },
    # ---------------------------------------------------------------- meta
    "list_members": {
        "en": (
            "Who can I assign this lead to?",
            "What's Omar's email address?",
            "List everyone in the workspace with their roles",
        ),
        "ar": (
            "لمين أقدر أسند هذا العميل؟",
            "وش إيميل عمر؟",
            "اعرض كل المستخدمين وأدوارهم",
        ),
        "tr": (
            "Bu adayı kime atayabilirim?",
            "Ömer'in e-posta adresi ne?",
            "Hangi ekipte kimler çalışıyor?",
        ),
    },
    "undo_last_change": {
        "en": (
            "Revert your last edit",
            "That bulk update was a mistake, roll it back",
            "Put the old values back",
        ),
        "ar": (
            "تراجع عن آخر تعديل سويته",
            "التحديث الجماعي كان غلط، ألغه",
            "رجّع القيم القديمة زي ما كانت",
        ),
        "tr": (
            "Son düzenlemeni geri al",
            "O toplu güncelleme hataydı, geri çevir",
            "Eski değerleri geri yükle",
        ),
    },
}
