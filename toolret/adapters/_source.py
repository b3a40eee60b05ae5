"""What every tool-JSON and MCP adapter shares: reading entries, metadata mappings, examples.

Provider formats carry a name, a description and an input schema, nothing more. Their tools are
taken as written by someone else (``third_party=True``, the default): a thin description or an
input schema model providers refuse is then a warning on the catalog rather than an error, since
the application cannot edit a server's or a provider file's text. Pass ``third_party=False`` for
JSON the application writes itself.

What toolret adds (domain, category, keywords, example requests) comes in mappings keyed by tool
name, and example requests may also come from a side file (``load_examples``). A key that names
no tool raises ``CatalogSourceError``: a typo must never silently drop a tool's examples.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, TypeVar

from toolret._catalog import MIN_DESCRIPTION_LENGTH, Catalog
from toolret._tool import Tool
from toolret.errors import AmbiguousToolNameError, CatalogSourceError, DuplicateToolError
from toolret.retrieval._selection import Selection

__all__ = [
    "EMPTY_SCHEMA",
    "CatalogOptions",
    "Entry",
    "Examples",
    "ExamplesSource",
    "PerTool",
    "build_catalog",
    "load_examples",
    "read_fields",
    "tools_of",
]

Examples = Mapping[str, Sequence[str]]
"""Example requests per tool name: ``{"create_record": ["add a customer", "أضف عميلا"]}``."""
ExamplesSource = Examples | str | os.PathLike[str] | None
"""An examples mapping, or the path of a JSON or TOML side file holding one."""
PerTool = str | Mapping[str, str] | None
"""One value for every tool, or a mapping from tool name to value."""
EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}

_V = TypeVar("_V")


@dataclass(frozen=True)
class Entry:
    """One tool read from a source, where it was found, and other names its keys may use."""

    where: str
    tool: Tool
    aliases: tuple[str, ...] = ()


def load_examples(path: str | os.PathLike[str]) -> dict[str, tuple[str, ...]]:
    """Read example requests from a ``.toml`` or JSON file: ``{"tool_name": ["...", ...]}``.

    In TOML, one line per tool: ``create_record = ["add a customer", "أضف عميلا"]`` (quote a
    key holding a dot or slash, such as an MCP tool's original name).
    Raises ``CatalogSourceError`` naming the file when it cannot be read or has another shape.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
        data: object = tomllib.loads(text) if file.suffix.lower() == ".toml" else json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise CatalogSourceError(f"cannot read examples from {file}: {error}") from error
    return _examples_mapping(data, str(file))


def read_fields(
    entry: Mapping[str, Any], where: str, schema_keys: Sequence[str]
) -> tuple[str, str, Mapping[str, Any] | None]:
    """The name, description and input schema of one tool definition, type-checked."""
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise CatalogSourceError(f'{where} has no "name" string; every tool needs a name')
    description = entry.get("description")
    if description is not None and not isinstance(description, str):
        raise CatalogSourceError(f"{where} ({name!r}) has a description that is not a string")
    schema = next((entry[key] for key in schema_keys if entry.get(key) is not None), None)
    if schema is not None and not isinstance(schema, Mapping):
        raise CatalogSourceError(
            f"{where} ({name!r}) has a {schema_keys[0]!r} that is not a JSON Schema object",
            tool=name,
        )
    return name, description or "", schema


class CatalogOptions(TypedDict, total=False):
    """What every tool-JSON and MCP adapter accepts besides the tools (see ``build_catalog``)."""

    core: Iterable[str]
    examples: ExamplesSource
    domain: PerTool
    category: PerTool
    keywords: Mapping[str, Sequence[str]] | None
    domain_rank: Sequence[str]
    min_description_length: int
    third_party: bool


def build_catalog(
    entries: Sequence[Entry],
    *,
    core: Iterable[str] = (),
    examples: ExamplesSource = None,
    domain: PerTool = None,
    category: PerTool = None,
    keywords: Mapping[str, Sequence[str]] | None = None,
    domain_rank: Sequence[str] = (),
    min_description_length: int = MIN_DESCRIPTION_LENGTH,
    third_party: bool = True,
    ambiguous: Mapping[str, Sequence[str]] | None = None,
) -> Catalog:
    """Attach the per-tool metadata to the entries and validate them into a ``Catalog``.

    Keys of every mapping, and ``core`` names, may be a tool's final name or one of its aliases.
    ``third_party`` marks every tool as written outside the application (``Tool.third_party``):
    a thin description or a refused input schema becomes a ``Catalog.warnings`` entry instead of
    a ``ToolDescriptionError`` or ``ToolSchemaError``; a tool an integration read from the
    user's own agent (``Tool.read_from``) is the user's, and warned about as such.
    ``ambiguous`` maps a name several tools could be known by to their final names: using it
    raises ``AmbiguousToolNameError`` naming them.
    """
    core = list(core)
    resolve: dict[str, str] = {}
    seen: dict[str, str] = {}
    for entry in entries:
        name = entry.tool.name
        if name in seen:
            raise DuplicateToolError(
                f"{seen[name]} and {entry.where} are both named {name!r}; "
                "tool names must be unique in a catalog",
                tool=name,
            )
        seen[name] = entry.where
        resolve[name] = name
        for alias in entry.aliases:
            resolve.setdefault(alias, name)
    for given in [*core, *_keys(examples), *_keys(domain), *_keys(category), *_keys(keywords)]:
        if given not in resolve and given in (ambiguous or {}):
            candidates = sorted((ambiguous or {})[given])
            raise AmbiguousToolNameError(
                f"tool {given!r} is listed by several servers ({', '.join(candidates)}); "
                "name one as server__tool",
                tool=given,
                candidates=candidates,
            )
    if examples is not None and not isinstance(examples, Mapping):
        examples = load_examples(examples)
    example_map = _per_tool(_examples_mapping(examples or {}, "examples"), resolve, "examples")
    domains = _per_tool(_uniform(domain, resolve), resolve, "domain")
    categories = _per_tool(_uniform(category, resolve), resolve, "category")
    keyword_map = _per_tool(_strings_mapping(keywords or {}, "keywords"), resolve, "keywords")
    tools = [
        dataclasses.replace(
            entry.tool,
            examples=example_map.get(entry.tool.name, entry.tool.examples),
            domain=domains.get(entry.tool.name, entry.tool.domain),
            category=categories.get(entry.tool.name, entry.tool.category),
            keywords=keyword_map.get(entry.tool.name, entry.tool.keywords),
            third_party=third_party and entry.tool.read_from is None,
        )
        for entry in entries
    ]
    return Catalog(
        tools,
        core=[resolve.get(name, name) for name in core],
        domain_rank=domain_rank,
        min_description_length=min_description_length,
    )


def _keys(value: object) -> list[str]:
    """The tool names a per-tool mapping uses (none for a single value or a file path)."""
    return [key for key in value if isinstance(key, str)] if isinstance(value, Mapping) else []


def tools_of(tools: Selection | Iterable[Tool]) -> tuple[Tool, ...]:
    """The tools of a ``Selection``, a ``Catalog`` or any iterable of ``Tool``."""
    return tuple(tools.tools if isinstance(tools, Selection) else tools)


def _per_tool(values: Mapping[str, _V], resolve: Mapping[str, str], what: str) -> dict[str, _V]:
    out: dict[str, _V] = {}
    given: dict[str, str] = {}
    for key, value in values.items():
        name = resolve.get(key)
        if name is None:
            close = difflib.get_close_matches(key, list(resolve), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise CatalogSourceError(
                f"{what} names tool {key!r}, which is not in the catalog{hint}", tool=key
            )
        if name in given:
            raise CatalogSourceError(
                f"{what} gives tool {name!r} twice, as {given[name]!r} and {key!r}; keep one",
                tool=name,
            )
        given[name] = key
        out[name] = value
    return out


def _uniform(value: PerTool, resolve: Mapping[str, str]) -> Mapping[str, str]:
    if value is None:
        return {}
    if isinstance(value, str):
        return {name: value for name in set(resolve.values())}
    return value


def _examples_mapping(data: object, where: str) -> dict[str, tuple[str, ...]]:
    mapping = _strings_mapping(data, where)
    return {name: tuple(t.strip() for t in texts if t.strip()) for name, texts in mapping.items()}


def _strings_mapping(data: object, where: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(data, Mapping):
        raise CatalogSourceError(f"{where} must map tool names to lists of strings")
    out: dict[str, tuple[str, ...]] = {}
    for name, value in data.items():
        texts = (value,) if isinstance(value, str) else value
        if not isinstance(texts, Sequence) or not all(isinstance(t, str) for t in texts):
            raise CatalogSourceError(
                f"{where}: the value for {name!r} must be a list of strings", tool=str(name)
            )
        out[str(name)] = tuple(texts)
    return out
