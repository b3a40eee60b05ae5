"""The fresh held-back set, Turkish: one row per case, (scenario, prompt, tool, ...).

Written on 2026-12-06 before anything was measured on it (``evals.data.fresh`` says what the set
is for and how it was written). Never edit a row because of a figure measured on it.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # records
    (
        "walk-in-couple-at-the-sales-office",
        "Satış ofisine az önce bir çift geldi, Marina Heights'ı soruyorlar: Yusuf ve Hüda Salih, "
        "yusuf.salih@gmail.com. Aday olarak gir",
        "create_record",
    ),
    (
        "owner-lists-a-flat-with-us",
        "Tarık Bey Göztepe'deki 3+1'ini yıllık 850 bine kiraya vermemizi istiyor, sistemde "
        "henüz yok",
        "create_record",
    ),
    (
        "buyer-budget-went-up",
        "Ömer geri aradı, bütçesi artık 15 değil 18 milyon",
        "update_record",
    ),
    (
        "give-one-deal-to-a-colleague",
        "Çamlıca'daki villa fırsatını benim yerime Fatih üstlensin",
        "update_record",
    ),
    (
        "lead-asks-to-be-erased",
        "Samir Aziz bilgilerinin silinmesini istedi, aday kaydını kaldır",
        "delete_record",
    ),
    (
        "brokerage-firm-closed-down",
        "Körfez Yıldızı Emlak geçen yıl kapandı; şirket kaydını çıkar",
        "delete_record",
    ),
    (
        "tower-handed-over",
        "B Blok bugün teslim edildi; içindeki her daire artık 'projeden' değil, 'hazır' görünsün",
        "bulk_update_records",
    ),
    (
        "contacts-gone-quiet",
        "2023'ten beri konuşmadığımız ne kadar kişi varsa hepsini pasife çek",
        "bulk_update_records",
    ),
    (
        "bot-spam-from-the-web-form",
        "Sitedeki form gece botların saldırısına uğradı, anlamsız isimli yüzlerce sahte aday "
        "düştü. Hepsini temizle.",
        "bulk_delete_records",
    ),
    (
        "old-cancelled-reservations",
        "Altı aydan eski, iptal edilmiş rezervasyonların hepsini sil",
        "bulk_delete_records",
    ),
    (
        "portal-enquiries-as-csv",
        "Sahibinden bu haftaki talepleri CSV olarak gönderdi, aday olarak içeri al",
        "import_records",
    ),
    (
        "new-prices-from-a-finance-sheet",
        "Finans fiyat listesini Excel'de güncelledi; o dosyadaki yeni fiyatları eşleşen "
        "dairelere işle",
        "import_records",
    ),
    (
        "bank-wants-mortgage-buyers",
        "Banka, konut kredisiyle alan müşterilerimizin listesini istiyor; bunu dosya olarak "
        "alabilir miyim?",
        "export_records",
    ),
    (
        "statement-for-a-landlord",
        "Cabir Bey bizdeki bütün dairelerini görmek istiyor, ona mail atabileceğim bir Excel'e koy",
        "export_records",
    ),
    (
        "occupancy-in-a-district",
        "Bostanlı'daki dairelerimizin kaçı şu an kirada, toplamda kaç tane?",
        "count_records",
    ),
    ("biggest-sale-this-year", "Bu yılın en büyük satışı?", "count_records"),
    (
        "company-vanished-after-a-cleanup",
        "Salı günkü temizlikten sonra Fener Ticaret listeden kayboldu, Nadide'nin ona ihtiyacı var",
        "restore_record",
    ),
    (
        "dropped-buyer-came-back",
        "Geçen hafta vazgeçtiğimiz alıcı döndü, villayı yine istiyor. Sildiğim fırsatı geri getir",
        "restore_record",
    ),
    (
        "two-spellings-of-one-company",
        "'Raşit Holding' ile 'Raşit Holding A.Ş.' aynı firma",
        "merge_records",
    ),
    (
        "signed-up-twice",
        "Hatice hem siteden hem şubeden kayıt olmuş; onu bir kere görmek istiyorum",
        "merge_records",
    ),
    (
        "when-a-deal-was-marked-lost",
        "Kasr fırsatı ne zaman kaybedildi diye işaretlendi, kim yaptı?",
        "record_history",
    ),
    (
        "first-listed-price",
        "22 numaralı villayı ilk ilana koyduğumuzda fiyatı neydi?",
        "record_history",
    ),
    # objects
    (
        "a-home-for-developers",
        "Artık birkaç müteahhitle çalışıyoruz; onlar için kendi kayıtları olan ayrı bir yer "
        "istiyorum",
        "create_object",
    ),
    (
        "site-visits-as-their-own-records",
        "Yer gösterimleri tarihi, danışmanı ve dairesiyle ayrı kayıtlar olsun, hatırlatıcı "
        "olarak kalmasın",
        "create_object",
    ),
    (
        "unit-number-as-the-title",
        "Daireler iç kimlik numarasıyla başlıklanıyor, başlıkta daire numarası görünsün",
        "update_object",
    ),
    (
        "misspelt-object-name",
        "Menüde 'Mülkler' yerine 'Mülker' yazıyor, düzelt",
        "update_object",
    ),
    (
        "referral-pilot-ended",
        "Tavsiye programı denemesi bitti; 'Tavsiyeler' türünü kayıtlarıyla birlikte tamamen kaldır",
        "delete_object",
    ),
    (
        "tickets-from-a-template-by-mistake",
        "Destek şablonunu yanlışlıkla kurduk, onun oluşturduğu 'Talepler' nesnesini kaldır",
        "delete_object",
    ),
    # fields
    (
        "tenant-nationality",
        "Bundan sonra her kiracının uyruğunu da tutmamız lazım",
        "add_field",
    ),
    (
        "is-the-flat-furnished",
        "Danışmanlar sürekli dairenin eşyalı olup olmadığını soruyor; dairelerde bunu "
        "belirtecek bir yer olsun",
        "add_field",
    ),
    (
        "clearer-budget-label",
        "'Bütçe' sütununun adı 'Azami bütçe (TL)' olsun, kimse karıştırmasın",
        "update_field",
    ),
    (
        "same-id-number-twice",
        "İki kiracının TC kimlik numarası aynı çıktı, bir daha böyle bir şey olmasın",
        "update_field",
    ),
    (
        "legacy-id-from-the-old-crm",
        "Eski CRM'den kalan 'Eski ID' sütunu artık işe yaramıyor, içindekilerle birlikte at",
        "delete_field",
    ),
    (
        "home-phone-never-filled",
        "Kişilerde 'Ev telefonu'nu kimse doldurmuyor, kaldır gitsin",
        "delete_field",
    ),
    (
        "viewing-date-needs-a-time",
        "Gösterim tarihlerinde sadece gün var, saati de lazım",
        "change_field_type",
    ),
    (
        "commission-typed-as-text",
        "Komisyon '%2,5' gibi serbest metin olarak giriliyor; toplanabilsin diye gerçek bir "
        "yüzdeye çevir",
        "change_field_type",
    ),
    (
        "retire-a-lead-rating",
        "Adaylara artık 'Soğuk' demiyoruz, o seçeneği kaldır",
        "manage_field_options",
    ),
    (
        "cities-missing-when-picking",
        "Şehir seçerken İzmir ve Bursa çıkmıyor",
        "manage_field_options",
    ),
    # relations
    (
        "what-hangs-off-a-building",
        "Bir binayı açınca ona başka hangi tür kayıtlar bağlanabiliyor?",
        "list_relations",
    ),
    (
        "do-payments-know-their-lease",
        "Ödemeler hangi sözleşmeye ait olduklarını biliyor mu, yoksa sadece kiracıyı mı?",
        "list_relations",
    ),
    (
        "agents-cover-many-buildings",
        "Her binada birkaç danışman var, her danışman da birkaç binaya bakıyor. Bunu kur",
        "create_relation",
    ),
    (
        "who-referred-a-lead",
        "Her adayda, onu mevcut müşterilerimizden kimin tavsiye ettiği görünsün; kişilerden "
        "seçilsin",
        "create_relation",
    ),
    (
        "vendors-and-buildings-apart",
        "Tedarikçiler ile Binalar arasındaki bağı tümden kaldır, bunu artık sözleşmelerden "
        "izliyoruz",
        "delete_relation",
    ),
    (
        "interested-in-clutter",
        "Adaylarla daireler arasındaki 'ilgileniyor' bağı sadece kalabalık yapıyor; veri "
        "modelinden çıkar",
        "delete_relation",
    ),
    (
        "owner-of-a-flat",
        "1204 numaralı daire Dr. Sami Harbi'nin, sahibi olarak onu göster",
        "link_records",
    ),
    (
        "co-tenant-on-a-lease",
        "Nur Hanım'ı eşinin L-2025-031 sözleşmesine ikinci kiracı olarak ekle, kişilerde zaten var",
        "link_records",
    ),
    (
        "tenant-moved-out",
        "Halil geçen ay 3B'den çıktı ama daire hâlâ onu oturan olarak gösteriyor",
        "unlink_records",
    ),
    (
        "sold-villa-out-of-a-campaign",
        "9 numaralı villa satıldı; yaz fırsatı kampanyasından çıkar ama hiçbir şey silme",
        "unlink_records",
    ),
    # views
    ("boards-a-colleague-made", "Mert kendisi için hangi panoları kurmuş?", "list_views"),
    (
        "a-vacancy-list-already",
        "Ben yapmadan önce soralım: boş daireler için kayıtlı bir liste zaten var mı?",
        "list_views",
    ),
    (
        "sold-villas-still-showing",
        "Satılan villalar neden hâlâ 'Müsait villalar'da çıkıyor?",
        "get_view",
    ),
    (
        "which-date-a-calendar-uses",
        "'Teslimler' takvimi hangi tarihe göre çalışıyor?",
        "get_view",
    ),
    (
        "maintenance-board-by-urgency",
        "Bakım taleplerini aciliyete göre sütunlarda kartlar halinde göster, ekip için de kalsın",
        "create_view",
    ),
    (
        "my-listings-expiring-soon",
        "30 gün içinde süresi dolacak ilanlarımın, dönüp bakabileceğim bir listesi olsun",
        "create_view",
    ),
    (
        "vacant-units-one-city",
        "'Boş daireler' listesi bundan sonra sadece İzmir'i göstersin",
        "update_view",
    ),
    (
        "rename-a-board",
        "'Deneme panosu' görünümünün adı bundan sonra 'Kiralama hattı' olsun",
        "update_view",
    ),
    ("trial-board-from-yesterday", "Dünkü 'Deneme 2' panosunu uçur", "delete_view"),
    (
        "a-leavers-personal-view",
        "Ahmet ayrıldı; onun kişisel 'Ahmet'in sıcak listesi' görünümü gidebilir",
        "delete_view",
    ),
    # comments
    (
        "did-anyone-answer-my-question",
        "Yasemin sözleşmesinde sorduğum soruya cevap veren oldu mu?",
        "list_comments",
    ),
    (
        "before-meeting-a-client",
        "On dakika sonra Adil Bey'le görüşeceğim, onunla ilgili en son ne yazmışız?",
        "list_comments",
    ),
    (
        "site-visit-impressions",
        "Tepe Evleri fırsatına, müşterinin manzaraya bayıldığını ama mutfağı küçük bulduğunu yaz",
        "add_comment",
    ),
    (
        "bounced-cheque-tell-a-colleague",
        "Reyhan sözleşmesine çekin karşılıksız çıktığını yaz, Damla da haberdar olsun",
        "add_comment",
    ),
    # tasks
    (
        "what-a-team-closed-this-week",
        "Kiralama ekibi bu hafta hangi takipleri kapattı?",
        "list_tasks",
    ),
    (
        "outstanding-before-a-handover",
        "7A'yı alıcıya teslim etmeden önce üzerinde bekleyen ne var?",
        "list_tasks",
    ),
    (
        "keys-back-from-a-tenant",
        "Leyla'dan, 4C'deki kiracıdan anahtarları ayın 15'inden önce geri almasını iste",
        "create_task",
    ),
    (
        "building-insurance-renewal",
        "1 Mart'taki bina sigortası yenilemesini unutmayayım",
        "create_task",
    ),
    (
        "valuation-on-the-wrong-list",
        "Ekspertizi Sare'nin listesine koymuşum ama o Meltem'in işi",
        "update_task",
    ),
    (
        "gate-code-on-a-to-do",
        "'Denetçiyle buluş' işime kapı şifresi 4471'i ekle",
        "update_task",
    ),
    (
        "buyer-went-elsewhere",
        "Nebil Bey başka yerden aldı, onunla takip araması artık anlamsız; kaldır",
        "delete_task",
    ),
    ("accidental-to-do", "Yanlışlıkla açtığım 'asdf' işini sil", "delete_task"),
    # catalog
    (
        "sales-or-leasing-template",
        "Satış şablonuyla Kiralama şablonu arasındaki fark ne?",
        "browse_catalog",
    ),
    (
        "office-space-starting-point",
        "Ofis kiralamaya başlıyoruz. Kütüphanenizde bunun için kullanabileceğimiz bir şey var mı?",
        "browse_catalog",
    ),
    (
        "the-one-with-work-orders",
        "Tamam, mülk bakım şablonunu ekle, iş emirleri olanı",
        "install_template",
    ),
    (
        "empty-branch-workspace",
        "Ankara şubesinin çalışma alanı bomboş; kütüphanedeki standart satış kurulumunu oraya yap",
        "install_template",
    ),
    # meta
    ("who-covers-a-city", "Antalya'ya kim bakıyor?", "list_members"),
    (
        "someone-from-finance-to-tag",
        "Burada etiketleyebileceğim finanstan biri var mı?",
        "list_members",
    ),
    (
        "prices-raised-in-the-wrong-building",
        "Dur, fiyatları yanlış binada artırdın. Az önce yaptığını iptal et",
        "undo_last_change",
    ),
    (
        "renamed-on-the-wrong-object",
        "Hayır, adını fırsatlarda değiştir demiştim, kişilerde değil; kişileri eski haline getir",
        "undo_last_change",
    ),
    # several tools
    (
        "new-building-and-its-units",
        "Yeni bina Safve Rezidans'ı ekle, sonra müteahhidin tablosundaki 120 dairesini içeri al",
        "create_record",
        "import_records",
    ),
    (
        "archive-then-purge-expired-listings",
        "2022'den kalan süresi dolmuş ilanları arşiv için dosyaya indir, sonra hepsini sistemden "
        "sil",
        "export_records",
        "bulk_delete_records",
    ),
    (
        "note-and-hand-over-a-task",
        "Cazibe fırsatına müşterinin seyahatte olduğunu not düş, onu arama görevimi de Hande'ye "
        "devret",
        "add_comment",
        "update_task",
    ),
    (
        "late-tenants-count-and-list",
        "Kirası geciken kaç kiracı var? Listelerini de Excel olarak gönder",
        "count_records",
        "export_records",
    ),
    (
        "sea-view-flag-and-fill-it",
        "Dairelere evet/hayır bir 'Deniz manzarası' alanı ekle, Marina Kulesi'nde 10. kat ve "
        "üstündeki her dairede işaretle",
        "add_field",
        "bulk_update_records",
    ),
)
