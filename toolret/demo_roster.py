"""The 44-tool roster of a CRM "units" agent (seed 000): the eval's catalog and the demo's.

Nine domains in delivery order (records, objects, fields, relations, views, comments, tasks,
catalog, meta); five always-on core tools that ground the agent (the schema, the workspace
context, the list of objects, finding and reading records); the rest safe reads, writes and
destructive operations, with look-alikes on purpose (create / update / delete record, list / get
view, link / unlink records, delete / restore / undo). ``category`` is the risk tier: ``read``,
``write`` or ``destructive``.

Each description is written for a reader who does not know the tool exists: what it does, when
to use it, and what it does not do (naming the tool to use instead). Example requests per tool
live in ``toolret.demo_examples``; ``catalog`` carries them, ``catalog_without_examples`` does not.
"""

from __future__ import annotations

import dataclasses

from toolret.catalog import Catalog
from toolret.demo_examples import EXAMPLES
from toolret.tool import Tool

__all__ = [
    "CORE",
    "DOMAINS",
    "EVAL_MIN_DESCRIPTION_LENGTH",
    "TOOLS",
    "build_catalog",
    "catalog",
    "catalog_without_examples",
]

EVAL_MIN_DESCRIPTION_LENGTH = 200
"""The eval's minimum description length: stricter than the library's, because the description
is the primary retrieval signal and a thin one makes a tool hard to reach in any language."""

DOMAINS = (
    "records",
    "objects",
    "fields",
    "relations",
    "views",
    "comments",
    "tasks",
    "catalog",
    "meta",
)
"""The CRM's domains in delivery order: the roster's tools come in this order (a catalog of
the application's own orders domains as they first appear unless told otherwise)."""

CORE = ("find_records", "get_record", "list_objects", "inspect_schema", "get_workspace_context")
"""Always bound: the agent can always see the data model and find and read records."""


def _tool(
    name: str, domain: str, category: str, description: str, keywords: tuple[str, ...]
) -> Tool:
    return Tool(
        name=name,
        description=" ".join(description.split()),
        keywords=keywords,
        category=category,
        domain=domain,
        core=name in CORE,
        agents=("units",),
    )


TOOLS: tuple[Tool, ...] = (
    # ---------------------------------------------------------------- records
    _tool(
        "find_records",
        "records",
        "read",
        """Search the records of one object and return the matching rows. Filter on any field
        (equals, contains, number or date ranges, empty or not empty), sort, and page through
        the results. Use it whenever the user refers to records by a name, a condition or a
        list ("deals closing this month", "unit A-104"); it is also how to get a record's id
        before changing it. Read-only. It does not count or total values across records (use
        count_records) and does not show who changed a record (use record_history).""",
        ("search", "filter", "lookup", "query records", "list records"),
    ),
    _tool(
        "get_record",
        "records",
        "read",
        """Fetch one record by its id with every field value, including the records linked to
        it through relations. Use it after find_records when you need the full details of a
        single record, or when the user gives an id or a link. Read-only. It cannot search by
        name or condition (use find_records) and does not show past values (use
        record_history).""",
        ("record details", "open record", "by id", "full record"),
    ),
    _tool(
        "create_record",
        "records",
        "write",
        """Create one new record in an object, for example add a contact, a lead, a deal or a
        unit, with the field values the user gives. Required fields must be supplied; a
        relation field takes the id of the record to link. Use it only for something that does
        not exist yet. To change an existing record use update_record; to add many rows from a
        spreadsheet use import_records.""",
        ("add", "new record", "insert", "register", "new lead", "new contact"),
    ),
    _tool(
        "update_record",
        "records",
        "write",
        """Change field values on one existing record: correct a phone number, set a new
        status or price, move a deal to another stage, change the owner. Only the fields given
        change; the others keep their values. Use it for a single record identified by id
        (find it first with find_records). For the same change on many records use
        bulk_update_records; it neither creates nor deletes records.""",
        ("edit", "modify", "change value", "set field", "correct"),
    ),
    _tool(
        "delete_record",
        "records",
        "destructive",
        """Delete one specific record: it moves to the trash and disappears from lists, views
        and relations. Dangerous: confirm with the user first. Use it only when the user
        clearly wants one particular record removed. For many records matching a condition use
        bulk_delete_records; to get a deleted record back use restore_record; for duplicates
        use merge_records rather than deleting one copy.""",
        ("remove", "delete", "trash", "erase record"),
    ),
    _tool(
        "bulk_update_records",
        "records",
        "write",
        """Apply the same change to every record that matches a filter, in one operation:
        reassign all of one salesperson's leads, set every overdue invoice to late, raise the
        price of all units in a building by a percentage. Use it when the user talks about many
        records at once. For a single record use update_record. It changes values only; it does
        not delete records (bulk_delete_records) or alter the field itself (update_field).""",
        ("mass update", "batch edit", "all records", "reassign", "bulk change"),
    ),
    _tool(
        "bulk_delete_records",
        "records",
        "destructive",
        """Delete every record that matches a filter in one operation, for example all test
        data or all leads marked lost more than two years ago. Dangerous and wide: report how
        many records match and ask for confirmation first. Use it only when the user wants many
        records removed by a condition. For one record use delete_record; to remove a whole
        type of data with its definition use delete_object.""",
        ("mass delete", "batch delete", "purge", "clean up", "remove many"),
    ),
    _tool(
        "import_records",
        "records",
        "write",
        """Import rows from an uploaded CSV or Excel file into an object: map the file's
        columns to fields, then create new records or update existing ones matched on a key
        field such as email. Use it when the user has a spreadsheet or file of data to bring
        into the CRM. It does not produce files (use export_records) and is not meant for
        typing in a single record (use create_record).""",
        ("import", "upload", "csv", "excel", "spreadsheet", "load data"),
    ),
    _tool(
        "export_records",
        "records",
        "read",
        """Export the records of an object, a filtered list or a saved view to a downloadable
        CSV or Excel file. Use it when the user wants a spreadsheet, a file to send to someone,
        or an offline copy of the data. Read-only. It does not load data in (use
        import_records) and does not compute totals (use count_records).""",
        ("export", "download", "csv", "excel", "spreadsheet", "backup"),
    ),
    _tool(
        "count_records",
        "records",
        "read",
        """Count records, or compute the sum, average, minimum or maximum of a number field,
        optionally grouped by another field: how many leads came in this week, the total deal
        value per stage, the average rent per building. Use it for questions that ask how many
        or how much in total, rather than for the records themselves. Read-only; to list the
        matching records use find_records.""",
        ("count", "how many", "total", "sum", "average", "statistics", "report"),
    ),
    _tool(
        "restore_record",
        "records",
        "write",
        """Bring a deleted record back from the trash, with its field values and links as they
        were; deleted records stay in the trash for 30 days. Use it when the user wants a
        removed record back. It does not revert an edit to a record that still exists (use
        undo_last_change) and cannot recover a deleted object or field.""",
        ("restore", "undelete", "recover", "trash", "bring back"),
    ),
    _tool(
        "merge_records",
        "records",
        "destructive",
        """Merge two or more duplicate records of the same object into one: choose which value
        to keep for each field, move their comments, tasks and links onto the surviving record,
        and delete the other copies. Dangerous: the merged duplicates are removed. Use it when
        the same contact, company or lead was entered more than once. To simply delete a record
        use delete_record.""",
        ("merge", "duplicates", "deduplicate", "combine", "same person twice"),
    ),
    _tool(
        "record_history",
        "records",
        "read",
        """Show the change history of one record: who created it, every field change with its
        old and new value, who made it and when. Use it when the user asks who changed
        something, when a value changed, or what a record looked like before. Read-only. It does
        not revert anything (use undo_last_change or update_record) and does not show comments
        (use list_comments).""",
        ("audit log", "history", "who changed", "previous value", "activity"),
    ),
    # ---------------------------------------------------------------- objects
    _tool(
        "list_objects",
        "objects",
        "read",
        """List every object in the workspace (for example Contacts, Deals, Units, Buildings)
        with its label, a short description and how many records it holds. Use it to discover
        what kinds of data exist before searching or changing anything. Read-only. For the
        fields and relations of an object use inspect_schema.""",
        ("objects", "tables", "record types", "entities", "data types"),
    ),
    _tool(
        "create_object",
        "objects",
        "write",
        """Set up a new custom object: a new table holding a new kind of record, such as
        Properties, Contracts or Maintenance requests, with a name, plural label, icon and
        description. Use it when the user wants to start tracking a new type of thing. It
        creates the object with default fields only; add more with add_field. To start from a
        ready-made design use install_template.""",
        ("new object", "custom object", "new table", "new entity", "record type"),
    ),
    _tool(
        "update_object",
        "objects",
        "write",
        """Rename an object, that is a whole type of record such as Leads or Units, everywhere
        in the CRM, or change its other settings: singular or plural label, icon, description,
        or which field is shown as the record title. Use it to rename or relabel a type of
        record. It does not touch the object's fields (use
        update_field) or its records (use update_record), and deletes nothing.""",
        ("rename object", "relabel", "object settings", "icon", "plural label"),
    ),
    _tool(
        "delete_object",
        "objects",
        "destructive",
        """Delete a whole custom object together with all of its records, fields, views and
        relations. Dangerous and irreversible: confirm with the user and state how many records
        will be lost. Use it only when the user wants an entire type of data gone from the
        workspace. To delete some records use bulk_delete_records; to remove one column use
        delete_field.""",
        ("delete object", "drop table", "remove entity", "remove record type"),
    ),
    # ---------------------------------------------------------------- fields
    _tool(
        "add_field",
        "fields",
        "write",
        """Add a new field (a column or property) to an object: text, number, currency, date,
        checkbox, email, phone, single or multi select and more, with its label, whether it is
        required and a default value. Use it when the user wants to start storing a new piece
        of information on a type of record. To connect two objects use create_relation; to
        change an existing field use update_field.""",
        ("new field", "add column", "new property", "attribute", "custom field"),
    ),
    _tool(
        "update_field",
        "fields",
        "write",
        """Change an existing field's settings: its label, help text, whether it is required or
        unique, its default value, or its position in the record layout. Use it to rename or
        adjust a column without changing what it stores. To change its data type use
        change_field_type; to edit the choices of a dropdown use manage_field_options; to
        remove it use delete_field.""",
        ("rename field", "required", "mandatory", "default value", "field settings"),
    ),
    _tool(
        "delete_field",
        "fields",
        "destructive",
        """Delete a field from an object, and with it the value that field holds on every
        record. Dangerous: the data in that column is lost; confirm first. Use it when the user
        wants to remove a column or property nobody needs. To hide a column from a view without
        losing data use update_view; to clear the value on one record use update_record.""",
        ("remove field", "delete column", "drop property"),
    ),
    _tool(
        "change_field_type",
        "fields",
        "write",
        """Convert an existing field to another data type, for example text to number, text to
        date, single select to multi select, or number to currency, converting the values
        already stored where possible and reporting the ones that cannot be converted. Use it
        when a field was created with the wrong type. Other settings such as the label are
        changed with update_field.""",
        ("field type", "convert", "data type", "text to number", "wrong type"),
    ),
    _tool(
        "manage_field_options",
        "fields",
        "write",
        """Add, rename, recolor, reorder or remove the choices of a select (dropdown) or
        multi-select field, such as the stages of a deal pipeline or the statuses of a unit.
        Use it when the user wants a new option in a dropdown or a stage renamed. It changes the
        list of allowed values, not the value set on a record (use update_record).""",
        ("dropdown options", "picklist", "stages", "statuses", "select choices"),
    ),
    # ---------------------------------------------------------------- relations
    _tool(
        "list_relations",
        "relations",
        "read",
        """List the relations between objects: which objects are linked, the kind of link
        (one-to-one, one-to-many, many-to-many) and the field name on each side. Use it to
        understand how the data model connects, for example what a Unit is attached to.
        Read-only. To see the records linked to one particular record use get_record.""",
        ("relations", "relationships", "links between objects", "associations"),
    ),
    _tool(
        "create_relation",
        "relations",
        "write",
        """Create a new relation between two objects, such as Deals belonging to a Contact or
        Units belonging to a Building, choosing one-to-one, one-to-many or many-to-many and
        naming the field on each side. Use it when the user wants two kinds of records to be
        connected. It defines the link between objects; connecting two particular records is
        link_records.""",
        ("new relation", "relationship", "lookup field", "connect objects", "foreign key"),
    ),
    _tool(
        "delete_relation",
        "relations",
        "destructive",
        """Remove a relation between two objects, deleting the relation fields on both sides
        and every link between their records. Dangerous: confirm first. Use it when a
        connection between two object types is no longer wanted. To disconnect only two
        particular records use unlink_records.""",
        ("remove relation", "delete relationship", "drop association"),
    ),
    _tool(
        "link_records",
        "relations",
        "write",
        """Connect two existing records through an existing relation: attach a contact to a
        deal, put a tenant on a lease, assign a unit to a building. Use it when the user wants
        particular records associated with each other. The relation must already exist (see
        create_relation); to remove a link use unlink_records.""",
        ("link", "attach", "associate", "connect records", "assign to"),
    ),
    _tool(
        "unlink_records",
        "relations",
        "write",
        """Disconnect two records that are linked through a relation, without deleting either
        of them: detach a contact from a company, take a unit off a lease. Use it when a link
        between particular records is wrong or no longer applies. To remove the relation
        between the objects entirely use delete_relation; to delete a record use
        delete_record.""",
        ("unlink", "detach", "disconnect", "dissociate", "remove link"),
    ),
    # ---------------------------------------------------------------- views
    _tool(
        "list_views",
        "views",
        "read",
        """List the saved views of an object (tables, kanban boards, calendars) with their
        names, type and owner. Use it to find out which views exist, for example before
        opening or changing one. Read-only. To see one view's filters, sort and columns use
        get_view.""",
        ("views", "saved views", "boards", "saved lists"),
    ),
    _tool(
        "get_view",
        "views",
        "read",
        """Show the full configuration of one saved view: its filters, sort order, visible
        columns, grouping and layout type. Use it when the user asks what a particular view
        shows or why a record does not appear in it. Read-only. To list all views use
        list_views; to fetch the records themselves use find_records.""",
        ("view settings", "view filters", "view details", "view configuration"),
    ),
    _tool(
        "create_view",
        "views",
        "write",
        """Create a new saved view of an object: a table, a kanban board grouped by a select
        field, or a calendar on a date field, with its own filters, sort and visible columns.
        Use it when the user wants a reusable list or board such as "my open deals" or "vacant
        units". To change an existing view use update_view.""",
        ("new view", "kanban", "board", "calendar", "saved filter", "dashboard list"),
    ),
    _tool(
        "update_view",
        "views",
        "write",
        """Change an existing saved view: add or remove filters, change the sort, show, hide
        or reorder columns, change the grouping or rename it. Use it when the user wants a view
        to show something different. It only changes how records are displayed, never the
        records or the fields. To make a new view use create_view.""",
        ("edit view", "hide column", "sort", "filter view", "columns"),
    ),
    _tool(
        "delete_view",
        "views",
        "write",
        """Delete a saved view. Only the view goes; the records and fields it showed are
        untouched. Use it when the user wants to get rid of an old or duplicate view or board.
        To remove a column from a view use update_view instead.""",
        ("remove view", "delete board", "delete saved list"),
    ),
    # ---------------------------------------------------------------- comments
    _tool(
        "list_comments",
        "comments",
        "read",
        """Show the comments and notes left on a record, newest first, with their author and
        time, including mentions of teammates. Use it when the user asks what was discussed
        about a record or what the latest note says. Read-only. For the history of field
        changes use record_history; for to-dos use list_tasks.""",
        ("comments", "notes", "discussion", "mentions", "conversation"),
    ),
    _tool(
        "add_comment",
        "comments",
        "write",
        """Post a comment or note on a record, optionally mentioning teammates so they are
        notified. Use it when the user wants to leave a note, log a call summary, or tell a
        colleague something about a specific record. It does not change any field value (use
        update_record) and does not create a follow-up (use create_task).""",
        ("comment", "note", "mention", "log call", "write note"),
    ),
    # ---------------------------------------------------------------- tasks
    _tool(
        "list_tasks",
        "tasks",
        "read",
        """List tasks (to-dos, follow-ups, reminders), filtered by assignee, due date, status
        or the record they are attached to: my tasks for today, overdue tasks, open tasks on a
        deal. Use it when the user asks what needs to be done. Read-only. To change a task use
        update_task.""",
        ("tasks", "to-do", "follow-ups", "agenda", "overdue"),
    ),
    _tool(
        "create_task",
        "tasks",
        "write",
        """Create a task, meaning a to-do or a reminder, with a title, due date, assignee and
        optionally the record it concerns, such as calling a lead back tomorrow. Use it when the
        user wants to remember or delegate something to do. It is not a comment (use
        add_comment) and not a calendar view (use create_view).""",
        ("new task", "reminder", "to-do", "follow up", "remind me"),
    ),
    _tool(
        "update_task",
        "tasks",
        "write",
        """Change an existing task: mark it done or reopen it, move its due date, reassign
        it, or edit its title or description. Use it when the user finishes, postpones or hands
        over a to-do. To remove a task entirely use delete_task; to add a new one use
        create_task.""",
        ("complete task", "mark done", "reschedule", "reassign task", "due date"),
    ),
    _tool(
        "delete_task",
        "tasks",
        "write",
        """Delete a task that is no longer needed or was created by mistake. Use it when the
        user wants a to-do removed rather than completed; marking it done instead keeps a trace
        (use update_task). It does not affect the record the task was attached to.""",
        ("remove task", "delete to-do", "cancel reminder"),
    ),
    # ---------------------------------------------------------------- catalog
    _tool(
        "browse_catalog",
        "catalog",
        "read",
        """Browse the catalog of ready-made templates: prebuilt objects, fields, views and
        pipelines for common needs such as real estate sales, leasing, property maintenance or
        customer support, with what each template adds. Use it when the user asks what
        templates exist or wants a starting point. Read-only; to add one to the workspace use
        install_template.""",
        ("templates", "catalog", "prebuilt", "starter kit", "marketplace"),
    ),
    _tool(
        "install_template",
        "catalog",
        "write",
        """Install a template from the catalog into the workspace, creating its objects,
        fields, relations and views in one step, for example the Leasing template. Use it when
        the user has picked a template or wants a standard structure set up quickly. To build
        an object by hand use create_object; to see the available templates use
        browse_catalog.""",
        ("install", "apply template", "set up", "starter kit"),
    ),
    # ---------------------------------------------------------------- meta
    _tool(
        "inspect_schema",
        "meta",
        "read",
        """Describe the data model, for one object or the whole workspace: every field with its
        type, whether it is required, the options of select fields, and the relations to other
        objects. Use it before creating or updating records or changing fields, to know the
        exact field names and allowed values. Read-only. It returns no records (use
        find_records).""",
        ("schema", "fields", "data model", "structure", "describe object"),
    ),
    _tool(
        "get_workspace_context",
        "meta",
        "read",
        """Return the context of this conversation: the current user's name, role and
        permissions, the workspace name, its language, currency and time zone, and today's
        date. Use it to resolve words such as "me", "my", "today" or "this month", and to
        format money and dates correctly. Read-only.""",
        ("current user", "me", "today", "timezone", "currency", "workspace"),
    ),
    _tool(
        "list_members",
        "meta",
        "read",
        """List the people in the workspace with their names, emails, roles and teams. Use it
        to find the right person to assign a record or task to or to mention in a comment, or
        when the user asks who is on a team. Read-only. It does not change anyone's role or
        invite new members.""",
        ("members", "users", "team", "colleagues", "staff", "people"),
    ),
    _tool(
        "undo_last_change",
        "meta",
        "write",
        """Undo the most recent change the assistant made in this conversation, such as a
        record update, a field edit or a bulk update, restoring the previous values. Use it
        when the user says that was wrong, revert it, or undo. Only changes made in this
        conversation can be undone; to bring back a deleted record from the trash use
        restore_record.""",
        ("undo", "revert", "roll back", "cancel change", "mistake"),
    ),
)


def build_catalog(*, examples: bool = True) -> Catalog:
    """The roster as a ``Catalog``, with each non-core tool's example requests or without."""
    tools = [
        dataclasses.replace(tool, examples=_examples_of(tool.name)) if examples else tool
        for tool in TOOLS
    ]
    return Catalog(tools, core=CORE, domain_rank=DOMAINS)


def _examples_of(name: str) -> tuple[str, ...]:
    by_language = EXAMPLES.get(name, {})
    return tuple(text for texts in by_language.values() for text in texts)


catalog = build_catalog(examples=True)
"""The 44-tool roster with example requests in English, Arabic and Turkish."""

catalog_without_examples = build_catalog(examples=False)
"""The same roster, descriptions only: the baseline the examples are measured against."""
