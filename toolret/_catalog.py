"""The catalog: an ordered, validated set of tools.

Tools are ordered by domain rank (stable within a domain), so any subset comes out
domain-grouped and byte-stable. Bad input fails here, when the catalog is built, never at
request time.

Whose tool it is decides what a fault its author must fix costs. A tool the application did not
write (``Tool.third_party``: an MCP server's listing, provider tool JSON), or that an
integration read from the user's own agent (``Tool.read_from``), is kept with a thin
description or an input schema model providers refuse (``toolret._input_schema``); the catalog
lists it in ``warnings`` and logs one summary line per kind (``toolret._warnings``) on the
``toolret.catalog`` logger (quiet it there without hiding an outage, which
``toolret.selection`` and ``toolret.worker`` report). The application's own tool is refused for
either. Invalid names, duplicates and unsafe characters are refused whoever wrote the tool.

Domains are ordered as ``domain_rank`` says, and otherwise in the order they first appear.

``Catalog.only(allowed)`` cuts a catalog to the tools a caller may use (names or ``server__*``
patterns) before anything is ranked. The cut keeps the corpus of the catalog it was cut from
(``whole``): same corpus hash, same vectors, nothing to index.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from functools import cached_property
from typing import Self

from toolret._input_schema import schema_problem
from toolret._tool import DEFAULT_TEMPLATE, Document, Role, Tool
from toolret._warnings import CatalogWarning, log_warnings_once, schema_warning, thin_warning
from toolret.errors import (
    AllowedToolsError,
    DuplicateToolError,
    InvalidToolNameError,
    ToolDescriptionError,
    ToolSchemaError,
    ToolTextError,
    UnknownCoreToolError,
)

__all__ = ["MIN_DESCRIPTION_LENGTH", "Catalog", "CatalogWarning", "allowed_patterns"]

MIN_DESCRIPTION_LENGTH = 40
VALID_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
UNSAFE_CHARACTER = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
"""Characters a tool's text may not hold: NUL (Postgres text cannot store it; C APIs end the
string there), lone surrogates (not Unicode: no UTF-8 encoding exists, so neither Postgres nor a
JSON API can take them), and the other C0 and C1 control characters and DEL (invisible; in a
description they come from terminal colour codes or a file decoded with the wrong encoding).
Tab, newline and carriage return are text."""
ALLOWED_ENTRY = re.compile(r"^(?:[A-Za-z0-9_-]{1,64}|[A-Za-z0-9_-]{0,63}\*)$")
"""An ``allowed`` entry: a tool name, or a prefix followed by ``*`` (``github__*``; ``*`` alone
allows every tool)."""
KEPT_CUTS = 64
"""Cuts (``Catalog.only``) a catalog keeps built, least recently used beyond that rebuilt: a
cut's lexical index and ranking query are built once, like its catalog's."""


class Catalog:
    """An ordered, validated, immutable set of tools.

    ``core`` names tools that are always bound, in addition to tools built with ``core=True``.
    ``domain_rank`` orders domains; domains it does not name follow, in the order they first
    appear (by default every domain is ordered so). Raises a ``CatalogError`` subclass naming
    the tool and what to fix. A third-party tool's thin description or refused input schema is
    not raised but listed in ``warnings``, and the catalog logs one line per kind
    (``toolret.catalog``).
    """

    def __init__(
        self,
        tools: Iterable[Tool],
        *,
        core: Iterable[str] = (),
        domain_rank: Sequence[str] = (),
        min_description_length: int = MIN_DESCRIPTION_LENGTH,
    ) -> None:
        given = list(tools)
        seen: set[str] = set()
        warnings: list[CatalogWarning] = []
        for tool in given:
            warnings += _validate(tool, seen, min_description_length)
        if warnings:
            log_warnings_once(warnings, given)
        core_names = set(core)
        unknown = sorted(core_names - seen)
        if unknown:
            raise UnknownCoreToolError(
                f"core tool {unknown[0]!r} is not in the catalog; add it or remove it from core",
                tool=unknown[0],
            )
        given = [dataclasses.replace(t, core=True) if t.name in core_names else t for t in given]
        order = _first_seen([*domain_rank, *(tool.domain for tool in given)])
        rank = {domain.casefold(): i for i, domain in enumerate(order)}
        self.domain_rank: tuple[str, ...] = order
        """The domain order: ``domain_rank`` as given, then the others as they first appear."""
        self.min_description_length = min_description_length
        self.warnings: tuple[CatalogWarning, ...] = tuple(warnings)
        """What is wrong with third-party tools that were kept, in the order given."""
        self.tools: tuple[Tool, ...] = tuple(sorted(given, key=lambda t: rank[t.domain.casefold()]))
        self._position = {tool.name: i for i, tool in enumerate(self.tools)}
        self.whole: Catalog = self
        """The catalog whose corpus this one ranks from: itself, or the one it was cut from."""
        self.allowed: tuple[str, ...] | None = None
        """The ``allowed`` patterns this catalog was cut by (``only``); None when uncut."""
        self._cuts: OrderedDict[tuple[str, ...], Catalog] = OrderedDict()

    def only(self, allowed: Iterable[str] | None) -> Self:
        """The tools that ``allowed`` names, core ones included, in catalog order.

        An entry is a tool name or a prefix pattern (``github__*``: every tool of that MCP
        server; ``*``: every tool); names of tools the catalog lacks are ignored, so one list
        can serve several catalogs. ``None`` is every tool (this catalog). Cutting a cut
        intersects the two lists: a caller can narrow what it was allowed, never widen it.

        The cut ranks from this catalog's corpus (``whole``, ``corpus_hash``): no new corpus,
        nothing embedded. Its lexical statistics are its own, so a selection over the cut is
        the selection over a catalog of just those tools. Raises ``AllowedToolsError`` for an
        entry that is neither a name nor a prefix pattern.
        """
        if allowed is None:
            return self
        patterns = allowed_patterns(allowed)
        key = tuple(sorted(set(patterns)))
        cut = self._cuts.get(key)
        if cut is not None:
            self._cuts.move_to_end(key)
            return cut  # type: ignore[return-value]  # cuts are built from self's type
        names = [p for p in key if not p.endswith("*")]
        prefixes = tuple(p[:-1] for p in key if p.endswith("*"))
        exact = set(names)
        kept = tuple(t for t in self.tools if t.name in exact or t.name.startswith(prefixes))
        cut = self._cut(kept, key)
        self._cuts[key] = cut
        if len(self._cuts) > KEPT_CUTS:
            self._cuts.popitem(last=False)
        return cut

    def _cut(self, tools: tuple[Tool, ...], allowed: tuple[str, ...]) -> Self:
        """A catalog of ``tools`` (already validated, in order) over this one's corpus."""
        cut = object.__new__(type(self))
        cut.domain_rank = self.domain_rank
        cut.min_description_length = self.min_description_length
        names = {tool.name for tool in tools}
        cut.warnings = tuple(w for w in self.warnings if w.tool in names)
        cut.tools = tools
        cut._position = {tool.name: i for i, tool in enumerate(tools)}
        cut.whole = self.whole
        if self.allowed is not None:  # a cut of a cut: both lists apply
            allowed = ("&", *self.allowed, "&", *allowed)
        cut.allowed = allowed
        cut._cuts = OrderedDict()
        return cut

    def __len__(self) -> int:
        return len(self.tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools)

    def __contains__(self, name: object) -> bool:
        return name in self._position

    def __getitem__(self, name: str) -> Tool:
        return self.tools[self._position[name]]

    def __repr__(self) -> str:
        return f"<Catalog {len(self.tools)} tools, {len(self.core)} core>"

    @cached_property
    def names(self) -> list[str]:
        """Every tool name, in catalog order."""
        return [tool.name for tool in self.tools]

    @cached_property
    def core(self) -> tuple[Tool, ...]:
        """The always-bound tools, in catalog order."""
        return tuple(tool for tool in self.tools if tool.core)

    @cached_property
    def candidates(self) -> tuple[Tool, ...]:
        """The tools retrieval chooses among (every non-core tool), in catalog order."""
        return tuple(tool for tool in self.tools if not tool.core)

    def position(self, name: str) -> int:
        """A tool's index in catalog order."""
        return self._position[name]

    def subset(self, names: Iterable[str]) -> tuple[Tool, ...]:
        """The named tools that are in this catalog, in catalog order (duplicates dropped)."""
        positions = {self._position[name] for name in names if name in self._position}
        return tuple(self.tools[i] for i in sorted(positions))

    def documents(
        self, example_role: Role = "query", template: str = DEFAULT_TEMPLATE
    ) -> list[tuple[str, Document]]:
        """Every (tool name, document) pair, in catalog order: descriptions and examples."""
        return [
            (tool.name, doc)
            for tool in self.tools
            for doc in tool.documents(example_role, template)
        ]

    def corpus_hash(
        self, model_id: str, example_role: Role = "query", template: str = DEFAULT_TEMPLATE
    ) -> str:
        """A hash of the embedding model and every tool's retrieval documents.

        It changes when a name, description, keyword, category, example, the model or the
        document template changes, and only then: reordering tools or changing which are core
        leaves it as it is. (The template enters through the documents' keys, so a template
        that writes the same texts gives the same hash.) A cut (``only``) has the hash of the
        catalog it was cut from: it ranks from that corpus.
        """
        if self.whole is not self:
            return self.whole.corpus_hash(model_id, example_role, template)
        key = (model_id, example_role, template)
        cached = self._corpus_hashes.get(key)
        if cached is None:
            digest = hashlib.sha256(f"{model_id}\x00{example_role}".encode())
            documents = self.documents(example_role, template)
            for name, doc_key in sorted((n, d.key) for n, d in documents):
                digest.update(f"\x00{name}\x00{doc_key}".encode())
            cached = self._corpus_hashes[key] = digest.hexdigest()
        return cached

    @cached_property
    def _corpus_hashes(self) -> dict[tuple[str, Role, str], str]:
        return {}


def allowed_patterns(allowed: Iterable[str]) -> list[str]:
    """``allowed`` as a list, each entry checked: a tool name or a prefix pattern (``x__*``).
    Raises ``AllowedToolsError`` naming the first entry that is neither."""
    if isinstance(allowed, str):
        raise AllowedToolsError(
            f"allowed is a list of tool names or patterns, not one string ({allowed!r}): "
            f"pass [{allowed!r}]",
            pattern=allowed,
        )
    patterns = list(allowed)
    for pattern in patterns:
        if not isinstance(pattern, str) or not ALLOWED_ENTRY.match(pattern):
            raise AllowedToolsError(
                f"allowed entry {pattern!r} is neither a tool name (1-64 characters of "
                "[A-Za-z0-9_-]) nor a prefix pattern ending in '*' (github__*: every tool of "
                "that server)",
                pattern=pattern,
            )
    return patterns


def _first_seen(domains: Iterable[str]) -> tuple[str, ...]:
    """Each domain once (compared without case), where it first appears."""
    kept: dict[str, str] = {}
    for domain in domains:
        kept.setdefault(domain.casefold(), domain)
    return tuple(kept.values())


def _validate(tool: Tool, seen: set[str], min_description_length: int) -> list[CatalogWarning]:
    """Raise for what makes ``tool`` unusable; return the warnings for a third-party tool's
    thin description or refused input schema."""
    _check_characters(tool)
    if not VALID_NAME.match(tool.name):
        raise InvalidToolNameError(
            f"tool name {tool.name!r} is invalid: model APIs accept 1-64 characters of "
            "[A-Za-z0-9_-]; rename the tool",
            tool=tool.name,
        )
    if tool.name in seen:
        raise DuplicateToolError(
            f"tool {tool.name!r} is defined twice; tool names must be unique in a catalog",
            tool=tool.name,
        )
    seen.add(tool.name)
    warnings = []
    length = len(tool.description.strip())
    if length < min_description_length:
        what = "an empty" if length == 0 else f"a thin ({length}-character)"
        if not tool.kept_when_flawed:
            raise ToolDescriptionError(
                f"tool {tool.name!r} has {what} description; write at least "
                f"{min_description_length} characters saying what it does and when to use it, "
                "for a reader who does not know the tool exists",
                tool=tool.name,
            )
        warnings.append(thin_warning(tool, what, min_description_length))
    problem = None if tool.input_schema is None else schema_problem(tool.input_schema)
    if problem is not None:
        where = f"tool {tool.name!r}, input schema at {problem.pointer or '/'}: {problem.message}"
        if not tool.kept_when_flawed:
            raise ToolSchemaError(
                f"{where}; fix the schema where the tool is defined",
                tool=tool.name,
                pointer=problem.pointer,
            )
        warnings.append(schema_warning(tool, where, problem.pointer))
    return warnings


def _check_characters(tool: Tool) -> None:
    """Raise ``ToolTextError`` for the first unsafe character in a text of ``tool`` that is
    stored or embedded: its name, description, keywords, category and examples."""
    fields: list[tuple[str, str, str]] = [
        ("name", "name", tool.name),
        ("description", "description", tool.description),
        ("category", "category", tool.category),
    ]
    fields += [("keywords", f"keyword {i}", text) for i, text in enumerate(tool.keywords, 1)]
    fields += [("examples", f"example {i}", text) for i, text in enumerate(tool.examples, 1)]
    for field, where, text in fields:
        match = UNSAFE_CHARACTER.search(text)
        if match is None:
            continue
        character = match[0]
        code = f"U+{ord(character):04X}"
        if character == "\x00":
            what, fix = "a NUL character", "Postgres text cannot store it; remove it"
        elif "\ud800" <= character <= "\udfff":
            what = "a lone surrogate"
            fix = (
                "it is not Unicode and cannot be encoded as UTF-8; read the source as UTF-8 "
                "(errors='strict') or remove it"
            )
        elif "\x80" <= character <= "\x9f":
            what = "a C1 control character"
            fix = (
                "it usually means text decoded with the wrong encoding; decode the source as "
                "UTF-8 or remove it"
            )
        else:
            what = "a control character"
            fix = (
                "it is invisible to a reader and to the model (often a terminal colour code); "
                "remove it"
            )
        raise ToolTextError(
            f"tool {tool.name!r} has {what} ({code}) in its {where} at position "
            f"{match.start()}: {fix}",
            tool=tool.name,
            field=field,
            character=character,
        )
