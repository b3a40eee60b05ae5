"""The second fresh held-back set, English, part 2 of 2: views, comments, tasks, the
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
        "Is there a calendar for viewings already, or should I make one?",
        "list_views",
    ),
    (
        "cant-find-mariams-board",
        "Which boards are there on Deals? I can't find Mariam's",
        "list_views",
    ),
    (
        "top-buyers-missing-faisal",
        "Faisal isn't in the 'Top buyers' list; what's that list filtering on?",
        "get_view",
    ),
    (
        "q4-board-mine-or-everyones",
        "Is the 'Q4 closings' board only my deals or everyone's?",
        "get_view",
    ),
    (
        "lease-end-calendar",
        "Give me a calendar of lease end dates so I can plan the renewals",
        "create_view",
    ),
    (
        "jeddah-web-leads-table",
        "Save a table of Jeddah web leads with budgets over a million, I'll use it daily",
        "create_view",
    ),
    (
        "all-tenants-columns",
        "In 'All tenants', hide the Notes (old) column and show the phone number instead",
        "update_view",
    ),
    (
        "vacant-flats-by-floor",
        "Sort the 'Vacant flats' table by floor, highest first",
        "update_view",
    ),
    (
        "two-renewals-boards",
        "There are two 'Renewals' boards now, delete the one I made",
        "delete_view",
    ),
    (
        "eid-offers-board",
        "Bin the 'Eid offers' board",
        "delete_view",
    ),
    # comments
    (
        "note-after-showing",
        "Did Salem write anything after showing flat 604?",
        "list_comments",
    ),
    (
        "word-from-legal",
        "Anything from legal on the Al Khaleej contract?",
        "list_comments",
    ),
    (
        "parking-swap-for-rami",
        "Write on the Al Sahel lease that the tenant wants a parking swap, Rami please check",
        "add_comment",
    ),
    (
        "calls-after-eight",
        "Jot down on Mr. Fawaz's lead: prefers calls after 8pm",
        "add_comment",
    ),
    # tasks
    (
        "due-before-the-weekend",
        "What's due before the weekend?",
        "list_tasks",
    ),
    (
        "overdue-handover-to-dos",
        "Which to-dos for the Al Noor Towers handover are overdue?",
        "list_tasks",
    ),
    (
        "snagging-report-for-ziad",
        "Have Ziad send the snagging report to the owner by Wednesday",
        "create_task",
    ),
    (
        "check-renewal-next-month",
        "Ping me next month to check whether the Hamdan family renewed",
        "create_task",
    ),
    (
        "inspection-pushed-back",
        "Push my 'Inspect villa 5' task to next Tuesday, the owner is away",
        "update_task",
    ),
    (
        "keys-handed-over",
        "The keys were handed over this morning, so that one's done",
        "update_task",
    ),
    (
        "wrong-dana-to-do",
        "I made 'Call back Dana' for the wrong Dana, delete that to-do",
        "delete_task",
    ),
    (
        "open-house-cancelled",
        "The open house is cancelled; remove my reminder to print the flyers",
        "delete_task",
    ),
    # catalog
    (
        "owners-association-template",
        "Is there a template for owners' associations? What would it create?",
        "browse_catalog",
    ),
    (
        "small-agency-starting",
        "We're a five-person agency just opening; what prebuilt setups could we begin with?",
        "browse_catalog",
    ),
    (
        "go-with-short-term-rentals",
        "Yes, let's go with the short-term rentals one, set it up",
        "install_template",
    ),
    (
        "apply-owners-association",
        "We'll use the owners' association template from the library. Apply it now",
        "install_template",
    ),
    # meta
    (
        "khobar-branch-colleagues",
        "Which colleagues are in the Khobar branch?",
        "list_members",
    ),
    (
        "is-lina-still-here",
        "Is Lina still in the workspace?",
        "list_members",
    ),
    (
        "not-what-i-asked",
        "No, change that back",
        "undo_last_change",
    ),
    (
        "only-floor-three-sold",
        "You just marked all of Tower D as sold; it was only floor 3. Revert that",
        "undo_last_change",
    ),
    # two tools
    (
        "merge-and-say-why",
        "Merge the two Al Mansour company records and note on the result why we did it",
        "merge_records",
        "add_comment",
    ),
    (
        "replace-leads-board",
        "Replace the old 'Leads 2025' board with a new one grouped by source",
        "create_view",
        "delete_view",
    ),
    (
        "unsold-count-and-reminder",
        "How many units in Tower E are still unsold? Remind me to tell the developer on Monday",
        "count_records",
        "create_task",
    ),
    (
        "wrong-unit-on-lease",
        "Lease L-880 has the wrong unit attached: take 402 off it and put 420 on",
        "unlink_records",
        "link_records",
    ),
    (
        "commission-set-back",
        "Someone changed the commission on the Al Qurum deal; find the old figure and put it back",
        "record_history",
        "update_record",
    ),
    (
        "leasing-template-if-payments",
        "See what the leasing template includes and install it if it has payments",
        "browse_catalog",
        "install_template",
    ),
)
