"""The third fresh held-back set, English, part 1 of 2:
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
        "Mariam Osei from the nursing faculty just paid the deposit for room 114. Add her as a "
        "resident",
        "create_record",
    ),
    (
        "kiosk-fit-out-deadline-moved",
        "The Gelato Bar kiosk in the food court now has until 20 April to finish its fit-out",
        "update_record",
    ),
    (
        "enquiry-under-the-wrong-client",
        "Delete the warehouse W-12 enquiry I logged under the wrong client; I'll redo it under "
        "the right one",
        "delete_record",
    ),
    (
        "summer-term-residents-left",
        "The summer term ended Friday, so mark all summer-term residents as checked out",
        "bulk_update_records",
    ),
    (
        "trial-week-desk-bookings",
        "Wipe every desk booking from the free-trial week that never turned into a membership",
        "bulk_delete_records",
    ),
    (
        "retail-prospects-from-a-mall-agent",
        "The mall's leasing agent emailed me an Excel of 40 retail prospects, get them into the "
        "system",
        "import_records",
    ),
    (
        "storage-renters-for-the-insurer",
        "Our insurer wants a file of every self-storage renter with their unit size by Monday",
        "export_records",
    ),
    (
        "empty-beds-per-hall",
        "How many beds are free in each residence hall right now?",
        "count_records",
    ),
    (
        "paused-membership-deleted",
        "I deleted the Brightpath Studio membership thinking they'd left, but they only paused. "
        "Get it back",
        "restore_record",
    ),
    (
        "bakery-entered-twice",
        "Nordic Bakes is in here twice, one from the mall portal and one I typed. Make it one",
        "merge_records",
    ),
    (
        "ceiling-height-disagrees",
        "Warehouse W-7 shows an 8 m clear height but the brochure said 10. Who touched that?",
        "record_history",
    ),
    (
        "dentist-wants-a-clinic-suite",
        "Dr. Lena Haddad wants suite 3 at the medical centre for her dental practice. Start a "
        "deal for her",
        "create_record",
    ),
    (
        "wedding-grew",
        "The Karimi wedding grew to 350 guests; their hall booking still says 250",
        "update_record",
    ),
    (
        "engagement-party-called-off",
        "The couple called off their 9 May engagement party; remove that booking, nothing else",
        "delete_record",
    ),
    (
        "staff-housing-contract-renewed",
        "Al Noor Contracting renewed for another year; push the end date on all their staff "
        "rooms to 31 Dec 2027",
        "bulk_update_records",
    ),
    (
        "old-facebook-page-requests",
        "Delete every workshop viewing request that came in through the old Facebook page",
        "bulk_delete_records",
    ),
    (
        "worker-roster-csv",
        "HR at Al Noor sent their worker roster as a CSV; create a resident for each name on it",
        "import_records",
    ),
    (
        "hall-bookings-to-print",
        "Send me this month's hall bookings as an Excel, I'll print it for the kitchen",
        "export_records",
    ),
    (
        "guests-per-wedding",
        "What's the average number of guests per wedding booking this season?",
        "count_records",
    ),
    (
        "intern-cleared-a-contact",
        "The intern cleared out Dr. Sami's contact yesterday; we still need him, recover it",
        "restore_record",
    ),
    (
        "two-of-one-dentist",
        "There are two Dr. Lena Haddads now, one with her clinic email, one with her gmail; keep"
        " just one",
        "merge_records",
    ),
    (
        "deposit-dropped-overnight",
        "The deposit on the Grand Hall booking dropped to 2,000 overnight. When, and who did it?",
        "record_history",
    ),
    # objects and fields
    (
        "atrium-pop-up-bookings",
        "We've started renting the atrium for pop-up events; each booking should be its own kind"
        " of entry",
        "create_object",
    ),
    (
        "warehouses-cover-cold-stores",
        "Change what the Warehouses section says about itself so new staff know it covers cold "
        "stores too",
        "update_object",
    ),
    (
        "lockers-taken-out",
        "The lockers are gone from the coworking floor. Lockers can go from the CRM with "
        "everything in it",
        "delete_object",
    ),
    (
        "student-allergies",
        "The residence kitchen needs each student's allergies recorded on their profile",
        "add_field",
    ),
    (
        "loading-bays-must-be-filled",
        "Nobody should be able to save a warehouse lease without the number of loading bays",
        "update_field",
    ),
    (
        "smoking-room-checkbox",
        "Drop the 'Smoking room' checkbox from rooms; the whole building went smoke-free years ago",
        "delete_field",
    ),
    (
        "storage-size-in-square-metres",
        "Storage unit size is just Small/Medium/Large; I need exact square metres in that field "
        "instead",
        "change_field_type",
    ),
    (
        "fit-out-leasing-step",
        "Shop leasing needs a 'Fit-out' stage between 'Signed' and 'Open'",
        "manage_field_options",
    ),
    (
        "machines-lent-to-workshops",
        "Workshops come with machines we lend out; I want a register of those machines as "
        "records of their own",
        "create_object",
    ),
    (
        "one-clinic-suite-label",
        "Each record says 'Clinic Suites' at the top; a single one should read 'Clinic suite'",
        "update_object",
    ),
    (
        "catering-outsourced",
        "We outsourced catering, so the Menus object we made for the halls can go, records "
        "included",
        "delete_object",
    ),
    (
        "x-ray-room-in-a-suite",
        "For clinic suites, note whether each one has its own X-ray room",
        "add_field",
    ),
    (
        "pax-means-guests",
        "Rename 'Pax' on hall bookings to 'Guests', nobody outside catering knows what pax means",
        "update_field",
    ),
    (
        "shift-pattern-field",
        "Remove the 'Shift pattern' field from staff rooms; HR keeps that now and we never "
        "update it",
        "delete_field",
    ),
    (
        "machine-power-as-text",
        "Machine power is typed like '5kW' or '7 kw'; I need it as a number I can filter on",
        "change_field_type",
    ),
    (
        "ladies-and-mens-sections",
        "The hall area dropdown needs 'Ladies' section' and 'Men's section' as separate choices",
        "manage_field_options",
    ),
    # relations
    (
        "what-points-at-warehouses",
        "Before I build reports: which objects point at Warehouses, and how?",
        "list_relations",
    ),
    (
        "guarantors-for-students",
        "Every student needs a guarantor picked from contacts, and one guarantor can back "
        "several students",
        "create_relation",
    ),
    (
        "shops-no-longer-in-zones",
        "We stopped grouping shops into mall zones; remove the Zones connection from shops "
        "completely",
        "delete_relation",
    ),
    (
        "kiosk-gets-its-tenant",
        "Kiosk K3 is now run by Kemal's Kitchen, attach them to it",
        "link_records",
    ),
    (
        "member-went-remote",
        "Desk 14 isn't Jonah's any more, he went fully remote; keep his membership though",
        "unlink_records",
    ),
    (
        "staff-room-tied-to-whom",
        "Is a staff room tied to the employer company or to each worker?",
        "list_relations",
    ),
    (
        "caterer-per-booking",
        "Let each hall booking pick its caterer from our vendor companies; a caterer serves many"
        " bookings",
        "create_relation",
    ),
    (
        "insurance-panels-on-suites",
        "Clinic suites don't need the link to Insurance panels any more; remove that relation "
        "and its fields",
        "delete_relation",
    ),
    (
        "booking-under-a-family",
        "Put the Grand Hall booking for 14 June under the Al Masri family's contact",
        "link_records",
    ),
    (
        "welding-machine-returned",
        "Workshop 5 returned the welding machine; it shouldn't show against them any more",
        "unlink_records",
    ),
)
