"""The second fresh held-back set, Turkish, part 1 of 2: records, objects, fields and
relations.

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
        "Rıza Şahin, 0532 222 33 44, mayıstan itibaren Bahçeşehir'deki dubleksi kiralıyor; "
        "rehberde henüz yok",
        "create_record",
    ),
    (
        "co-broker-firm-signs-up",
        "Mavi Anahtar Emlak'ı iş ortağı firma olarak ekle, Zekeriyaköy villalarını bizimle "
        "birlikte pazarlayacaklar",
        "create_record",
    ),
    (
        "tenant-switched-numbers",
        "Hande Kaya numarasını değiştirmiş, yeni cebi 0553 987 12 00",
        "update_record",
    ),
    (
        "rent-cut-on-one-flat",
        "1507 numaralı dairenin kirasını 62 bine çek; kattaki diğerleri aynı kalsın",
        "update_record",
    ),
    (
        "plot-listed-by-mistake",
        "Silivri'deki arsa hiç bizim portföyümüzde değildi, ilan yanlışlıkla girilmiş. Kaldır",
        "delete_record",
    ),
    (
        "one-lead-of-a-family",
        "Sadece Baran Koç'un aday kaydını sil, ailesinin diğer talepleri dursun",
        "delete_record",
    ),
    (
        "stale-viewing-stage-deals",
        "Geçen yıldan beri 'Yer gösterimi' aşamasında bekleyen bütün fırsatları kaybedildi yap",
        "bulk_update_records",
    ),
    (
        "wrong-area-on-a-tower",
        "Güneş Kuleleri'ndeki tüm dairelerde semt Ataşehir yazıyor ama orası Kozyatağı. Hepsini "
        "düzelt",
        "bulk_update_records",
    ),
    (
        "open-day-signups-bounced",
        "2021 açık ev günü kayıtlarının e-postaları hep geri dönüyor; o adayların hepsini sil",
        "bulk_delete_records",
    ),
    (
        "zero-phone-leads",
        "Telefonu sadece sıfırlardan oluşan ne kadar aday varsa uçur",
        "bulk_delete_records",
    ),
    (
        "old-agency-owner-list",
        "Eski ofis programımızdan mal sahipleri listesi xlsx olarak burada, hepsini içeri al",
        "import_records",
    ),
    (
        "municipality-broker-registry",
        "Belediyenin yetkili emlakçı listesini ekledim; bizde olmayanları ekle",
        "import_records",
    ),
    (
        "auditor-wants-signed-leases",
        "Denetçi 2025'te imzalanan tüm kira sözleşmelerini perşembeye kadar tablo halinde istiyor",
        "export_records",
    ),
    (
        "buyers-csv-for-sms-campaign",
        "Pazarlama SMS kampanyası yapacak, Çamlıca alıcılarını CSV olarak çıkar",
        "export_records",
    ),
    (
        "instagram-leads-last-month",
        "Geçen ay Instagram reklamlarından kaç aday geldi?",
        "count_records",
    ),
    (
        "top-agent-by-value",
        "Üçüncü çeyrekte satış tutarına göre en çok kapatan danışman kim?",
        "count_records",
    ),
    (
        "company-with-contracts-removed",
        "Sabah sildiğim Demirtaş Ticaret'e bütün sözleşmelerimiz bağlıydı. Aynen eskisi gibi "
        "geri lazım",
        "restore_record",
    ),
    (
        "trashed-the-wrong-unit",
        "Eyvah, 806 yerine 808'i çöpe attım. 808 geri gelebilir mi?",
        "restore_record",
    ),
    (
        "engineer-with-three-contacts",
        "Mühendis Volkan Aydın için her telefonuna ayrı kişi açılmış, üç tane; tek kayıt olsun",
        "merge_records",
    ),
    (
        "import-made-a-second-building",
        "İçe aktarma ikinci bir Gün Batımı Villaları binası oluşturmuş; asıl olanla birleştir",
        "merge_records",
    ),
    (
        "deal-moved-back-to-negotiation",
        "Dün Nilüfer satışını pazarlık aşamasına kim geri aldı?",
        "record_history",
    ),
    (
        "rent-at-signing",
        "Kiracı imzaladığında kiranın 48 bin olduğunu söylüyor. Sözleşmede o zaman ne yazıyordu?",
        "record_history",
    ),
    # objects
    (
        "service-charge-invoices",
        "Mal sahiplerine aidat faturası kesmeye başlıyoruz, her faturayı ayrı bir kayıt olarak "
        "tutmamız lazım",
        "create_object",
    ),
    (
        "key-sets-who-holds-which",
        "Anahtar takımlarını ayrı bir şey olarak takip edebilir miyiz, hangi takım kimde?",
        "create_object",
    ),
    (
        "buildings-default-icon",
        "Binalar bölümünde hâlâ varsayılan gri simge var, bina simgesi koy",
        "update_object",
    ),
    (
        "deals-become-opportunities",
        "Suudi açılışı için sistemin her yerinde 'Satışlar' yerine 'Fırsatlar' yazsın",
        "update_object",
    ),
    (
        "out-of-short-stays",
        "Günlük kiralama işini tamamen bıraktık. Rezervasyonlar kayıt türü içindekilerle "
        "birlikte gidebilir",
        "delete_object",
    ),
    (
        "parking-permits-pilot-over",
        "Otopark İzinleri nesnesi tek bina için denemeydi; çalışma alanından tamamen kaldır",
        "delete_object",
    ),
    # fields
    (
        "ejari-number-on-leases",
        "Kira sözleşmelerinde noter onay numarasını yazacak bir yer olmalı",
        "add_field",
    ),
    (
        "preferred-contact-language",
        "Her alıcının hangi dilde iletişim kurmak istediğini de tutalım",
        "add_field",
    ),
    (
        "service-charge-hint",
        "'Aidat' alanının altına metrekare başına aylık olduğunu anlatan bir açıklama koy",
        "update_field",
    ),
    (
        "new-units-start-available",
        "Yeni eklenen daireler, biri başka bir şey seçmedikçe 'Müsait' olarak başlasın",
        "update_field",
    ),
    (
        "size-and-area-twice",
        "Dairelerde hem “Büyüklük” hem “Alan m²” var, ikisi aynı şey; “Büyüklük” tamamen kalksın",
        "delete_field",
    ),
    (
        "pet-policy-column-unused",
        "Sözleşmelerdeki 'Evcil hayvan izni' alanını kimse kullanmadı. İçindekilerle birlikte sil",
        "delete_field",
    ),
    (
        "preferred-area-one-choice",
        "Alıcı birkaç semt isteyebiliyor ama 'Tercih edilen semt' tek seçime izin veriyor",
        "change_field_type",
    ),
    (
        "deposit-without-currency",
        "Depozitolar para birimi olmadan çıplak sayı olarak görünüyor; o alanı para tutarına çevir",
        "change_field_type",
    ),
    (
        "hotel-apartment-type",
        "Mülk tipi listesine 'Rezidans daire' ekle",
        "manage_field_options",
    ),
    (
        "negotiation-becomes-offer-made",
        "Satış hunisindeki 'Pazarlık' aşamasının adı 'Teklif verildi' olsun",
        "manage_field_options",
    ),
    # relations
    (
        "maintenance-to-tenant-or-unit",
        "Arıza talebi kiracıya bağlanabiliyor mu, yoksa sadece daireye mi?",
        "list_relations",
    ),
    (
        "map-for-a-new-admin",
        "Pazar günü yeni bir yönetici başlıyor; nesnelerimizin birbirine nasıl bağlandığını "
        "özetler misin?",
        "list_relations",
    ),
    (
        "building-manager-from-contacts",
        "Her binada site yöneticisini kişiler listesinden seçebilmek istiyorum",
        "create_relation",
    ),
    (
        "vendors-handle-many-requests",
        "Tedarikçilerle arıza talepleri arasında bağ kurulmalı, bir tedarikçi birçok talebe "
        "bakıyor",
        "create_relation",
    ),
    (
        "deals-to-brokers-design-mistake",
        "Satışları dışarıdaki emlakçılara bağlamak tasarım hatasıydı; o ilişkiyi veri modelinden "
        "kaldır",
        "delete_relation",
    ),
    (
        "buildings-no-longer-tied-to-developers",
        "Binaların artık Müteahhitler'le bağı olmasın, o bağlantıyı alanlarıyla beraber kaldır",
        "delete_relation",
    ),
    (
        "lift-repair-vendor",
        "C Blok asansör tamiri talebine Fırat Teknik Servis'i bağla",
        "link_records",
    ),
    (
        "buyer-already-a-contact",
        "D-778 satışındaki alıcı Bilal, zaten kişilerde kayıtlı; ikisini ilişkilendir",
        "link_records",
    ),
    (
        "deal-no-longer-with-developer",
        "Nehir Evleri satışının Ufuk İnşaat'la ilgisi kalmadı; ikisini ayır ama ikisi de dursun",
        "unlink_records",
    ),
    (
        "left-his-company",
        "Serkan, Hilal Holding'den ayrılıp kendi işini kurdu; kişi kaydında artık onlar görünmesin",
        "unlink_records",
    ),
)
