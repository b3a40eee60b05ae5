"""Turkish eval cases: one row per case, (scenario, prompt, tool, ...).

The scenario names the user need a case shares with its translations; ``evals.data.cases`` records
each scenario's half and builds the cases.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # records
    (
        "new-lead-with-phone",
        "Yeni bir aday ekle: Mehmet Yılmaz, telefonu 0532 111 22 33, 3+1 daire arıyor",
        "create_record",
    ),
    ("record-status-or-stage", "Ayşe Hanım'ın fırsatını 'görüşme' aşamasına taşı", "update_record"),
    (
        "record-added-by-mistake",
        "Kadıköy'deki 12 numaralı daireyi sil, yanlışlıkla açılmış",
        "delete_record",
    ),
    (
        "reassign-a-leavers-records",
        "Can şirketten ayrılıyor, onun tüm açık fırsatlarını Zeynep'e devret",
        "bulk_update_records",
    ),
    (
        "purge-test-contacts",
        "Deneme için girdiğimiz bütün sahte kişileri topluca sil",
        "bulk_delete_records",
    ),
    (
        "import-a-spreadsheet",
        "Elimde 150 satırlık bir Excel var, içindeki kiracıları sisteme aktar",
        "import_records",
    ),
    (
        "export-leases-ending",
        "Bu ay biten kira sözleşmelerini Excel olarak indirmek istiyorum",
        "export_records",
    ),
    (
        "count-deals-or-leads-in-a-period",
        "Bu hafta kaç yeni potansiyel müşteri geldi?",
        "count_records",
    ),
    (
        "restore-deleted-record",
        "Dün yanlışlıkla sildiğim Demir İnşaat kaydını geri getirir misin?",
        "restore_record",
    ),
    (
        "merge-duplicate-record",
        "Ali Kaya sistemde iki kere var, bu iki kaydı birleştir",
        "merge_records",
    ),
    (
        "who-changed-a-price",
        "B blok 5 numaralı dairenin fiyatını kim ne zaman değiştirmiş?",
        "record_history",
    ),
    # objects
    (
        "track-a-new-kind-of-record",
        "Bakım taleplerini ayrı bir kayıt türü olarak takip etmek istiyoruz",
        "create_object",
    ),
    ("rename-an-object", "'Fırsatlar' nesnesinin adını 'Satışlar' yap", "update_object"),
    (
        "delete-campaigns-object",
        "Kampanyalar nesnesini içindeki her şeyle birlikte tamamen kaldır",
        "delete_object",
    ),
    # fields
    (
        "add-a-field-to-units",
        "Dairelere balkon olup olmadığını tutacağımız bir alan ekle",
        "add_field",
    ),
    ("make-a-field-mandatory", "Kişi kaydında e-posta alanı zorunlu olsun", "update_field"),
    ("delete-the-fax-field", "Şirketlerdeki faks sütununu sil, kimse kullanmıyor", "delete_field"),
    (
        "field-has-the-wrong-type",
        "Metrekare alanı metin olarak açılmış, sayıya çevir",
        "change_field_type",
    ),
    (
        "add-a-dropdown-option",
        "Satış aşamalarına 'Kapora alındı' seçeneğini ekle",
        "manage_field_options",
    ),
    # relations
    (
        "how-objects-connect",
        "Daireler, bloklar ve sözleşmeler birbirine nasıl bağlı?",
        "list_relations",
    ),
    (
        "relate-two-objects",
        "Her daire bir bloğa ait olsun, bu iki nesne arasında ilişki kur",
        "create_relation",
    ),
    (
        "drop-a-relation",
        "Kişiler ile kampanyalar arasındaki ilişkiyi tamamen kaldır",
        "delete_relation",
    ),
    ("link-two-records", "Kiracı Elif Şahin'i 2024-57 numaralı sözleşmeye bağla", "link_records"),
    (
        "unlink-wrongly-linked-records",
        "D-8 dairesi yanlış bloğa bağlanmış, bağlantıyı kopar ama kayıtları silme",
        "unlink_records",
    ),
    # views
    ("which-views-exist", "Fırsatlar için hangi kayıtlı görünümlerimiz var?", "list_views"),
    ("what-a-view-filters", "'Sıcak müşteriler' görünümü hangi filtreleri kullanıyor?", "get_view"),
    (
        "kanban-of-deals-by-stage",
        "Fırsatları aşamaya göre gruplayan bir kanban panosu oluştur",
        "create_view",
    ),
    (
        "hide-a-column-and-sort-a-view",
        "'Portföyüm' görünümünde bütçe sütununu gizle, son görüşme tarihine göre sırala",
        "update_view",
    ),
    ("delete-an-old-view", "Eski 'Q1 satışlar' görünümünü kaldır", "delete_view"),
    # comments
    ("what-the-team-wrote", "Ekip Yıldız Rezidans fırsatı hakkında neler yazmış?", "list_comments"),
    (
        "note-on-a-client-record",
        "Hasan Bey'in kaydına deniz manzarası istediğine dair not düş, Selin'i de etiketle",
        "add_comment",
    ),
    # tasks
    ("my-tasks", "Bugün yapmam gereken işler neler?", "list_tasks"),
    ("remind-me-to-call", "Pazartesi saat 10'da Kerem Bey'i aramamı hatırlat", "create_task"),
    (
        "mark-a-task-done",
        "'Sözleşmeyi Murat'a gönder' görevini tamamlandı olarak işaretle",
        "update_task",
    ),
    (
        "delete-a-duplicate-task",
        "Villa gezisi için iki kere açılmış takip görevini sil",
        "delete_task",
    ),
    # catalog
    ("ready-made-templates", "Emlak yönetimi için hazır şablonlarınız var mı?", "browse_catalog"),
    ("install-a-template", "Kiralama şablonunu çalışma alanımıza kur", "install_template"),
    # meta
    ("who-is-on-a-team", "Satış ekibinde kimler var?", "list_members"),
    ("undo-a-wrong-change", "Bunu geri al, yanlış kaydı değiştirdin", "undo_last_change"),
    # several tools
    (
        "contracts-object-related-to-contacts",
        "Yeni bir 'Sözleşmeler' nesnesi oluştur ve kişilere bağla",
        "create_object",
        "create_relation",
    ),
    (
        "mark-sold-and-export",
        "Rezerve dairelerin hepsini satıldı yap ve listeyi Excel'e aktar",
        "bulk_update_records",
        "export_records",
    ),
    # written after the re-split, held back from the start: tools whose held-back cases their
    # description restates, or that had no held-back case in this language
    (
        "fix-a-misspelt-surname",
        "Selin Hanım'ın soyadı yanlış yazılmış, Aydın değil Aydemir olacak",
        "update_record",
    ),
    (
        "purge-a-dropped-buildings-units",
        "İnci Kulesi'nin yönetimini bıraktık, o binaya ait tüm daireleri sistemden sil",
        "bulk_delete_records",
    ),
    (
        "total-rent-collected",
        "Geçen yıl kiracılardan toplam ne kadar kira tahsil ettik?",
        "count_records",
    ),
    (
        "fold-an-imported-unit-into-its-copy",
        "A-7 dairesi hem içe aktarmadan hem elle girilmiş, ikisini tek dairede topla, fiyatı içe "
        "aktarılandan al",
        "merge_records",
    ),
    (
        "who-edited-a-disputed-record",
        "Burak, Güneş Sitesi fırsatında hiçbir şeyi değiştirmediğini söylüyor; kaydı kimlerin "
        "düzenlediğine bak",
        "record_history",
    ),
    (
        "describe-an-object-for-newcomers",
        "Binalar nesnesine, yeni gelenler içine ne girileceğini bilsin diye kısa bir açıklama yaz",
        "update_object",
    ),
    (
        "drop-a-field-we-may-not-keep",
        "Hukuk, kiracıların medeni halini tutamayacağımızı söyledi; o alanı içindeki verilerle "
        "birlikte kaldır",
        "delete_field",
    ),
    (
        "leading-zero-lost",
        "Mal sahiplerinin telefonlarının başındaki sıfır kayboluyor çünkü alan sayı tipinde; "
        "telefon alanına çevir",
        "change_field_type",
    ),
    (
        "reorder-and-recolour-a-dropdown",
        "Aday kaynağı açılır listesinde 'Instagram' en üstte olsun, rengi de mor olsun",
        "manage_field_options",
    ),
    (
        "can-a-unit-have-two-owners",
        "Bizim yapıda bir dairenin birden fazla sahibi olabilir mi, yoksa sahip bağlantısı tekli "
        "mi?",
        "list_relations",
    ),
    (
        "parking-bay-goes-with-a-flat",
        "P-14 otopark yeri artık 902 numaralı daireye ait, ikisini birbirine bağla",
        "link_records",
    ),
    (
        "vendor-contract-ended",
        "Bostan Temizlik'in C Blok sözleşmesi bitti, firmanın o blokla bağlantısını kes",
        "unlink_records",
    ),
    (
        "how-a-board-is-grouped",
        "'Boş daireler' panosu binaya göre mi gruplanmış, kata göre mi?",
        "get_view",
    ),
    (
        "saved-list-of-late-payers",
        "Kirası iki aydan fazla geciken kiracıları gösteren kayıtlı bir liste hazırla",
        "create_view",
    ),
    (
        "campaign-over-remove-its-board",
        "Ramazan kampanyası bitti, o kampanyanın aday panosunu kaldır",
        "delete_view",
    ),
    (
        "colleagues-open-tasks-before-leave",
        "Reyhan yarın izne çıkıyor, üzerinde hâlâ açık olan takipler neler?",
        "list_tasks",
    ),
    (
        "delegate-a-photo-shoot",
        "Deniz'e cuma gününe kadar 7 numaralı dairenin fotoğraflarını çekmesi için bir iş ver",
        "create_task",
    ),
    (
        "reopen-a-task-closed-too-early",
        "Müşteri aslında henüz imzalamamış, 'İmzalı sözleşmeyi al' görevini yeniden aç",
        "update_task",
    ),
    (
        "viewing-cancelled-drop-its-reminder",
        "Cuma günkü gösterim iptal oldu, anahtarları alma hatırlatmasını sil",
        "delete_task",
    ),
    (
        "prebuilt-for-holiday-rentals",
        "Günlük yazlık kiralama için hazır bir yapı var mı? Neler ekliyor?",
        "browse_catalog",
    ),
    (
        "install-the-pack-we-looked-at",
        "Dün baktığımız emlakçılık paketini çalışma alanımıza ekle",
        "install_template",
    ),
    ("who-has-admin-rights", "Burada kimlerin yönetici yetkisi var?", "list_members"),
    (
        "board-was-better-before-your-change",
        "Pano senin değişikliğinden önce daha iyiydi, az önceki haline döndür",
        "undo_last_change",
    ),
)
