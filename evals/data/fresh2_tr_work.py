"""The second fresh held-back set, Turkish, part 2 of 2: views, comments, tasks, the
template catalog, the workspace, and the scenarios that need two tools.

One row per case, (scenario, prompt, tool, ...).

Written on 2026-12-06 (session 47) before anything was measured on it (``evals.data.fresh2``
says what the set is for and how it was written). Never edit a row because of a figure measured
on it.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # views
    (
        "calendar-for-viewings-exists",
        "Yer gösterimleri için zaten bir takvim var mı, yoksa ben mi oluşturayım?",
        "list_views",
    ),
    (
        "cant-find-mariams-board",
        "Satışlar'da hangi panolar var? Merve'ninkini bulamıyorum",
        "list_views",
    ),
    (
        "top-buyers-missing-faisal",
        "Fatih 'En iyi alıcılar' listesinde çıkmıyor; o liste neye göre süzüyor?",
        "get_view",
    ),
    (
        "q4-board-mine-or-everyones",
        "'4. çeyrek kapanışlar' panosu sadece benim satışlarımı mı gösteriyor, herkesinkini mi?",
        "get_view",
    ),
    (
        "lease-end-calendar",
        "Sözleşme bitiş tarihlerine göre bir takvim hazırla, yenilemeleri ona bakarak "
        "planlayacağım",
        "create_view",
    ),
    (
        "jeddah-web-leads-table",
        "Web sitesinden gelen, bütçesi 10 milyonun üstündeki İzmir adaylarını kayıtlı bir tablo "
        "yap, her gün bakacağım",
        "create_view",
    ),
    (
        "all-tenants-columns",
        "'Tüm kiracılar'da Notlar (eski) sütununu gizle, yerine telefon numarasını göster",
        "update_view",
    ),
    (
        "vacant-flats-by-floor",
        "'Boş daireler' tablosunu kata göre sırala, en üst kat başta",
        "update_view",
    ),
    (
        "two-renewals-boards",
        "Şimdi iki tane 'Yenilemeler' panosu var, benim açtığımı sil",
        "delete_view",
    ),
    (
        "eid-offers-board",
        "'Bayram kampanyası' panosunu kaldır",
        "delete_view",
    ),
    # comments
    (
        "note-after-showing",
        "Selim 604'ü gösterdikten sonra bir şey yazmış mı?",
        "list_comments",
    ),
    (
        "word-from-legal",
        "Körfez sözleşmesine hukuktan bir şey gelmiş mi?",
        "list_comments",
    ),
    (
        "parking-swap-for-rami",
        "Sahil kira sözleşmesine kiracının otopark yerini değiştirmek istediğini yaz, Rıdvan bir "
        "baksın",
        "add_comment",
    ),
    (
        "calls-after-eight",
        "Fevzi Bey'in aday kaydına not düş: akşam 8'den sonra aranmayı tercih ediyor",
        "add_comment",
    ),
    # tasks
    (
        "due-before-the-weekend",
        "Hafta sonundan önce neyim var?",
        "list_tasks",
    ),
    (
        "overdue-handover-to-dos",
        "Nur Kuleleri teslimiyle ilgili hangi işler gecikti?",
        "list_tasks",
    ),
    (
        "snagging-report-for-ziad",
        "Zeki eksik-kusur raporunu çarşambaya kadar mal sahibine göndersin",
        "create_task",
    ),
    (
        "check-renewal-next-month",
        "Gelecek ay Hamdi ailesinin sözleşmeyi yenileyip yenilemediğine bakmamı hatırlat",
        "create_task",
    ),
    (
        "inspection-pushed-back",
        "“5 no'lu villayı kontrol et” görevimi önümüzdeki salıya at, ev sahibi şehir dışında",
        "update_task",
    ),
    (
        "keys-handed-over",
        "Anahtarlar bu sabah teslim edildi, o iş bitti",
        "update_task",
    ),
    (
        "wrong-dana-to-do",
        "“Deniz'i geri ara” görevini yanlış Deniz için açmışım, sil onu",
        "delete_task",
    ),
    (
        "open-house-cancelled",
        "Açık ev iptal oldu; broşürleri bastırma hatırlatmamı kaldır",
        "delete_task",
    ),
    # catalog
    (
        "owners-association-template",
        "Site yönetimi için bir şablon var mı? Neler kuruyor?",
        "browse_catalog",
    ),
    (
        "small-agency-starting",
        "Beş kişilik, yeni açılmış bir ofisiz; hangi hazır kurulumlarla başlayabiliriz?",
        "browse_catalog",
    ),
    (
        "go-with-short-term-rentals",
        "Tamam, kısa dönem kiralama olanla devam edelim, kur",
        "install_template",
    ),
    (
        "apply-owners-association",
        "Kütüphanedeki site yönetimi şablonunu kullanacağız. Şimdi uygula",
        "install_template",
    ),
    # meta
    (
        "khobar-branch-colleagues",
        "Bursa şubesinde hangi arkadaşlar var?",
        "list_members",
    ),
    (
        "is-lina-still-here",
        "Ece hâlâ çalışma alanında mı?",
        "list_members",
    ),
    (
        "not-what-i-asked",
        "Öyle demedim, geri al",
        "undo_last_change",
    ),
    (
        "only-floor-three-sold",
        "D Blok'un tamamını satıldı yaptın; sadece 3. kattı. Geri çevir",
        "undo_last_change",
    ),
    # two tools
    (
        "merge-and-say-why",
        "İki Mansur İnşaat firma kaydını birleştir ve kalan kayda neden birleştirdiğimizi not düş",
        "merge_records",
        "add_comment",
    ),
    (
        "replace-leads-board",
        "Eski '2025 adaylar' panosunu kaldırıp yerine kaynağa göre gruplanmış yenisini aç",
        "create_view",
        "delete_view",
    ),
    (
        "unsold-count-and-reminder",
        "E Blok'ta kaç daire hâlâ satılmadı? Pazartesi müteahhide bildirmemi de hatırlat",
        "count_records",
        "create_task",
    ),
    (
        "wrong-unit-on-lease",
        "L-880 sözleşmesine yanlış daire bağlanmış: 402'yi çıkar, 420'yi bağla",
        "unlink_records",
        "link_records",
    ),
    (
        "commission-set-back",
        "Biri Kordon satışındaki komisyonu değiştirmiş; eski rakamı bul ve geri yaz",
        "record_history",
        "update_record",
    ),
    (
        "leasing-template-if-payments",
        "Kiralama şablonunda neler olduğuna bak, ödemeler varsa kur",
        "browse_catalog",
        "install_template",
    ),
)
