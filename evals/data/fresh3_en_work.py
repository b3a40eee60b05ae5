"""The third fresh held-back set, English, part 2 of 2:
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
        "Which warehouse lists exist already?",
        "list_views",
    ),
    (
        "renewals-list-settings",
        "What filters and columns does Priya's 'Renewals this quarter' list use?",
        "get_view",
    ),
    (
        "retail-prospects-board",
        "I want a board of retail prospects in columns by leasing stage, just for the mall team",
        "create_view",
    ),
    (
        "deposit-column-on-residents",
        "Add the deposit column to the Residents list and sort it by room number",
        "update_view",
    ),
    (
        "last-years-bazaar-board",
        "The 'Ramadan bazaar stalls' board from last year is just noise; remove it",
        "delete_view",
    ),
    (
        "calendars-for-halls",
        "Are there any calendars set up for the halls?",
        "list_views",
    ),
    (
        "what-a-board-groups-on",
        "Which field does the 'Bookings by hall' board group on?",
        "get_view",
    ),
    (
        "hall-bookings-calendar",
        "Give me a calendar of hall bookings by event date",
        "create_view",
    ),
    (
        "specialty-instead-of-phone",
        "In the 'Clinic enquiries' table, swap the phone column for the specialty",
        "update_view",
    ),
    (
        "empty-test-calendar",
        "Get rid of my empty 'test calendar' in the halls",
        "delete_view",
    ),
    # comments and tasks
    (
        "notes-on-a-logistics-deal",
        "Catch me up on the notes under the Atlas Logistics warehouse deal",
        "list_comments",
    ),
    (
        "parents-called-about-a-fee",
        "Log on Omar Farouk's resident record that his parents called about the late fee",
        "add_comment",
    ),
    (
        "a-colleagues-week",
        "What's Ravi got lined up?",
        "list_tasks",
    ),
    (
        "fire-doors-inspection",
        "Remind Chen to inspect the fire doors in Hall B next Tuesday",
        "create_task",
    ),
    (
        "inspection-slips",
        "The fire door inspection slips to the 28th, the contractor is off sick",
        "update_task",
    ),
    (
        "welcome-packs-not-needed",
        "Scrap the 'order welcome packs' to-do; the university is supplying them this year",
        "delete_task",
    ),
    (
        "anything-new-on-a-booking",
        "Has anyone written anything on the Al Masri booking since Thursday?",
        "list_comments",
    ),
    (
        "keys-before-ramadan",
        "Write on the suite 3 deal that Dr. Lena wants the keys before Ramadan, and tag Khalid",
        "add_comment",
    ),
    (
        "forgotten-last-week",
        "Anything I forgot to do last week?",
        "list_tasks",
    ),
    (
        "sound-check-before-a-wedding",
        "Have Sameer check the hall's sound system two days before the Karimi wedding",
        "create_task",
    ),
    (
        "caterer-already-called",
        "I already called the caterer, close that to-do",
        "update_task",
    ),
    (
        "curtains-quote-pointless",
        "The 'quote for new curtains' task is pointless now the hall is being refurbished; "
        "delete it",
        "delete_task",
    ),
    # catalog, members, undo
    (
        "student-housing-starter",
        "Is there a starter setup for student housing we could look at?",
        "browse_catalog",
    ),
    (
        "self-storage-starter-chosen",
        "We'll take the self-storage starter you just showed; put it in our workspace",
        "install_template",
    ),
    (
        "who-to-mention-on-the-cinema-lease",
        "Who on the mall team can I mention about the cinema lease?",
        "list_members",
    ),
    (
        "wrong-hall",
        "No, wrong hall. Revert that",
        "undo_last_change",
    ),
    (
        "event-venue-template",
        "What would a template for event venues give us?",
        "browse_catalog",
    ),
    (
        "clinic-leasing-one",
        "Install the clinic leasing one you showed me earlier",
        "install_template",
    ),
    (
        "halls-team-emails",
        "Who's in the halls team and what are their emails?",
        "list_members",
    ),
    (
        "wrong-companys-rooms",
        "Oops, that change hit the wrong company's rooms; reverse it",
        "undo_last_change",
    ),
    # two tools
    (
        "vacant-shops-count-and-list",
        "How many shops in the east wing are vacant? Keep a saved list of them for me too",
        "count_records",
        "create_view",
    ),
    (
        "room-swap-done-and-noted",
        "Tick off the Hall C room swap and leave a note on Aisha's record with her new room",
        "update_task",
        "add_comment",
    ),
    (
        "parking-bay-on-memberships",
        "Memberships need a parking bay field; Studio Nine's is P-14",
        "add_field",
        "update_record",
    ),
    (
        "lease-back-and-who-deleted-it",
        "Bring back the Harbor Freight lease that vanished and tell me who deleted it",
        "restore_record",
        "record_history",
    ),
    (
        "tours-for-prospective-students",
        "Set up Tours for prospective students' visits, each tour tied to the rooms shown",
        "create_object",
        "create_relation",
    ),
    (
        "cinema-lease-open-tasks",
        "What's still open on the cinema lease? The signage one can go",
        "list_tasks",
        "delete_task",
    ),
)
