"""The second fresh held-back set, English, part 1 of 2: records, objects, fields and
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
        "Rakan Al-Shammari, 050 222 3344, is renting the Al Malqa duplex from May; he isn't in "
        "contacts yet",
        "create_record",
    ),
    (
        "co-broker-firm-signs-up",
        "Sign up Blue Key Realty as a partner company, they'll co-broker the Hittin villas with us",
        "create_record",
    ),
    (
        "tenant-switched-numbers",
        "Hanan Qasim switched numbers, her mobile is 0559871200 now",
        "update_record",
    ),
    (
        "rent-cut-on-one-flat",
        "Drop the asking rent on flat 1507 to 62,000; the rest of that floor stays as it is",
        "update_record",
    ),
    (
        "plot-listed-by-mistake",
        "The Al Hamra land plot was never ours to sell, the listing was a mistake. Remove it",
        "delete_record",
    ),
    (
        "one-lead-of-a-family",
        "Take out Bassam Khoury's lead only, not the rest of his family's enquiries",
        "delete_record",
    ),
    (
        "stale-viewing-stage-deals",
        "All deals still sitting at 'Viewing' since last year should be marked lost",
        "bulk_update_records",
    ),
    (
        "wrong-area-on-a-tower",
        "Every unit in Sunrise Towers says Dubai Marina as the area, but it's JLT. Fix them all",
        "bulk_update_records",
    ),
    (
        "open-day-signups-bounced",
        "The 2021 open-day sign-ups all bounce now; delete every one of those leads",
        "bulk_delete_records",
    ),
    (
        "zero-phone-leads",
        "Get rid of every lead whose phone number is just zeros",
        "bulk_delete_records",
    ),
    (
        "old-agency-owner-list",
        "Here's the owners list from our old agency software as an xlsx, bring it all over",
        "import_records",
    ),
    (
        "municipality-broker-registry",
        "I've attached the municipality's broker registry; add whoever we don't have yet",
        "import_records",
    ),
    (
        "auditor-wants-signed-leases",
        "Our auditor wants every lease signed in 2025 in a spreadsheet by Thursday",
        "export_records",
    ),
    (
        "buyers-csv-for-sms-campaign",
        "Pull the Al Wurud buyers into a CSV so marketing can run an SMS campaign",
        "export_records",
    ),
    (
        "instagram-leads-last-month",
        "How many leads did the Instagram ads bring in last month?",
        "count_records",
    ),
    (
        "top-agent-by-value",
        "Which agent closed the most in Q3, by deal value?",
        "count_records",
    ),
    (
        "company-with-contracts-removed",
        "The Bin Saleh company I removed this morning had all our contracts on it. I need it "
        "back as it was",
        "restore_record",
    ),
    (
        "trashed-the-wrong-unit",
        "Oops, I trashed unit 808 instead of 806. Can 808 come back?",
        "restore_record",
    ),
    (
        "engineer-with-three-contacts",
        "Eng. Waleed Hamdan has three contacts, one per phone number; I want a single one",
        "merge_records",
    ),
    (
        "import-made-a-second-building",
        "The import created a second Sunset Villas building; fold it into the original",
        "merge_records",
    ),
    (
        "deal-moved-back-to-negotiation",
        "Who moved the Al Nakheel deal back to negotiation yesterday?",
        "record_history",
    ),
    (
        "rent-at-signing",
        "The tenant says the rent was 48k when he signed. What did his lease say back then?",
        "record_history",
    ),
    # objects
    (
        "service-charge-invoices",
        "We're starting to bill owners service charges and need to keep each invoice as its own "
        "record",
        "create_object",
    ),
    (
        "key-sets-who-holds-which",
        "Can we keep track of key sets as their own thing, who holds which set?",
        "create_object",
    ),
    (
        "buildings-default-icon",
        "The Buildings section still has the default grey icon, give it a building one",
        "update_object",
    ),
    (
        "deals-become-opportunities",
        "For the Saudi launch, 'Deals' should be called 'Opportunities' across the whole system",
        "update_object",
    ),
    (
        "out-of-short-stays",
        "We're out of short-stay rentals for good. Bookings as a record type can go, with "
        "everything in it",
        "delete_object",
    ),
    (
        "parking-permits-pilot-over",
        "The Parking Permits object was a pilot for one building; wipe it from the workspace",
        "delete_object",
    ),
    # fields
    (
        "ejari-number-on-leases",
        "Leases need somewhere to hold the Ejari registration number",
        "add_field",
    ),
    (
        "preferred-contact-language",
        "Track which language each buyer wants us to contact them in",
        "add_field",
    ),
    (
        "service-charge-hint",
        "Put a hint under 'Service charge' saying it's per square foot per year",
        "update_field",
    ),
    (
        "new-units-start-available",
        "Newly added units should start as 'Available' unless someone picks otherwise",
        "update_field",
    ),
    (
        "size-and-area-twice",
        "Units have both 'Size' and 'Area sqm' and they mean the same thing; drop 'Size' for good",
        "delete_field",
    ),
    (
        "pet-policy-column-unused",
        "The 'Pets allowed' field on leases was never used. Delete it, values and all",
        "delete_field",
    ),
    (
        "preferred-area-one-choice",
        "A buyer can want several areas, but 'Preferred area' only lets me pick one",
        "change_field_type",
    ),
    (
        "deposit-without-currency",
        "Deposits show up as bare numbers with no currency; turn that field into money",
        "change_field_type",
    ),
    (
        "hotel-apartment-type",
        "Add 'Hotel apartment' to the property type list",
        "manage_field_options",
    ),
    (
        "negotiation-becomes-offer-made",
        "The pipeline stage 'Negotiation' should read 'Offer made'",
        "manage_field_options",
    ),
    # relations
    (
        "maintenance-to-tenant-or-unit",
        "Can a maintenance request be connected to a tenant, or only to a unit?",
        "list_relations",
    ),
    (
        "map-for-a-new-admin",
        "A new admin starts Sunday; give me an overview of how our objects are linked to each "
        "other",
        "list_relations",
    ),
    (
        "building-manager-from-contacts",
        "On each building I want to pick its manager from our contacts",
        "create_relation",
    ),
    (
        "vendors-handle-many-requests",
        "Vendors and maintenance requests need connecting, one vendor handles many requests",
        "create_relation",
    ),
    (
        "deals-to-brokers-design-mistake",
        "Connecting deals to external brokers was a design mistake; remove that relation from "
        "the model",
        "delete_relation",
    ),
    (
        "buildings-no-longer-tied-to-developers",
        "Buildings shouldn't be tied to Developers any more, drop that connection and its fields",
        "delete_relation",
    ),
    (
        "lift-repair-vendor",
        "Put Al Fursan Maintenance on the Tower C lift repair request",
        "link_records",
    ),
    (
        "buyer-already-a-contact",
        "Bilal is the buyer on deal D-778 and he's already a contact, tie them together",
        "link_records",
    ),
    (
        "deal-no-longer-with-developer",
        "The Riverside deal isn't with Horizon Developers any more; disconnect the two, keep both",
        "unlink_records",
    ),
    (
        "left-his-company",
        "Sultan left Crescent Holdings and works on his own now; his contact shouldn't show them",
        "unlink_records",
    ),
)
