"""The third fresh held-back set, Turkish, part 2 of 2:
views, comments, tasks, the catalog, members, undo, and the two-tool scenarios.

One row per case, (scenario, prompt, tool, ...).

Written on 2026-12-06 (session 47, the third set) before anything was measured on it
(``evals.data.fresh3`` says what the set is for and how it was written). Never edit a row
because of a figure measured on it.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # views
    (
        "warehouse-saved-lists",
        "Depolara ait hangi listeler var?",
        "list_views",
    ),
    (
        "renewals-list-settings",
        "Zeynep'in 'Bu çeyrek yenilenecekler' listesi hangi filtre ve sütunlarla çalışıyor?",
        "get_view",
    ),
    (
        "retail-prospects-board",
        "Mağaza adaylarını kiralama aşamasına göre sütunlarda gösteren bir pano istiyorum, "
        "sadece AVM ekibi için",
        "create_view",
    ),
    (
        "deposit-column-on-residents",
        "Yurtta kalanlar listesine depozito sütununu ekle, oda numarasına göre sırala",
        "update_view",
    ),
    (
        "last-years-bazaar-board",
        "Geçen yılın 'Ramazan çarşısı tezgahları' panosu kalabalık yapıyor, kaldır onu",
        "delete_view",
    ),
    (
        "calendars-for-halls",
        "Salonlar için kurulu takvim var mı?",
        "list_views",
    ),
    (
        "what-a-board-groups-on",
        "'Salona göre rezervasyonlar' panosu hangi alana göre gruplanıyor?",
        "get_view",
    ),
    (
        "hall-bookings-calendar",
        "Salon rezervasyonlarını etkinlik tarihine göre gösteren bir takvim yap",
        "create_view",
    ),
    (
        "specialty-instead-of-phone",
        "'Klinik talepleri' tablosunda telefon sütununu gizle, yerine uzmanlık alanını göster",
        "update_view",
    ),
    (
        "empty-test-calendar",
        "Salonlarda açtığım boş 'deneme takvimi'ni kaldır",
        "delete_view",
    ),
    # comments and tasks
    (
        "notes-on-a-logistics-deal",
        "Atlas Lojistik depo fırsatının altına ben yokken ne notlar düşülmüş?",
        "list_comments",
    ),
    (
        "parents-called-about-a-fee",
        "Ömer Faruk'un kaydına ailesinin gecikme cezası için aradığını yaz",
        "add_comment",
    ),
    (
        "a-colleagues-week",
        "Burak'ın bu hafta nesi var?",
        "list_tasks",
    ),
    (
        "fire-doors-inspection",
        "Cem'e haftaya salı B blokta yangın kapılarını kontrol etmesini hatırlat",
        "create_task",
    ),
    (
        "inspection-slips",
        "Yangın kapısı kontrolü 28'ine kaldı, usta hastalanmış",
        "update_task",
    ),
    (
        "welcome-packs-not-needed",
        "'Hoş geldin paketi sipariş et' işini sil, bu yıl paketleri üniversite veriyor",
        "delete_task",
    ),
    (
        "anything-new-on-a-booking",
        "Perşembeden beri Demir rezervasyonuna kimse bir şey yazdı mı?",
        "list_comments",
    ),
    (
        "keys-before-ramadan",
        "3 numaralı muayenehane fırsatına Dr. Selin'in anahtarları bayramdan önce istediğini "
        "yaz, Kerem'i de etiketle",
        "add_comment",
    ),
    (
        "forgotten-last-week",
        "Geçen hafta yapmayı unuttuğum bir şey var mı?",
        "list_tasks",
    ),
    (
        "sound-check-before-a-wedding",
        "Kaya düğününden iki gün önce Serkan salonun ses sistemini kontrol etsin",
        "create_task",
    ),
    (
        "caterer-already-called",
        "İkramcıyı aradım zaten, o işi kapat",
        "update_task",
    ),
    (
        "curtains-quote-pointless",
        "Salon yenileniyor, 'yeni perdeler için teklif' görevinin anlamı kalmadı; sil",
        "delete_task",
    ),
    # catalog, members, undo
    (
        "student-housing-starter",
        "Öğrenci yurdu için bakabileceğimiz hazır bir kurulum var mı?",
        "browse_catalog",
    ),
    (
        "self-storage-starter-chosen",
        "Az önce baktığımız self storage şablonunda karar kıldık, kurulumu yap",
        "install_template",
    ),
    (
        "who-to-mention-on-the-cinema-lease",
        "Sinema sözleşmesi için AVM ekibinden kimi etiketleyebilirim?",
        "list_members",
    ),
    (
        "wrong-hall",
        "Yanlış binaymış, eski haline döndür",
        "undo_last_change",
    ),
    (
        "event-venue-template",
        "Etkinlik mekânları şablonu bize neler kazandırır?",
        "browse_catalog",
    ),
    (
        "clinic-leasing-one",
        "Demin gösterdiğin klinik kiralama şablonunu kur",
        "install_template",
    ),
    (
        "halls-team-emails",
        "Salon ekibindekilerin isimleri ve e-postaları lazım",
        "list_members",
    ),
    (
        "wrong-companys-rooms",
        "Eyvah, o değişiklik başka firmanın odalarına gitti; geri çevir",
        "undo_last_change",
    ),
    # two tools
    (
        "vacant-shops-count-and-list",
        "Doğu kanadında kaç mağaza boş? Onları kayıtlı bir liste olarak da tut",
        "count_records",
        "create_view",
    ),
    (
        "room-swap-done-and-noted",
        "C bloktaki oda değişimi tamamlandı, işi kapat ve Ayşe'nin kaydına yeni odasını not düş",
        "update_task",
        "add_comment",
    ),
    (
        "parking-bay-on-memberships",
        "Üyeliklere otopark yeri alanı lazım; Stüdyo Dokuz'unki P-14",
        "add_field",
        "update_record",
    ),
    (
        "lease-back-and-who-deleted-it",
        "Liman Nakliyat'ın kira sözleşmesi kaybolmuş; geri getir, kimin sildiğini de söyle",
        "restore_record",
        "record_history",
    ),
    (
        "tours-for-prospective-students",
        "Aday öğrencilerin yurt gezilerini ayrı tutalım, her gezi gösterilen odalara bağlı olsun",
        "create_object",
        "create_relation",
    ),
    (
        "cinema-lease-open-tasks",
        "Sinema sözleşmesinde açık ne iş kaldı? Tabela olanı silebilirsin",
        "list_tasks",
        "delete_task",
    ),
)
