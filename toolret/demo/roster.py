"""The 44-tool roster of a CRM "units" agent: the eval's catalog and the demo's.

Nine domains in delivery order (records, objects, fields, relations, views, comments, tasks,
catalog, meta); five always-on core tools that ground the agent (the schema, the workspace
context, the list of objects, finding and reading records); the rest safe reads, writes and
destructive operations, with look-alikes on purpose (create / update / delete record, list / get
view, link / unlink records, delete / restore / undo). ``category`` is the risk tier: ``read``,
``write`` or ``destructive``.

Each description is written for a reader who does not know the tool exists: what it does, when
to use it, and what it does not do (naming the tool to use instead). The tools are package
data, ``roster.toml`` beside this module; their example requests live in
``toolret.demo._example_requests``: ``catalog`` carries them, ``catalog_without_examples`` does not.
"""

from __future__ import annotations

import dataclasses
import tomllib
from importlib.resources import files

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.demo._example_requests import EXAMPLES

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
"""The CRM's domains in delivery order, which the roster's catalog passes as its domain order
(a catalog orders domains as they first appear unless told otherwise)."""

CORE = ("find_records", "get_record", "list_objects", "inspect_schema", "get_workspace_context")
"""Always bound: the agent can always see the data model and find and read records."""


def _load() -> tuple[Tool, ...]:
    data = tomllib.loads(files(__package__).joinpath("roster.toml").read_text("utf-8"))
    return tuple(
        Tool(
            name=row["name"],
            description=" ".join(row["description"].split()),
            keywords=tuple(row["keywords"]),
            category=row["category"],
            domain=row["domain"],
            core=row["name"] in CORE,
            agents=("units",),
        )
        for row in data["tools"]
    )


TOOLS: tuple[Tool, ...] = _load()
"""The 44 tools in delivery order (records, objects, fields, relations, views, comments, tasks,
catalog, meta), without examples."""


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
