"""Small catalogs the unit tests share."""

from __future__ import annotations

from typing import Any

from toolret import Catalog, Tool, catalog_from_mcp
from toolret.demo.roster import DOMAINS

CRM_TOOLS = [
    Tool(
        "inspect_schema",
        "Show the objects of the workspace and the fields on each, with their types.",
        domain="meta",
        core=True,
    ),
    Tool(
        "find_records",
        "Search records of any object by text or by field values and return matching rows.",
        domain="records",
        core=True,
    ),
    Tool(
        "delete_record",
        "Permanently delete one record, such as a contact or a company, from the CRM.",
        domain="records",
    ),
    Tool(
        "create_record",
        "Create a new record, such as a contact, a company or a deal, with its field values.",
        domain="records",
    ),
    Tool(
        "add_comment",
        "Write a comment on a record so teammates see a note in its activity timeline.",
        domain="comments",
    ),
    Tool(
        "create_task",
        "Create a to-do task with a due date and an assignee, optionally linked to a record.",
        domain="tasks",
    ),
    Tool(
        "create_field",
        "Add a new field (column) to an object, such as a status dropdown or a date field.",
        domain="fields",
    ),
    Tool(
        "create_relation",
        "Link two objects with a relation field so records of one point to records of the other.",
        domain="relations",
    ),
    Tool(
        "create_view",
        "Create a saved view of an object: a table or kanban board with filters and sorting.",
        domain="views",
    ),
    Tool(
        "export_records",
        "Export the records of an object to a CSV file the user can download.",
        domain="catalog",
    ),
    Tool(
        "send_email",
        "Send an email to a contact from the user's connected mailbox, with subject and body.",
        domain="comments",
    ),
]


def crm_catalog() -> Catalog:
    """Eleven tools, two of them core: nine candidates; in the demo CRM's domain order."""
    return Catalog(CRM_TOOLS, domain_rank=DOMAINS)


def mcp_catalog() -> Catalog:
    """The CRM tools served by two MCP servers: ``crm`` and ``work`` (comments and tasks)."""
    servers: dict[str, list[dict[str, Any]]] = {"crm": [], "work": []}
    for tool in CRM_TOOLS:
        listing = {
            "name": tool.name,
            "description": tool.description,
            "inputSchema": {"type": "object", "properties": {}},
        }
        servers["work" if tool.domain in {"comments", "tasks"} else "crm"].append(listing)
    return catalog_from_mcp(servers, core=["crm__find_records", "crm__inspect_schema"])


def numbered_catalog(candidates: int, *, core: int = 1) -> Catalog:
    """Filler tools whose relevance the tests control through scores, not text."""
    tools = [
        Tool(f"core_{i}", f"Core tool number {i}, always bound for every message.", core=True)
        for i in range(core)
    ]
    tools += [
        Tool(f"tool_{i:03d}", f"Candidate tool number {i}, described at sufficient length.")
        for i in range(candidates)
    ]
    return Catalog(tools)
