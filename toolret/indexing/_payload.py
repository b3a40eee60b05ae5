"""A catalog as plain data, so it can travel inside a reindex job.

The worker never imports the application that asks for a reindex: the tools' retrieval fields
(name, description, keywords, category, domain, core, examples, agents, and of the input
schema what documents read: each top-level parameter and its description,
``toolret._tool.parameter_text``) travel in the job as JSON-compatible data, so any service
can ask. The rest of a schema, and provider definitions, stay behind: nothing is embedded
from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.errors import CatalogSourceError

__all__ = ["PAYLOAD_VERSION", "CatalogPayload", "ToolPayload", "from_payload", "to_payload"]

PAYLOAD_VERSION = 1
"""Bumped when the shape changes; a worker refuses a version it does not know."""


class ToolPayload(TypedDict):
    """One tool's retrieval fields."""

    name: str
    description: str
    keywords: list[str]
    category: str
    domain: str
    core: bool
    examples: list[str]
    agents: list[str]
    parameters: dict[str, str]
    """Each top-level parameter of the input schema and its description ("" for none)."""


class CatalogPayload(TypedDict):
    """A catalog's tools in catalog order, and its domain order."""

    version: int
    domain_rank: list[str]
    tools: list[ToolPayload]


def to_payload(catalog: Catalog) -> CatalogPayload:
    """The catalog as JSON-compatible data (lists, strings, booleans)."""
    return {
        "version": PAYLOAD_VERSION,
        "domain_rank": list(catalog.domain_rank),
        "tools": [
            {
                "name": tool.name,
                "description": tool.description,
                "keywords": list(tool.keywords),
                "category": tool.category,
                "domain": tool.domain,
                "core": tool.core,
                "examples": list(tool.examples),
                "agents": list(tool.agents),
                "parameters": _parameters(tool),
            }
            for tool in catalog.tools
        ],
    }


def from_payload(payload: Mapping[str, Any]) -> Catalog:
    """Rebuild the catalog a payload describes; its corpus hash equals the original's.

    The sender already validated description lengths against its own minimum, so they are not
    checked again (a catalog built with a lower minimum still indexes); names and duplicates
    are. Raises ``CatalogSourceError`` for a payload this version cannot read.
    """
    version = payload.get("version")
    if version != PAYLOAD_VERSION:
        raise CatalogSourceError(
            f"reindex payload version {version!r} is not {PAYLOAD_VERSION}; "
            "run the same toolret version in the worker and the application"
        )
    try:
        tools = [
            Tool(
                name=str(item["name"]),
                description=str(item["description"]),
                keywords=tuple(item.get("keywords", ())),
                category=str(item.get("category", "")),
                domain=str(item.get("domain", "")),
                core=bool(item.get("core", False)),
                examples=tuple(item.get("examples", ())),
                agents=tuple(item.get("agents", ())),
                input_schema=_schema(item.get("parameters") or {}),
            )
            for item in payload["tools"]
        ]
        domain_rank = tuple(payload["domain_rank"])
    except (KeyError, TypeError) as error:
        raise CatalogSourceError(f"malformed reindex payload: {error!r}") from error
    return Catalog(tools, domain_rank=domain_rank, min_description_length=0)


def _parameters(tool: Tool) -> dict[str, str]:
    properties = (tool.input_schema or {}).get("properties")
    if not isinstance(properties, Mapping):
        return {}
    out = {}
    for key, spec in properties.items():
        described = spec.get("description") if isinstance(spec, Mapping) else None
        out[str(key)] = described if isinstance(described, str) else ""
    return out


def _schema(parameters: Mapping[str, str]) -> dict[str, Any] | None:
    """The input schema ``parameter_text`` reads the same parameters from."""
    if not parameters:
        return None
    properties = {key: {"description": text} if text else {} for key, text in parameters.items()}
    return {"type": "object", "properties": properties}
