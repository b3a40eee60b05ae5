"""The third fresh held-back set, Persian, part 2 of 2:
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
        "برای انبارها چه لیست‌هایی ذخیره شده؟",
        "list_views",
    ),
    (
        "renewals-list-settings",
        "لیست «تمدیدی‌های این فصل» مریم با چه فیلتر و ستون‌هایی ساخته شده؟",
        "get_view",
    ),
    (
        "retail-prospects-board",
        "یه برد از متقاضی‌های مغازه می‌خوام که ستون‌هاش مرحله اجاره باشه، فقط برای تیم پاساژ",
        "create_view",
    ),
    (
        "deposit-column-on-residents",
        "ستون ودیعه رو به لیست ساکنین اضافه کن و بر اساس شماره اتاق مرتبش کن",
        "update_view",
    ),
    (
        "last-years-bazaar-board",
        "برد «غرفه‌های بازارچه نوروزی» پارسال فقط شلوغ کرده، برش دار",
        "delete_view",
    ),
    (
        "calendars-for-halls",
        "برای تالارها تقویمی ساخته شده؟",
        "list_views",
    ),
    (
        "what-a-board-groups-on",
        "برد «رزروها بر اساس تالار» روی کدوم فیلد گروه‌بندی شده؟",
        "get_view",
    ),
    (
        "hall-bookings-calendar",
        "یه تقویم از رزروهای تالار بر اساس تاریخ مراسم برام بساز",
        "create_view",
    ),
    (
        "specialty-instead-of-phone",
        "تو جدول «استعلام‌های مطب» ستون تلفن رو مخفی کن و جاش تخصص رو نشون بده",
        "update_view",
    ),
    (
        "empty-test-calendar",
        "«تقویم آزمایشی» خالی خودم تو تالارها رو بردار",
        "delete_view",
    ),
    # comments and tasks
    (
        "notes-on-a-logistics-deal",
        "تا من نبودم زیر معامله انبار شرکت ترابر پارس چه یادداشت‌هایی گذاشتن؟",
        "list_comments",
    ),
    (
        "parents-called-about-a-fee",
        "تو پرونده امید رضایی بنویس که خانواده‌ش درباره جریمه دیرکرد زنگ زدن",
        "add_comment",
    ),
    (
        "a-colleagues-week",
        "این هفته کارای حمید چیه؟",
        "list_tasks",
    ),
    (
        "fire-doors-inspection",
        "به کاوه یادآوری کن سه‌شنبه بعد درهای ضدحریق ساختمون ب رو بازدید کنه",
        "create_task",
    ),
    (
        "inspection-slips",
        "بازدید درهای ضدحریق افتاد به ۲۸ام، پیمانکار مریض شده",
        "update_task",
    ),
    (
        "welcome-packs-not-needed",
        "کار «سفارش بسته خوش‌آمدگویی» رو پاک کن، امسال دانشگاه خودش می‌ده",
        "delete_task",
    ),
    (
        "anything-new-on-a-booking",
        "از پنجشنبه کسی چیزی رو رزرو خانواده مصری نوشته؟",
        "list_comments",
    ),
    (
        "keys-before-ramadan",
        "رو معامله مطب ۳ بنویس که دکتر کریمی کلیدها رو قبل از عید می‌خواد، خالد رو هم منشن کن",
        "add_comment",
    ),
    (
        "forgotten-last-week",
        "هفته پیش کاری یادم رفته انجام بدم؟",
        "list_tasks",
    ),
    (
        "sound-check-before-a-wedding",
        "دو روز قبل از عروسی صالحی، سامان سیستم صوت تالار رو چک کنه",
        "create_task",
    ),
    (
        "caterer-already-called",
        "به پیمانکار پذیرایی زنگ زدم، اون کار رو ببند",
        "update_task",
    ),
    (
        "curtains-quote-pointless",
        "تالار داره بازسازی می‌شه، کار «گرفتن قیمت پرده‌های جدید» دیگه بی‌معنیه؛ پاکش کن",
        "delete_task",
    ),
    # catalog, members, undo
    (
        "student-housing-starter",
        "برای خوابگاه دانشجویی یه ساختار آماده دارین که ببینیم؟",
        "browse_catalog",
    ),
    (
        "self-storage-starter-chosen",
        "همون قالب انبار شخصی که الان دیدیم رو انتخاب کردیم، نصبش کن",
        "install_template",
    ),
    (
        "who-to-mention-on-the-cinema-lease",
        "برای قرارداد سینما کیو از تیم پاساژ می‌تونم منشن کنم؟",
        "list_members",
    ),
    (
        "wrong-hall",
        "نه، ساختمون اشتباهه. برگردونش",
        "undo_last_change",
    ),
    (
        "event-venue-template",
        "قالب تالارهای پذیرایی چی‌ها بهمون اضافه می‌کنه؟",
        "browse_catalog",
    ),
    (
        "clinic-leasing-one",
        "همون قالب اجاره مطب که قبلاً نشونم دادی رو نصب کن",
        "install_template",
    ),
    (
        "halls-team-emails",
        "تو تیم تالارها کیا هستن و ایمیلشون چیه؟",
        "list_members",
    ),
    (
        "wrong-companys-rooms",
        "وای، اون تغییر رفت رو اتاق‌های یه شرکت دیگه؛ برگردونش",
        "undo_last_change",
    ),
    # two tools
    (
        "vacant-shops-count-and-list",
        "تو بال شرقی چندتا مغازه خالیه؟ یه لیست ذخیره‌شده هم ازشون برام نگه دار",
        "count_records",
        "create_view",
    ),
    (
        "room-swap-done-and-noted",
        "جابه‌جایی اتاق ساختمون ج انجام شد، تیکش رو بزن و تو پرونده نگار شماره اتاق جدیدش رو "
        "یادداشت کن",
        "update_task",
        "add_comment",
    ),
    (
        "parking-bay-on-memberships",
        "عضویت‌ها یه فیلد جای پارک لازم دارن؛ مال استودیو نُه P-14 هست",
        "add_field",
        "update_record",
    ),
    (
        "lease-back-and-who-deleted-it",
        "قرارداد اجاره باربری بندر غیب شده؛ برش گردون و بگو کی پاکش کرده",
        "restore_record",
        "record_history",
    ),
    (
        "tours-for-prospective-students",
        "بازدیدهای دانشجوهای متقاضی رو جدا ثبت کنیم، هر بازدید به اتاق‌هایی که دیدن وصل باشه",
        "create_object",
        "create_relation",
    ),
    (
        "cinema-lease-open-tasks",
        "رو قرارداد سینما چه کارایی باز مونده؟ اونی که مال تابلوئه رو پاک کن",
        "list_tasks",
        "delete_task",
    ),
)
