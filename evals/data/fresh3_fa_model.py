"""The third fresh held-back set, Persian, part 1 of 2:
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
        "سارا محمدی از دانشکده پرستاری بیعانه اتاق ۱۱۴ رو واریز کرد؛ به عنوان ساکن ثبتش کن",
        "create_record",
    ),
    (
        "kiosk-fit-out-deadline-moved",
        "مهلت تکمیل دکوراسیون غرفه بستنی طبقه فودکورت تا ۳۱ فروردین تمدید شد",
        "update_record",
    ),
    (
        "enquiry-under-the-wrong-client",
        "درخواست انبار W-12 رو اشتباهی به اسم یه مشتری دیگه زدم، پاکش کن تا درستش رو ثبت کنم",
        "delete_record",
    ),
    (
        "summer-term-residents-left",
        "ترم تابستون جمعه تموم شد؛ وضعیت همه دانشجوهای ترم تابستان رو بزن تخلیه کرده",
        "bulk_update_records",
    ),
    (
        "trial-week-desk-bookings",
        "همه رزروهای میز هفته آزمایشی رایگان که به عضویت نرسیدن رو پاک کن",
        "bulk_delete_records",
    ),
    (
        "retail-prospects-from-a-mall-agent",
        "مشاور اجاره پاساژ یه فایل اکسل با ۴۰ مغازه‌دار متقاضی فرستاده، واردشون کن تو سیستم",
        "import_records",
    ),
    (
        "storage-renters-for-the-insurer",
        "بیمه تا دوشنبه یه فایل از همه مستأجرهای انباری‌های کوچیک با متراژ هر واحد می‌خواد",
        "export_records",
    ),
    (
        "empty-beds-per-hall",
        "تو هر ساختمون خوابگاه چندتا تخت خالی داریم؟",
        "count_records",
    ),
    (
        "paused-membership-deleted",
        "عضویت استودیو نقش رو پاک کردم فکر کردم رفتن، ولی فقط موقتاً قطعش کرده بودن. برش گردون",
        "restore_record",
    ),
    (
        "bakery-entered-twice",
        "نانوایی سنگک طلایی دو بار ثبت شده، یکی از سامانه پاساژ یکی خودم زدم. یکیشون کن",
        "merge_records",
    ),
    (
        "ceiling-height-disagrees",
        "ارتفاع مفید انبار W-7 رو زده ۸ متر ولی تو بروشور ۱۰ بود. کی دستش زده؟",
        "record_history",
    ),
    (
        "dentist-wants-a-clinic-suite",
        "دکتر نازنین کریمی مطب شماره ۳ ساختمان پزشکان رو برای دندانپزشکی می‌خواد، یه معامله براش"
        " باز کن",
        "create_record",
    ),
    (
        "wedding-grew",
        "عروسی خانواده صالحی شده ۳۵۰ نفر، ولی رزرو تالارش هنوز ۲۵۰ نوشته",
        "update_record",
    ),
    (
        "engagement-party-called-off",
        "نامزدی ۱۹ اردیبهشت کنسل شد؛ فقط همون رزرو رو حذف کن، به بقیه دست نزن",
        "delete_record",
    ),
    (
        "staff-housing-contract-renewed",
        "شرکت پیمانکاری آفتاب یه سال دیگه تمدید کرد؛ تاریخ پایان همه اتاق‌های کارگراش رو بکن ۱۰ "
        "دی ۱۴۰۶",
        "bulk_update_records",
    ),
    (
        "old-facebook-page-requests",
        "همه درخواست‌های بازدید کارگاه که از پیج قدیمی اینستاگرام اومده رو پاک کن",
        "bulk_delete_records",
    ),
    (
        "worker-roster-csv",
        "کارگزینی شرکت آفتاب لیست کارگراش رو CSV فرستاده؛ برای هر اسم یه ساکن بساز",
        "import_records",
    ),
    (
        "hall-bookings-to-print",
        "رزروهای تالار این ماه رو اکسل بده، می‌خوام برای آشپزخونه پرینت بگیرم",
        "export_records",
    ),
    (
        "guests-per-wedding",
        "این فصل میانگین تعداد مهمون تو رزروهای عروسی چند نفره؟",
        "count_records",
    ),
    (
        "intern-cleared-a-contact",
        "کارآموز دیروز مخاطب دکتر سامی رو پاک کرده، هنوز لازمش داریم؛ برش گردون",
        "restore_record",
    ),
    (
        "two-of-one-dentist",
        "دکتر نازنین کریمی دوتا شده، یکی با ایمیل مطب یکی با جیمیل؛ فقط یکی بمونه",
        "merge_records",
    ),
    (
        "deposit-dropped-overnight",
        "بیعانه رزرو تالار بزرگ یه‌شبه شده دو میلیون تومن. کِی و کی این کارو کرده؟",
        "record_history",
    ),
    # objects and fields
    (
        "atrium-pop-up-bookings",
        "از این به بعد حیاط مرکزی پاساژ رو برای نمایشگاه‌های موقت اجاره می‌دیم؛ هر رزرو باید یه "
        "نوع داده جدا باشه",
        "create_object",
    ),
    (
        "warehouses-cover-cold-stores",
        "توضیح بخش انبارها رو عوض کن که نیروهای جدید بدونن سردخونه‌ها هم جزوشه",
        "update_object",
    ),
    (
        "lockers-taken-out",
        "کمدها رو از طبقه کار اشتراکی جمع کردیم؛ بخش کمدها با هرچی توشه از سیستم بره",
        "delete_object",
    ),
    (
        "student-allergies",
        "آشپزخونه خوابگاه باید حساسیت غذایی هر دانشجو رو بدونه، یه جا تو پروفایلش براش بذار",
        "add_field",
    ),
    (
        "loading-bays-must-be-filled",
        "هیچ‌کس نباید بتونه قرارداد انبار رو بدون تعداد سکوی بارگیری ذخیره کنه",
        "update_field",
    ),
    (
        "smoking-room-checkbox",
        "تیک «اتاق سیگار» رو از اتاق‌ها بردار، کل ساختمون سال‌هاست سیگار ممنوعه",
        "delete_field",
    ),
    (
        "storage-size-in-square-metres",
        "اندازه انباری فقط کوچیک و متوسط و بزرگه؛ باید همون‌جا متراژ دقیق بنویسم",
        "change_field_type",
    ),
    (
        "fit-out-leasing-step",
        "مراحل اجاره مغازه یه مرحله «دکوراسیون» بین «امضا شد» و «افتتاح شد» کم داره",
        "manage_field_options",
    ),
    (
        "machines-lent-to-workshops",
        "به کارگاه‌ها دستگاه امانی می‌دیم؛ می‌خوام این دستگاه‌ها رو جدا، هر کدوم با پرونده خودش،"
        " نگه دارم",
        "create_object",
    ),
    (
        "one-clinic-suite-label",
        "بالای هر رکورد نوشته «مطب‌ها»، برای یه دونه باید بنویسه «مطب»",
        "update_object",
    ),
    (
        "catering-outsourced",
        "پذیرایی رو دادیم بیرون؛ بخش منوهایی که برای تالارها ساخته بودیم با همه رکوردهاش حذف بشه",
        "delete_object",
    ),
    (
        "x-ray-room-in-a-suite",
        "برای مطب‌ها ثبت کنیم که هر کدوم اتاق رادیولوژی جدا داره یا نه",
        "add_field",
    ),
    (
        "pax-means-guests",
        "اسم «Pax» رو تو رزروهای تالار بکن «تعداد مهمان»، جز آشپزخونه کسی معنیش رو نمی‌فهمه",
        "update_field",
    ),
    (
        "shift-pattern-field",
        "فیلد «نوبت کاری» رو از اتاق‌های کارگری بردار؛ کارگزینی خودش پیگیره و ما هیچ‌وقت به‌روزش"
        " نمی‌کنیم",
        "delete_field",
    ),
    (
        "machine-power-as-text",
        "توان دستگاه‌ها مثل «۵ کیلووات» یا «7kw» متنی وارد شده؛ باید عدد باشه که بشه فیلتر کرد",
        "change_field_type",
    ),
    (
        "ladies-and-mens-sections",
        "تو لیست کشویی بخش تالار «قسمت بانوان» و «قسمت آقایان» باید دو گزینه جدا باشن",
        "manage_field_options",
    ),
    # relations
    (
        "what-points-at-warehouses",
        "قبل از اینکه گزارش بسازم: چه بخش‌هایی به انبارها وصلن و چه‌جوری؟",
        "list_relations",
    ),
    (
        "guarantors-for-students",
        "هر دانشجو یه ضامن از بین مخاطب‌ها داشته باشه، یه ضامن هم می‌تونه ضامن چند نفر باشه",
        "create_relation",
    ),
    (
        "shops-no-longer-in-zones",
        "دیگه مغازه‌ها رو بر اساس راسته‌های پاساژ دسته نمی‌کنیم؛ ارتباط راسته‌ها با مغازه‌ها رو "
        "کلاً حذف کن",
        "delete_relation",
    ),
    (
        "kiosk-gets-its-tenant",
        "غرفه K3 رو الان کبابی حاج رضا می‌گردونه، بهش وصلشون کن",
        "link_records",
    ),
    (
        "member-went-remote",
        "میز ۱۴ دیگه مال آرش نیست، کاملاً دورکار شده؛ ولی عضویتش بمونه",
        "unlink_records",
    ),
    (
        "staff-room-tied-to-whom",
        "اتاق کارگری به شرکت کارفرما وصله یا به تک‌تک کارگرها؟",
        "list_relations",
    ),
    (
        "caterer-per-booking",
        "هر رزرو تالار بتونه پیمانکار پذیرایی‌ش رو از شرکت‌های تأمین‌کننده انتخاب کنه؛ هر "
        "پیمانکار کلی رزرو داره",
        "create_relation",
    ),
    (
        "insurance-panels-on-suites",
        "مطب‌ها دیگه به ارتباط با «بیمه‌های طرف قرارداد» نیاز ندارن؛ این رابطه رو با فیلدهاش حذف کن",
        "delete_relation",
    ),
    (
        "booking-under-a-family",
        "رزرو تالار بزرگ برای ۲۴ خرداد رو بذار زیر مخاطب خانواده مصری",
        "link_records",
    ),
    (
        "welding-machine-returned",
        "کارگاه ۵ دستگاه جوش رو پس داد؛ دیگه نباید پیششون نشون داده بشه",
        "unlink_records",
    ),
)
