"""The fresh held-back set, English: one row per case, (scenario, prompt, tool, ...).

Written on 2026-12-06 before anything was measured on it (``evals.data.fresh`` says what the set
is for and how it was written). Never edit a row because of a figure measured on it.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # records
    (
        "walk-in-couple-at-the-sales-office",
        "A couple just walked into the sales office asking about Marina Heights: Yousef and Huda "
        "Saleh, yousef.saleh@gmail.com. Put them in as a lead",
        "create_record",
    ),
    (
        "owner-lists-a-flat-with-us",
        "Mr. Tariq wants us to rent out his 3-bed in Al Olaya for 85k a year; it isn't in the "
        "system yet",
        "create_record",
    ),
    (
        "buyer-budget-went-up",
        "Omar called back, his budget is 1.8 million now, not 1.5",
        "update_record",
    ),
    (
        "give-one-deal-to-a-colleague",
        "Give the Al Rawda villa deal to Fahad instead of me",
        "update_record",
    ),
    (
        "lead-asks-to-be-erased",
        "Samir Aziz asked us to erase his details, so remove his lead",
        "delete_record",
    ),
    (
        "brokerage-firm-closed-down",
        "Gulf Star Brokers closed down last year; take their company record out",
        "delete_record",
    ),
    (
        "tower-handed-over",
        "Tower B was handed over today, so every flat in it is ready now, no longer off-plan",
        "bulk_update_records",
    ),
    (
        "contacts-gone-quiet",
        "Every contact we haven't spoken to since 2023: flip them to inactive",
        "bulk_update_records",
    ),
    (
        "bot-spam-from-the-web-form",
        "Our website form got hit by bots overnight, hundreds of junk leads with gibberish names. "
        "Clear them out.",
        "bulk_delete_records",
    ),
    (
        "old-cancelled-reservations",
        "Purge cancelled reservations older than six months",
        "bulk_delete_records",
    ),
    (
        "portal-enquiries-as-csv",
        "Property Finder sent this week's enquiries as a CSV, load them in as leads",
        "import_records",
    ),
    (
        "new-prices-from-a-finance-sheet",
        "Finance revised the price list in Excel; apply the new prices to the matching units from "
        "that file",
        "import_records",
    ),
    (
        "bank-wants-mortgage-buyers",
        "The bank needs a list of our buyers on mortgages, can I get that as a file?",
        "export_records",
    ),
    (
        "statement-for-a-landlord",
        "Mr. Jaber wants to see every unit he owns with us. Put them in an Excel I can email him",
        "export_records",
    ),
    (
        "occupancy-in-a-district",
        "How many of the Al Khobar flats are occupied right now, out of how many?",
        "count_records",
    ),
    ("biggest-sale-this-year", "Biggest sale this year?", "count_records"),
    (
        "company-vanished-after-a-cleanup",
        "Al Fanar Trading vanished from the list after Tuesday's cleanup and Nadia needs it back",
        "restore_record",
    ),
    (
        "dropped-buyer-came-back",
        "The buyer we dropped last week is back and wants the villa after all. Bring back the "
        "deal I deleted",
        "restore_record",
    ),
    (
        "two-spellings-of-one-company",
        "'Al-Rashid Holding' and 'Alrashid Holdings' are the same firm",
        "merge_records",
    ),
    (
        "signed-up-twice",
        "Hessa signed up on the website and again at the branch; I only want one of her",
        "merge_records",
    ),
    (
        "when-a-deal-was-marked-lost",
        "When did the Al Qasr deal get marked lost, and by whom?",
        "record_history",
    ),
    ("first-listed-price", "What price did we first list villa 22 at?", "record_history"),
    # objects
    (
        "a-home-for-developers",
        "We work with several developers now; I want a separate place for them with their own "
        "records",
        "create_object",
    ),
    (
        "site-visits-as-their-own-records",
        "Site visits deserve their own records with a date, an agent and a unit, not just "
        "reminders",
        "create_object",
    ),
    (
        "unit-number-as-the-title",
        "Units are titled by an internal ID; show the unit number as the title instead",
        "update_object",
    ),
    (
        "misspelt-object-name",
        "The menu says 'Propertys'. It should be 'Properties'",
        "update_object",
    ),
    (
        "referral-pilot-ended",
        "The referral experiment is over; remove the Referrals type entirely, records and all",
        "delete_object",
    ),
    (
        "tickets-from-a-template-by-mistake",
        "We installed the support template by mistake, get rid of the Tickets object it created",
        "delete_object",
    ),
    # fields
    (
        "tenant-nationality",
        "From now on we need each tenant's nationality on file",
        "add_field",
    ),
    (
        "is-the-flat-furnished",
        "Agents keep asking whether a flat is furnished; give units somewhere to say so",
        "add_field",
    ),
    (
        "clearer-budget-label",
        "Call the 'Budget' column 'Max budget (SAR)' so nobody confuses it",
        "update_field",
    ),
    (
        "same-id-number-twice",
        "Two tenants ended up with the same national ID number. Make sure that can't happen again",
        "update_field",
    ),
    (
        "legacy-id-from-the-old-crm",
        "That 'Legacy ID' column from our old CRM is useless now, get rid of it and whatever's in "
        "it",
        "delete_field",
    ),
    (
        "home-phone-never-filled",
        "Nobody ever fills in Home phone on contacts; drop it",
        "delete_field",
    ),
    (
        "viewing-date-needs-a-time",
        "Viewing dates only keep the day, I need the time as well",
        "change_field_type",
    ),
    (
        "commission-typed-as-text",
        "Commission is typed as free text like '2.5%'; make it a real percentage so it adds up",
        "change_field_type",
    ),
    (
        "retire-a-lead-rating",
        "We don't rate leads 'Cold' anymore, take that choice away",
        "manage_field_options",
    ),
    (
        "cities-missing-when-picking",
        "Riyadh and Dammam are missing when I pick a city",
        "manage_field_options",
    ),
    # relations
    (
        "what-hangs-off-a-building",
        "If I open a building, what other kinds of records can hang off it?",
        "list_relations",
    ),
    (
        "do-payments-know-their-lease",
        "Do payments record which lease they belong to, or only the tenant?",
        "list_relations",
    ),
    (
        "agents-cover-many-buildings",
        "Each building has a few agents and each agent covers several buildings. Set that up",
        "create_relation",
    ),
    (
        "who-referred-a-lead",
        "I want each lead to say which existing client referred them, picked from our contacts",
        "create_relation",
    ),
    (
        "vendors-and-buildings-apart",
        "Remove the link between Vendors and Buildings altogether, we track that through "
        "contracts now",
        "delete_relation",
    ),
    (
        "interested-in-clutter",
        "That 'interested in' connection between leads and units just clutters things; take it "
        "out of the data model",
        "delete_relation",
    ),
    (
        "owner-of-a-flat",
        "Flat 1204 belongs to Dr. Sami Al-Harbi. Show him as its owner",
        "link_records",
    ),
    (
        "co-tenant-on-a-lease",
        "Add Noura as co-tenant on her husband's lease L-2025-031; she's already in contacts",
        "link_records",
    ),
    (
        "tenant-moved-out",
        "Khalid moved out of 3B last month, but the flat still shows him as the occupant",
        "unlink_records",
    ),
    (
        "sold-villa-out-of-a-campaign",
        "Villa 9 is sold; pull it out of the summer offer campaign, but don't delete anything",
        "unlink_records",
    ),
    # views
    ("boards-a-colleague-made", "Which boards has Majed set up for himself?", "list_views"),
    (
        "a-vacancy-list-already",
        "Before I build one, is there already a saved list of empty flats?",
        "list_views",
    ),
    (
        "sold-villas-still-showing",
        "Why are sold villas still showing up under 'Available villas'?",
        "get_view",
    ),
    (
        "which-date-a-calendar-uses",
        "Which date drives the Handovers calendar?",
        "get_view",
    ),
    (
        "maintenance-board-by-urgency",
        "Show maintenance requests as cards in columns by urgency, and keep it for the team",
        "create_view",
    ),
    (
        "my-listings-expiring-soon",
        "I'd like a list I can come back to of my listings expiring within 30 days",
        "create_view",
    ),
    (
        "vacant-units-one-city",
        "The Vacant units list should only show Riyadh from now on",
        "update_view",
    ),
    (
        "rename-a-board",
        "Call the 'Test board' view 'Leasing pipeline' from now on",
        "update_view",
    ),
    ("trial-board-from-yesterday", "Ditch yesterday's 'Trial 2' board", "delete_view"),
    (
        "a-leavers-personal-view",
        "Ahmad has left; his personal 'Ahmad hot list' view can go",
        "delete_view",
    ),
    # comments
    (
        "did-anyone-answer-my-question",
        "Did anyone answer my question on the Al Yasmin lease?",
        "list_comments",
    ),
    (
        "before-meeting-a-client",
        "I'm meeting Mr. Adel in ten minutes, what did we last note about him?",
        "list_comments",
    ),
    (
        "site-visit-impressions",
        "Put on the Hilltop deal that the client loved the view but thinks the kitchen is small",
        "add_comment",
    ),
    (
        "bounced-cheque-tell-a-colleague",
        "Let Dana know on the Al Rayyan lease that the cheque bounced",
        "add_comment",
    ),
    # tasks
    (
        "what-a-team-closed-this-week",
        "Which follow-ups has the leasing team closed since Sunday?",
        "list_tasks",
    ),
    (
        "outstanding-before-a-handover",
        "Before we hand 7A over to the buyer, what's still outstanding on it?",
        "list_tasks",
    ),
    (
        "keys-back-from-a-tenant",
        "Ask Layan to get the keys back from the tenant in 4C before the 15th",
        "create_task",
    ),
    (
        "building-insurance-renewal",
        "Don't let me forget the building insurance renewal on 1 March",
        "create_task",
    ),
    (
        "valuation-on-the-wrong-list",
        "I put the valuation on Sara's list but it's Maha's job",
        "update_task",
    ),
    (
        "gate-code-on-a-to-do",
        "Add the gate code 4471 to my 'Meet the inspector' to-do",
        "update_task",
    ),
    (
        "buyer-went-elsewhere",
        "Mr. Nabil bought elsewhere, so that follow-up call with him is pointless; remove it",
        "delete_task",
    ),
    ("accidental-to-do", "Get rid of the 'asdf' to-do I made by accident", "delete_task"),
    # catalog
    (
        "sales-or-leasing-template",
        "What's the difference between the Sales and the Leasing templates?",
        "browse_catalog",
    ),
    (
        "office-space-starting-point",
        "We're starting to lease office space. Anything in your library we could reuse for that?",
        "browse_catalog",
    ),
    (
        "the-one-with-work-orders",
        "Go ahead and add the property maintenance template, the one with work orders",
        "install_template",
    ),
    (
        "empty-branch-workspace",
        "The Dubai branch workspace is empty; give it the standard sales setup from the library",
        "install_template",
    ),
    # meta
    ("who-covers-a-city", "Who covers Jeddah?", "list_members"),
    (
        "someone-from-finance-to-tag",
        "Is there anyone from finance in here I can tag?",
        "list_members",
    ),
    (
        "prices-raised-in-the-wrong-building",
        "Hold on, you raised prices in the wrong building. Reverse what you just did",
        "undo_last_change",
    ),
    (
        "renamed-on-the-wrong-object",
        "No, I meant rename it on deals, not contacts; put contacts back",
        "undo_last_change",
    ),
    # several tools
    (
        "new-building-and-its-units",
        "Add the new building Al Safwa Residence, then bring in its 120 units from the "
        "developer's sheet",
        "create_record",
        "import_records",
    ),
    (
        "archive-then-purge-expired-listings",
        "Download the expired listings from 2022 for our archive, then wipe them all from the "
        "system",
        "export_records",
        "bulk_delete_records",
    ),
    (
        "note-and-hand-over-a-task",
        "Note on the Al Jazi deal that the client is travelling, and move my call-him task over "
        "to Hind",
        "add_comment",
        "update_task",
    ),
    (
        "late-tenants-count-and-list",
        "How many tenants are behind on rent? Send me the list as a spreadsheet too",
        "count_records",
        "export_records",
    ),
    (
        "sea-view-flag-and-fill-it",
        "Add a yes/no 'Sea view' to units and tick it for every flat from floor 10 up in Marina "
        "Tower",
        "add_field",
        "bulk_update_records",
    ),
)
