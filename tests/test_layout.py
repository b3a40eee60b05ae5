"""The layout a newcomer walks: no import circles, modules one can read in a sitting, and a
layout guide (``docs/layout.md``) whose tree is the folders as they are."""

from __future__ import annotations

import re

from tests.support.layout_graph import ROOT, cycles, import_graph, modules

MAX_LINES = 450


def test_no_module_imports_one_that_imports_it_back() -> None:
    assert cycles(import_graph()) == []


def test_the_graph_sees_imports_inside_functions_and_skips_type_checking() -> None:
    graph = import_graph()
    assert "toolret.store._pool" in graph["toolret.store._read"]  # a top-level import
    assert "toolret.recall._runner" in graph["toolret.cli._recall"]  # inside the command
    assert "toolret.retrieval._client" not in graph["toolret"]  # only under TYPE_CHECKING


def test_no_module_is_longer_than_one_sitting() -> None:
    long = {
        name: lines
        for name, path in modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_no_docstring_cites_a_document_outside_the_repository() -> None:
    outside = re.compile(r"DESIGN contract|seeds?/|seed 00\d|shared/DESIGN|REFERENCE\.md")
    cited = [name for name, path in modules().items() if outside.search(path.read_text("utf-8"))]
    assert cited == []


def _layout_block() -> list[str]:
    guide = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    section = guide.split("\n## The tree\n", 1)[1]
    return section.split("```", 2)[1].strip("\n").splitlines()


def _layout_folders() -> set[str]:
    """Folders the layout tree names, as paths (an indented entry sits in the one above)."""
    folders: set[str] = set()
    parent = ""
    for line in _layout_block():
        indented = line.startswith("  ")
        for entry in line.split("  ")[0 if not indented else 1].split():
            if not entry.endswith("/"):
                continue
            path = (parent + entry) if indented else entry
            folders.add(path.rstrip("/"))
            if not indented:
                parent = entry
    return folders


def test_the_layout_guide_names_every_folder_and_only_folders_that_exist() -> None:
    named = _layout_folders()
    real = {
        path.relative_to(ROOT).as_posix()
        for top in ("toolret", "evals")
        for path in (ROOT / top).iterdir()
        if path.is_dir() and ((path / "__init__.py").exists() or path.name == "migrations")
    }
    real |= {
        path.name
        for path in ROOT.iterdir()
        if path.is_dir() and not path.name.startswith((".", "_")) and path.name != "build"
        if not path.name.endswith(".egg-info") and path.name not in {"venv"}
    }
    assert real == named
