"""Traffic for the learning replay: requests users might send the CRM agent, one tool each.

Written for ``evals.studies.learning_replay`` and kept apart from both halves of
``evals.data.cases`` and
from the tools' example requests (a test checks that none repeats one). They play the messages that
reach a deployment after its descriptions were written: the replay runs them through the real
selection, reports the tool each one needed, lets the worker learn from the misses, and then
measures the held-back cases again. English, Arabic (Gulf colloquial and Modern Standard) and
Turkish, one request per non-core tool and language.
"""

from __future__ import annotations

from evals.data.cases import LANGUAGES

__all__ = ["TRAFFIC", "traffic_in"]

_EN: dict[str, str] = {
    "create_record": "Put a new contact in for me: Hassan Ali, works at Gulf Steel",
    "update_record": "The asking price on villa 22 dropped to 1.9 million, change it",
    "delete_record": "Get rid of that contact I created by mistake five minutes ago",
    "bulk_update_records": "Every lead from the Riyadh expo should now have source set to Expo",
    "bulk_delete_records": "Clear every record tagged QA-sandbox from the units table in one go",
    "import_records": "I have a spreadsheet of 300 tenants, load it into the system",
    "export_records": "I need the list of all signed leases as a file for the auditors",
    "count_records": "Average monthly rent per building, please",
    "restore_record": "I accidentally removed the Al Noor building, can I get it back?",
    "merge_records": "There are two entries for Fatima Saleh, combine them into one",
    "record_history": "Show me the audit trail of edits on Nadia's lease",
    "create_object": "We start managing parking spots, we need a new place to track them",
    "update_object": "Call the Leads table Prospects from now on",
    "delete_object": "We dropped the Referral Partners module entirely, remove the whole thing",
    "add_field": "Units need a new column for the view type, sea or city",
    "update_field": "Nobody should be able to save a lease without an end date anymore",
    "delete_field": "The fax number column on contacts is useless, drop it",
    "change_field_type": "Bedrooms is stored as text, turn it into a number field",
    "manage_field_options": "Add 'Under maintenance' as a choice in the unit status dropdown",
    "list_relations": "Which objects point to the Invoices object, and with what kind of link?",
    "create_relation": "Tickets should hang off apartments: one apartment, many tickets",
    "delete_relation": "We no longer want deals tied to campaigns, remove that connection",
    "link_records": "Attach Mr. Kareem as the tenant on lease L-118",
    "unlink_records": "Detach the old broker from the Marina deal but keep both",
    "list_views": "Is there already a layout someone saved for invoices?",
    "get_view": "Open up the config of the Q3 pipeline board, I want to see its sorting",
    "create_view": "Give me a board of maintenance tickets by status",
    "update_view": "In my overdue payments view, sort by amount, biggest first",
    "delete_view": "Remove the 'Test view 2' nobody uses anymore",
    "list_comments": "What notes has the team left on the Khalifa tower deal?",
    "add_comment": "Jot down on Ibrahim's deal that legal approved the draft, and ping Yousef",
    "list_tasks": "Anything on Mariam's to-do list that's overdue?",
    "create_task": "Remind me Thursday to send the offer to Dr. Amal",
    "update_task": "Push my call with the bank to next Monday",
    "delete_task": "That reminder about the Jeddah visit isn't needed, delete it",
    "browse_catalog": "Show me the prebuilt packs you offer; one may fit a holiday-home business",
    "install_template": "Go ahead and add the facility management pack to our workspace",
    "list_members": "Who is on the leasing team and what are their emails?",
    "undo_last_change": "Oops, that wasn't right, revert what you just did",
}

_AR: dict[str, str] = {
    "create_record": "سجل عميل جديد اسمه ناصر الدوسري رقمه 0509988776",
    "update_record": "غير حالة الشقة ١٠٤ إلى مؤجرة",
    "delete_record": "امسح هالصفقة، العميل لغاها",
    "bulk_update_records": "كل العملاء المحتملين حق ماجد حولهم على ريم",
    "bulk_delete_records": "احذف جميع السجلات التجريبية دفعة وحدة",
    "import_records": "عندي ملف إكسل فيه الوحدات، دخله النظام",
    "export_records": "طلع لي كل العقود في ملف أقدر أنزله",
    "count_records": "قديش مجموع الإيجارات المتأخرة هالشهر؟",
    "restore_record": "رجع العميل اللي انحذف أمس بالغلط",
    "merge_records": "عندي نفس الشركة مسجلة مرتين، ادمجهم",
    "record_history": "مين عدل سعر الفيلا هذي؟ أبي أشوف التغييرات",
    "create_object": "نحتاج نوع سجلات جديد للمواقف والكراجات",
    "update_object": "غير اسم كائن الوحدات إلى العقارات",
    "delete_object": "ما عاد نستخدم قسم الشركاء، شيله نهائيا من النظام",
    "add_field": "نبي عمود جديد في الوحدات يبين إطلالة الشقة",
    "update_field": "خل حقل رقم الجوال إلزامي",
    "delete_field": "عمود الملاحظات القديمة في العقود ما له فايدة، امسحه",
    "change_field_type": "نوع بيانات عدد الغرف غلط، خله رقمي بدل نصي",
    "manage_field_options": "غير لون اختيار مباع في القائمة المنسدلة إلى أحمر",
    "list_relations": "وش العلاقات اللي تربط العقود بالعملاء؟",
    "create_relation": "اربط كائن الصيانة بالوحدات بعلاقة جديدة",
    "delete_relation": "ألغ العلاقة بين الحملات والصفقات",
    "link_records": "اربط المستأجر خالد بعقد الشقة ٢٠٣",
    "unlink_records": "فك ارتباط الوسيط من هالصفقة بدون ما تحذف شي",
    "list_views": "اعرض لي كل الواجهات المحفوظة لكائن الفواتير",
    "get_view": "ورني إعدادات عرض العملاء المهمين",
    "create_view": "سو لي عرض كانبان للصفقات حسب المرحلة",
    "update_view": "في عرض الدفعات المتأخرة، رتبها حسب التاريخ",
    "delete_view": "احذف العرض القديم اللي اسمه تجربة",
    "list_comments": "وش الملاحظات المكتوبة على هذا العميل؟",
    "add_comment": "اكتب ملاحظة على الصفقة إن العميل يبي خصم، ومنشن فهد",
    "list_tasks": "وش المهام المطلوبة مني اليوم؟",
    "create_task": "ذكرني بكرة أتصل على أبو سعود",
    "update_task": "خلص، علم مهمة زيارة العميل إنها منتهية",
    "delete_task": "شيل المهمة حقت زيارة جدة، انلغت",
    "browse_catalog": "هل فيه قوالب جاهزة لإدارة العقارات؟",
    "install_template": "ثبت قالب إدارة الإيجارات",
    "list_members": "أبغى أعرف إيميلات زملائي في قسم الصيانة",
    "undo_last_change": "ألغ التغيير الأخير اللي عملته على الصفقة، ما كان مقصود",
}

_TR: dict[str, str] = {
    "create_record": "Kaşif Otomotiv diye bir firmayı kişilere kaydeder misin",
    "update_record": "B blok 7 numaranın kirasını 25 bin olarak güncelle",
    "delete_record": "Yanlışlıkla açtığım bu kaydı sil",
    "bulk_update_records": "Ayşe'nin tüm açık fırsatlarını Emre'ye devret",
    "bulk_delete_records": "Test amaçlı oluşturduğumuz bütün kayıtları toptan sil",
    "import_records": "Elimdeki CSV dosyasındaki daireleri sisteme yükle",
    "export_records": "Muhasebe için kiracıların dökümünü dosya halinde ver",
    "count_records": "Kaç tane boş dairemiz var?",
    "restore_record": "Dün silinen müşteriyi geri getir",
    "merge_records": "Aynı firma iki kere kayıtlı, bunları birleştir",
    "record_history": "Elif Hanım'ın kaydında kim hangi gün neyi düzeltmiş?",
    "create_object": "Otopark yerlerini takip edeceğimiz ayrı bir tablo lazım",
    "update_object": "Potansiyel müşteriler nesnesinin adını Adaylar yap",
    "delete_object": "Referans ortakları modülünü sistemden komple temizle",
    "add_field": "Kiracılara doğum tarihi alanı ekle",
    "update_field": "TC kimlik numarası boş bırakılamasın",
    "delete_field": "Kişilerdeki faks alanını sil",
    "change_field_type": "Oda sayısı yazı olarak tutuluyor, rakam tipine dönüştür",
    "manage_field_options": "Açılır menüdeki 'Satıldı' seçeneğinin rengini kırmızı yap",
    "list_relations": "Sözleşmeler hangi nesnelerle ilişkili?",
    "create_relation": "Bakım taleplerini dairelere bağlayan bir ilişki kur",
    "delete_relation": "Faturalar ve projeler arasındaki bağlantı tanımını sil",
    "link_records": "Ahmet Bey'i 12 numaralı sözleşmeye kiracı olarak bağla",
    "unlink_records": "Eski danışmanın bu fırsatla bağlantısını kopar, kayıtları silme",
    "list_views": "Faturalarda önceden kaydedilmiş düzenler neler?",
    "get_view": "Üçüncü çeyrek panosunun sıralama ayarlarına bakmak istiyorum",
    "create_view": "Bakım taleplerini durumlarına göre sütunlarda gösteren pano yap",
    "update_view": "Geciken ödemeler görünümünde tutara göre sırala",
    "delete_view": "Artık kullanılmayan deneme görünümünü sil",
    "list_comments": "Ekip bu sözleşmenin altına neler yazmış?",
    "add_comment": "Bu fırsata müşterinin indirim istediğine dair not düş, Zeynep'i etiketle",
    "list_tasks": "Bu hafta bana atanmış görevler neler?",
    "create_task": "Perşembe günü teklifi göndermem için bana hatırlatma kur",
    "update_task": "Banka görüşmesi görevini pazartesiye ertele",
    "delete_task": "Antalya ziyareti hatırlatmasına gerek kalmadı, sil",
    "browse_catalog": "Tatil evi işletmesine uygun önceden hazırlanmış paketleriniz neler?",
    "install_template": "Tesis yönetimi paketini bizim hesaba ekle",
    "list_members": "Bakım departmanındaki arkadaşların mail adresleri lazım",
    "undo_last_change": "Dur, az önce yaptığını eski haline döndür",
}

TRAFFIC: dict[str, dict[str, str]] = {"en": _EN, "ar": _AR, "tr": _TR}
"""Per language: tool name → one request that needs it."""
assert set(TRAFFIC) == set(LANGUAGES)


def traffic_in(languages: tuple[str, ...] = LANGUAGES) -> list[tuple[str, str, str]]:
    """(language, request, tool) for the given languages, in a fixed order."""
    return [
        (language, prompt, tool)
        for language in languages
        for tool, prompt in TRAFFIC[language].items()
    ]
