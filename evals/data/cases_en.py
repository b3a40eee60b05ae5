"""English eval cases: one row per case, (scenario, prompt, tool, ...).

The scenario names the user need a case shares with its translations; ``evals.data.cases`` records
each scenario's half and builds the cases.
"""

from __future__ import annotations

__all__ = ["ROWS"]

ROWS: tuple[tuple[str, ...], ...] = (
    # records
    (
        "new-lead-with-phone",
        "Add a new lead called Omar Haddad, phone 0551234567, he's interested in two-bedroom units",
        "create_record",
    ),
    ("record-status-or-stage", "Unit B-12 is now reserved, please update it", "update_record"),
    (
        "contact-detail-changed",
        "Layla's email changed to layla.m@outlook.com, fix it on her contact",
        "update_record",
    ),
    ("deal-gone-buyer-left", "Remove the deal for Villa 7, the buyer walked away", "delete_record"),
    (
        "reassign-a-leavers-records",
        "Reassign all of Khalid's open leads to Mona, he's leaving the company",
        "bulk_update_records",
    ),
    (
        "purge-test-contacts",
        "Wipe out all the dummy contacts we made while testing last week",
        "bulk_delete_records",
    ),
    (
        "import-a-spreadsheet",
        "The developer sent me a spreadsheet with 300 new units, get them into the system",
        "import_records",
    ),
    (
        "export-leases-ending",
        "Send me an Excel file of all leases ending this year",
        "export_records",
    ),
    (
        "count-units-in-a-building",
        "How many units are still available in Tower A?",
        "count_records",
    ),
    (
        "count-deals-or-leads-in-a-period",
        "What's the total value of deals won this quarter, broken down by sales rep?",
        "count_records",
    ),
    (
        "restore-deleted-record",
        "I deleted Sara Ali's contact by accident yesterday, can you get it back?",
        "restore_record",
    ),
    (
        "merge-duplicate-record",
        "Ahmed Nasser shows up twice in contacts, combine the two into one",
        "merge_records",
    ),
    (
        "who-changed-a-price",
        "Who changed the asking price on unit C-3, and what was it before?",
        "record_history",
    ),
    # objects
    (
        "track-a-new-kind-of-record",
        "I want to start tracking maintenance requests as their own kind of record",
        "create_object",
    ),
    ("rename-an-object", "Rename Leads to Prospects across the CRM", "update_object"),
    (
        "delete-campaigns-object",
        "Get rid of the Campaigns object entirely, we never use it",
        "delete_object",
    ),
    # fields
    ("add-a-field-to-units", "Units need a floor number field", "add_field"),
    ("make-a-field-mandatory", "Make the phone field on contacts mandatory", "update_field"),
    (
        "delete-the-fax-field",
        "Remove the fax column from companies, nobody has a fax anymore",
        "delete_field",
    ),
    (
        "field-has-the-wrong-type",
        "The area field on units was set up as text, it should be a number",
        "change_field_type",
    ),
    (
        "add-a-dropdown-option",
        "Add 'Under offer' as a new stage in the deal pipeline",
        "manage_field_options",
    ),
    # relations
    (
        "how-objects-connect",
        "How are units connected to buildings and leases in our setup?",
        "list_relations",
    ),
    (
        "relate-two-objects",
        "Every unit should belong to a building; set up that connection between the two objects",
        "create_relation",
    ),
    ("drop-a-relation", "Drop the relationship between Contacts and Campaigns", "delete_relation"),
    ("link-two-records", "Attach tenant Fatima Zahra to lease L-2024-118", "link_records"),
    (
        "unlink-wrongly-linked-records",
        "Unit D-5 is attached to the Marina building by mistake, detach it but keep both records",
        "unlink_records",
    ),
    # views
    ("which-views-exist", "Which saved views do we have for deals?", "list_views"),
    ("what-a-view-filters", "What filters is the 'Hot leads' view using?", "get_view"),
    ("kanban-of-deals-by-stage", "Make me a kanban board of deals grouped by stage", "create_view"),
    (
        "hide-a-column-and-sort-a-view",
        "In the 'My leads' view hide the budget column and sort by last contacted",
        "update_view",
    ),
    ("delete-an-old-view", "Delete the old 'Q1 pipeline' view", "delete_view"),
    # comments
    (
        "what-the-team-wrote",
        "What has the team said about the Al Noor deal so far?",
        "list_comments",
    ),
    (
        "note-on-a-client-record",
        "Leave a note on Hassan's lead that he prefers sea-view units and tag Rania",
        "add_comment",
    ),
    # tasks
    ("my-tasks", "What's on my plate today?", "list_tasks"),
    ("remind-me-to-call", "Remind me to call Mr. Karim back on Sunday at 10", "create_task"),
    ("mark-a-task-done", "I sent the contract to Yusuf, tick that task off", "update_task"),
    (
        "delete-a-duplicate-task",
        "Delete the follow-up for the Jumeirah viewing, it was created twice",
        "delete_task",
    ),
    # catalog
    (
        "ready-made-templates",
        "Are there ready-made setups for property management we could start from?",
        "browse_catalog",
    ),
    ("install-a-template", "Install the leasing template", "install_template"),
    # meta
    ("who-is-on-a-team", "Who's on the sales team?", "list_members"),
    ("undo-a-wrong-change", "Undo that, you changed the wrong record", "undo_last_change"),
    # several tools
    (
        "note-and-reminder",
        "Log a note on the Palm deal that the client wants a discount, and remind me to answer "
        "him by Thursday",
        "add_comment",
        "create_task",
    ),
    (
        "field-and-view-on-it",
        "Add a number field for parking spaces on units and a view showing units with two or more",
        "add_field",
        "create_view",
    ),
    (
        "mark-sold-and-export",
        "Mark every reserved unit in Tower B as sold, then export the list for finance",
        "bulk_update_records",
        "export_records",
    ),
    (
        "contracts-object-related-to-contacts",
        "Set up a Contracts object and relate it to Contacts",
        "create_object",
        "create_relation",
    ),
    (
        "find-a-deal-and-update-it",
        "Find the Acme deal and push its closing date to next month",
        "find_records",
        "update_record",
    ),
    # written after the re-split, held back from the start: tools whose held-back cases their
    # description restates, or that had no held-back case in this language
    (
        "purge-a-dropped-buildings-units",
        "We stopped managing Pearl Tower, delete all of its units from the CRM",
        "bulk_delete_records",
    ),
    (
        "fold-an-imported-unit-into-its-copy",
        "Unit A-7 exists once from the import and once typed in by hand; fold them into one and "
        "keep the imported price",
        "merge_records",
    ),
    (
        "who-edited-a-disputed-record",
        "Mona swears she never edited the Al Safa deal; check which edits on it were hers",
        "record_history",
    ),
    (
        "describe-an-object-for-newcomers",
        "Give the Buildings object a short description so new agents know what belongs in it",
        "update_object",
    ),
    (
        "drop-a-field-we-may-not-keep",
        "Legal says we can't store tenants' marital status any more; remove that field with all "
        "its data",
        "delete_field",
    ),
    (
        "leading-zero-lost",
        "Owners' phone numbers lose their leading zero because the field holds numbers; switch "
        "it to a phone field",
        "change_field_type",
    ),
    (
        "reorder-and-recolour-a-dropdown",
        "In the lead source dropdown, move 'Instagram' to the top and make it purple",
        "manage_field_options",
    ),
    (
        "can-a-unit-have-two-owners",
        "Can one unit have two owners in our data model, or is the owner link single?",
        "list_relations",
    ),
    (
        "parking-bay-goes-with-a-flat",
        "Parking bay P-14 now goes with apartment 902; tie the two together",
        "link_records",
    ),
    (
        "vendor-contract-ended",
        "Al Bustan Cleaning's contract for Tower C has ended; cut the vendor's connection to "
        "that building",
        "unlink_records",
    ),
    (
        "how-a-board-is-grouped",
        "Is the 'Vacant units' board grouped by building or by floor?",
        "get_view",
    ),
    (
        "campaign-over-remove-its-board",
        "The Ramadan campaign is over, take down its board of leads",
        "delete_view",
    ),
    (
        "colleagues-open-tasks-before-leave",
        "Reem goes on leave tomorrow; what follow-ups does she still have open?",
        "list_tasks",
    ),
    (
        "reopen-a-task-closed-too-early",
        "The client hasn't actually signed yet, reopen the 'collect the signed contract' to-do",
        "update_task",
    ),
    (
        "viewing-cancelled-drop-its-reminder",
        "The Friday viewing got cancelled, so scrap the reminder to pick up the keys",
        "delete_task",
    ),
    (
        "prebuilt-for-holiday-rentals",
        "Do you have anything prebuilt for holiday-home rentals? What would it add?",
        "browse_catalog",
    ),
    (
        "install-the-pack-we-looked-at",
        "Put the brokerage pack we looked at yesterday into our workspace",
        "install_template",
    ),
    ("who-has-admin-rights", "Which of us have admin rights here?", "list_members"),
    (
        "board-was-better-before-your-change",
        "Actually the board looked better before what you just did; put it back as it was",
        "undo_last_change",
    ),
)
