"""Benchmark sets: a public benchmark folder, or one half of the roster's cases, in one shape.

A benchmark folder (``../shared/benchmarks/README.md``) holds:

- ``tools.jsonl``: one tool a line, ``{"name", "description"}`` (``keywords`` and ``category``
  optional);
- ``cases.jsonl``: one message a line, ``{"query", "expected": [tool, ...], "lang"}``;
- ``examples.json`` (optional): ``{tool: {lang: [example request, ...]}}``.

or, for a fleet of MCP servers, ``servers.json`` (``{server: [tools/list entries]}``) in place of
``tools.jsonl``: read through ``catalog_from_mcp``, as a user's fleet arrives, its cases naming
tools ``server__tool``.

The data is read where it lies, at run time: it is not ours, and a clone of this repository does
not carry it. A folder's tools are taken as written: descriptions shorter than the library's
minimum are ranked, not refused (``min_description_length=1``), as for any catalog we did not
write. ``evals.recall.roster_sets`` gives the roster's two halves the same shape.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolret._catalog import Catalog
from toolret._tool import Tool

__all__ = ["BenchCase", "BenchSet", "BenchmarkError", "load_benchmark"]


class BenchmarkError(ValueError):
    """A benchmark folder that cannot be read: says which file and line, and what is wrong."""


@dataclass(frozen=True)
class BenchCase:
    """One message, its language, and the tools it needs."""

    query: str
    expected: tuple[str, ...]
    language: str


@dataclass(frozen=True)
class BenchSet:
    """Tools (descriptions only), cases, and example requests per tool and language.

    ``tuning`` says whether choices may be fitted to it (the public sets, the roster's tuning
    half) or it is only reported (the roster's held-back half); ``label``, when given, is how
    the report names a set that is only reported (the roster's fresh held-back sets).
    """

    name: str
    tools: tuple[Tool, ...]
    cases: tuple[BenchCase, ...]
    examples: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    core: tuple[str, ...] = ()
    tuning: bool = True
    label: str = ""

    @property
    def kind(self) -> str:
        """How the report labels the set: ``tuning``, ``held-back``, or its ``label``."""
        return "tuning" if self.tuning else self.label or "held-back"

    @property
    def languages(self) -> tuple[str, ...]:
        """The cases' languages, English first, then in order of appearance."""
        seen = list(dict.fromkeys(case.language for case in self.cases))
        return tuple(sorted(seen, key=lambda language: (language != "en", seen.index(language))))

    @property
    def example_flags(self) -> tuple[bool, ...]:
        """With and without examples, or only without when the set has none."""
        return (True, False) if self.examples else (False,)

    def catalog(self, *, examples: bool) -> Catalog:
        """The tools as a catalog, each with its examples in every language, or with none."""
        tools = [
            dataclasses.replace(tool, examples=self._examples_of(tool.name) if examples else ())
            for tool in self.tools
        ]
        return Catalog(tools, core=self.core, min_description_length=1)

    def cases_in(self, language: str) -> tuple[BenchCase, ...]:
        return tuple(case for case in self.cases if case.language == language)

    def _examples_of(self, name: str) -> tuple[str, ...]:
        return tuple(text for texts in self.examples.get(name, {}).values() for text in texts)


def load_benchmark(folder: Path | str) -> BenchSet:
    """Read a benchmark folder; raises ``BenchmarkError`` naming what is wrong."""
    root = Path(folder)
    listed = (root / "tools.jsonl").is_file() or (root / "servers.json").is_file()
    if not listed or not (root / "cases.jsonl").is_file():
        raise BenchmarkError(
            f"{root} needs tools.jsonl (or servers.json) and cases.jsonl (examples.json optional)"
        )
    tools = _servers(root / "servers.json") if (root / "servers.json").is_file() else _tools(root)
    names = {tool.name for tool in tools}
    cases = []
    for path, line, row in _jsonl(root / "cases.jsonl"):
        expected = tuple(_field(row, "expected", list, path, line))
        unknown = [name for name in expected if name not in names]
        if not expected or unknown:
            raise BenchmarkError(f"{path}:{line}: expected tools {unknown or '[]'} are not tools")
        query = _field(row, "query", str, path, line)
        cases.append(BenchCase(query, expected, _field(row, "lang", str, path, line)))
    examples: dict[str, dict[str, tuple[str, ...]]] = {}
    if (root / "examples.json").is_file():
        raw = json.loads((root / "examples.json").read_text(encoding="utf-8"))
        for name, by_language in raw.items():
            if name not in names:
                raise BenchmarkError(f"{root / 'examples.json'}: {name!r} is not a tool")
            examples[name] = {lang: tuple(texts) for lang, texts in by_language.items()}
    return BenchSet(root.name, tools, tuple(cases), examples)


def _tools(root: Path) -> tuple[Tool, ...]:
    return tuple(
        Tool(
            name=_field(row, "name", str, path, line),
            description=_field(row, "description", str, path, line),
            keywords=tuple(row.get("keywords", ())),
            category=str(row.get("category", "")),
        )
        for path, line, row in _jsonl(root / "tools.jsonl")
    )


def _servers(path: Path) -> tuple[Tool, ...]:
    """An MCP fleet's tools, built by ``catalog_from_mcp`` as a user's fleet is (with any
    description length, as for every benchmark folder)."""
    from toolret.adapters._mcp import catalog_from_mcp
    from toolret.errors import CatalogError

    try:
        servers = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise BenchmarkError(f"{path}: not JSON ({error})") from error
    try:
        return catalog_from_mcp(servers, min_description_length=1).tools
    except CatalogError as error:
        raise BenchmarkError(f"{path}: {error}") from error


def _jsonl(path: Path) -> list[tuple[Path, int, dict[str, Any]]]:
    rows = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as error:
            raise BenchmarkError(f"{path}:{number}: not JSON ({error})") from error
        if not isinstance(row, dict):
            raise BenchmarkError(f"{path}:{number}: expected an object")
        rows.append((path, number, row))
    return rows


def _field(row: Mapping[str, Any], key: str, kind: type, path: Path, line: int) -> Any:
    value = row.get(key)
    if not isinstance(value, kind):
        raise BenchmarkError(f"{path}:{line}: {key!r} must be a {kind.__name__}")
    return value
