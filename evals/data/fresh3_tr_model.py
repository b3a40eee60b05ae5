"""The third fresh held-back set, Turkish, part 1 of 2:
records, objects, fields and relations.

One row per case, (scenario, prompt, tool, ...).

Written on 2026-12-06 (session 47, the third set) before anything was measured on it
(``evals.data.fresh3`` says what the set is for and how it was written). Never edit a row
because of a figure measured on it.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # records
    (
        "student-paid-a-room-deposit",
        "Hemşirelik birinci sınıftan Elif Doğan 114 numaralı odanın kaporasını yatırdı, onu "
        "yurtta kalan olarak ekle",
        "create_record",
    ),
    (
        "kiosk-fit-out-deadline-moved",
        "Yemek katındaki dondurma standının dekorasyon bitiş tarihi 20 Nisan'a uzadı",
        "update_record",
    ),
    (
        "enquiry-under-the-wrong-client",
        "W-12 deposu için açtığım talebi yanlış müşteriye girmişim, sil onu; doğru müşteride "
        "yeniden açacağım",
        "delete_record",
    ),
    (
        "summer-term-residents-left",
        "Yaz okulu cuma bitti; yaz dönemi öğrencilerinin hepsini çıkış yaptı olarak güncelle",
        "bulk_update_records",
    ),
    (
        "trial-week-desk-bookings",
        "Ücretsiz deneme haftasından kalan, üyeliğe dönmemiş bütün masa rezervasyonlarını temizle",
        "bulk_delete_records",
    ),
    (
        "retail-prospects-from-a-mall-agent",
        "AVM'nin kiralama danışmanı 40 mağaza adayını Excel'de yolladı, sisteme aktar",
        "import_records",
    ),
    (
        "storage-renters-for-the-insurer",
        "Sigorta şirketi pazartesiye kadar depolama ünitesi kiracılarının birim büyüklükleriyle "
        "listesini dosya olarak istiyor",
        "export_records",
    ),
    (
        "empty-beds-per-hall",
        "Her yurt binasında kaç boş yatağımız var?",
        "count_records",
    ),
    (
        "paused-membership-deleted",
        "Atölye Kare'nin üyeliğini ayrıldılar sanıp sildim, meğer sadece dondurmuşlar. Geri getir",
        "restore_record",
    ),
    (
        "bakery-entered-twice",
        "Simit Sarayı iki kere görünüyor, biri AVM portalından biri benim girdiğim; tek kayıt "
        "olsun",
        "merge_records",
    ),
    (
        "ceiling-height-disagrees",
        "W-7 deposunda net yükseklik 8 m yazıyor, broşürde 10'du. Bunu kim değiştirdi?",
        "record_history",
    ),
    (
        "dentist-wants-a-clinic-suite",
        "Dr. Selin Aksoy tıp merkezindeki 3 numaralı muayenehaneyi diş kliniği için istiyor, ona"
        " bir fırsat aç",
        "create_record",
    ),
    (
        "wedding-grew",
        "Kaya ailesinin düğünü 350 kişiye çıktı, salon rezervasyonunda hâlâ 250 yazıyor",
        "update_record",
    ),
    (
        "engagement-party-called-off",
        "9 Mayıs'taki nişan iptal oldu; sadece o rezervasyonu sil, başka bir şeye dokunma",
        "delete_record",
    ),
    (
        "staff-housing-contract-renewed",
        "Yıldız İnşaat bir yıl daha uzattı, işçilerinin kaldığı bütün odaların bitiş tarihini 31"
        " Aralık 2027 yap",
        "bulk_update_records",
    ),
    (
        "old-facebook-page-requests",
        "Eski Facebook sayfasından gelen atölye görme taleplerinin hepsini sil",
        "bulk_delete_records",
    ),
    (
        "worker-roster-csv",
        "Yıldız İnşaat'ın İK'sı işçi listesini CSV olarak gönderdi; listedeki her isim için bir "
        "yurt sakini oluştur",
        "import_records",
    ),
    (
        "hall-bookings-to-print",
        "Bu ayın salon rezervasyonlarını Excel olarak ver, mutfak için çıktı alacağım",
        "export_records",
    ),
    (
        "guests-per-wedding",
        "Bu sezon düğün rezervasyonlarında ortalama kaç davetli var?",
        "count_records",
    ),
    (
        "intern-cleared-a-contact",
        "Stajyer dün Dr. Sami'nin kişi kaydını silmiş, hâlâ lazım; kurtar onu",
        "restore_record",
    ),
    (
        "two-of-one-dentist",
        "İki tane Dr. Selin Aksoy oldu, biri klinik mailiyle biri gmail'le; bir tanesi kalsın",
        "merge_records",
    ),
    (
        "deposit-dropped-overnight",
        "Büyük Salon rezervasyonunun kaporası bir gecede 2.000'e düşmüş. Ne zaman, kim yaptı?",
        "record_history",
    ),
    # objects and fields
    (
        "atrium-pop-up-bookings",
        "Orta avluyu geçici etkinliklere kiralamaya başladık, her rezervasyon ayrı bir kayıt "
        "türünde tutulsun",
        "create_object",
    ),
    (
        "warehouses-cover-cold-stores",
        "Depolar bölümünün açıklamasına soğuk hava depolarını da kapsadığını yaz, yeni gelenler "
        "bilsin",
        "update_object",
    ),
    (
        "lockers-taken-out",
        "Ortak çalışma katındaki dolaplar söküldü; Dolaplar bölümü içindeki her şeyle birlikte "
        "kalksın",
        "delete_object",
    ),
    (
        "student-allergies",
        "Yurt mutfağı her öğrencinin gıda alerjisini bilmek istiyor, profillerine bunun için yer"
        " aç",
        "add_field",
    ),
    (
        "loading-bays-must-be-filled",
        "Yükleme rampası sayısı girilmeden kimse depo sözleşmesini kaydedemesin",
        "update_field",
    ),
    (
        "smoking-room-checkbox",
        "Odalardaki 'Sigara içilebilir' kutucuğu kalksın, bina yıllardır tamamen dumansız",
        "delete_field",
    ),
    (
        "storage-size-in-square-metres",
        "Depo ünitesi boyutu sadece Küçük/Orta/Büyük seçiliyor, orada tam metrekare yazabilmem "
        "lazım",
        "change_field_type",
    ),
    (
        "fit-out-leasing-step",
        "Mağaza kiralama aşamalarına 'İmzalandı' ile 'Açıldı' arasına 'Dekorasyon' ekle",
        "manage_field_options",
    ),
    (
        "machines-lent-to-workshops",
        "Atölyelere ödünç makine veriyoruz; bu makineleri kendi kayıtları olan ayrı bir şey "
        "olarak tutmak istiyorum",
        "create_object",
    ),
    (
        "one-clinic-suite-label",
        "Her kaydın başında 'Muayenehaneler' yazıyor, tek kayıtta 'Muayenehane' yazmalı",
        "update_object",
    ),
    (
        "catering-outsourced",
        "İkramı dışarıya verdik; salonlar için kurduğumuz Menüler nesnesi kayıtlarıyla birlikte "
        "gidebilir",
        "delete_object",
    ),
    (
        "x-ray-room-in-a-suite",
        "Muayenehanelerde her birinin kendi röntgen odası olup olmadığını da tutalım",
        "add_field",
    ),
    (
        "pax-means-guests",
        "Salon rezervasyonlarındaki 'Pax' adını 'Davetli sayısı' yap, mutfak dışında kimse "
        "anlamıyor",
        "update_field",
    ),
    (
        "shift-pattern-field",
        "İşçi odalarından 'Vardiya düzeni' alanını kaldır; artık İK takip ediyor, biz hiç "
        "güncellemiyoruz",
        "delete_field",
    ),
    (
        "machine-power-as-text",
        "Makine gücü '5kW', '7 kw' diye yazı olarak giriliyor; filtreleyebileceğim bir sayı olsun",
        "change_field_type",
    ),
    (
        "ladies-and-mens-sections",
        "Salon bölümü açılır listesinde 'Kadınlar bölümü' ve 'Erkekler bölümü' ayrı seçenekler "
        "olsun",
        "manage_field_options",
    ),
    # relations
    (
        "what-points-at-warehouses",
        "Raporlara başlamadan önce: Depolar hangi nesnelerle, nasıl bağlı?",
        "list_relations",
    ),
    (
        "guarantors-for-students",
        "Her öğrencinin kişilerden seçilen bir kefili olsun; bir kefil birden fazla öğrenciye "
        "kefil olabilir",
        "create_relation",
    ),
    (
        "shops-no-longer-in-zones",
        "Mağazaları artık AVM bölgelerine ayırmıyoruz, mağazalarla Bölgeler arasındaki bağı "
        "tamamen kaldır",
        "delete_relation",
    ),
    (
        "kiosk-gets-its-tenant",
        "K3 standını artık Ustam Köfte işletiyor, onları standa bağla",
        "link_records",
    ),
    (
        "member-went-remote",
        "14 numaralı masa artık Emre'nin değil, tamamen uzaktan çalışıyor; üyeliği dursun ama",
        "unlink_records",
    ),
    (
        "staff-room-tied-to-whom",
        "İşçi odası işveren firmaya mı bağlı, yoksa her işçiye ayrı ayrı mı?",
        "list_relations",
    ),
    (
        "caterer-per-booking",
        "Her salon rezervasyonu ikram firmasını tedarikçi şirketlerden seçebilsin; bir firma "
        "birçok rezervasyona bakar",
        "create_relation",
    ),
    (
        "insurance-panels-on-suites",
        "Muayenehanelerin Anlaşmalı sigortalar ile bağına artık gerek yok, o ilişkiyi "
        "alanlarıyla birlikte kaldır",
        "delete_relation",
    ),
    (
        "booking-under-a-family",
        "14 Haziran Büyük Salon rezervasyonunu Demir ailesinin kişi kaydına bağla",
        "link_records",
    ),
    (
        "welding-machine-returned",
        "5 numaralı atölye kaynak makinesini iade etti, artık onlarda görünmesin",
        "unlink_records",
    ),
)
