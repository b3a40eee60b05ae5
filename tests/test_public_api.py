"""``toolret``'s public surface: what an integrator uses, imported on first use."""

from __future__ import annotations

import subprocess
import sys

import pytest

import toolret
from toolret._tool import Role
from toolret.embedders._base import Vector


def _fresh(code: str) -> str:
    """Run ``code`` in a new interpreter (this one has imported everything already)."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.strip()


def test_import_toolret_loads_no_heavy_dependency() -> None:
    heavy = ("sqlalchemy", "asyncpg", "arq", "redis", "numpy", "google.genai", "typer", "alembic")
    loaded = _fresh(f"import sys, toolret; print(sorted(m for m in {heavy!r} if m in sys.modules))")
    assert loaded == "[]"


def test_a_public_name_imports_its_module_on_first_use() -> None:
    loaded = _fresh(
        "import sys, toolret\n"
        "before = 'toolret.retrieval._client' in sys.modules\n"
        "toolret.ToolRetrievalClient\n"
        "after = 'toolret.retrieval._client' in sys.modules\n"
        "print(before, after, 'ToolRetrievalClient' in vars(toolret))"
    )
    assert loaded == "False True True"


def test_every_public_name_resolves_and_internals_stay_out() -> None:
    for name in toolret.__all__:
        assert getattr(toolret, name) is not None, name
    assert set(toolret.__all__) <= set(dir(toolret))
    assert toolret.Role is Role
    assert toolret.Vector is Vector
    internals = {"VectorStore", "BM25Index", "tokenize", "to_payload", "local_database_url"}
    assert not internals & set(toolret.__all__)
    assert len(toolret.__all__) <= 70


def test_an_unknown_name_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="VectorStore"):
        toolret.VectorStore  # noqa: B018


def test_the_type_checkers_view_lists_exactly_the_public_names() -> None:
    """``_PUBLIC`` is the one list; the ``TYPE_CHECKING`` block repeats it for type checkers,
    name for name, from a module that holds the same object."""
    import ast
    import importlib
    from pathlib import Path

    tree = ast.parse(Path(toolret.__file__).read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    seen: dict[str, str] = {}
    for statement in block.body:
        assert isinstance(statement, ast.ImportFrom)
        assert statement.module
        for alias in statement.names:
            assert alias.asname == alias.name, f"{alias.name}: re-export it as itself"
            seen[alias.name] = statement.module
    assert set(seen) == set(toolret.__all__)
    for name, module in seen.items():
        assert getattr(importlib.import_module(module), name) is getattr(toolret, name), name


def test_the_error_names_are_the_error_modules_own_list() -> None:
    import toolret.errors

    assert set(toolret.errors.__all__) <= set(toolret.__all__)
    for name in toolret.errors.__all__:
        assert getattr(toolret, name) is getattr(toolret.errors, name), name
    assert toolret.AmbiguousToolNameError.__mro__[1] is toolret.CatalogError
    assert issubclass(toolret.StoreUnavailableError, toolret.StoreError)


def test_every_error_the_docs_name_is_importable_from_toolret() -> None:
    """The README and the guides tell users which errors to expect; each is a public name.
    (The TypeScript guide names the npm client's errors, not these.)"""
    import re
    from pathlib import Path

    repo = Path(toolret.__file__).resolve().parent.parent
    documents = [repo / "README.md", *(repo / "docs").glob("*.md")]
    named = {
        name
        for document in documents
        if document.name != "typescript.md"
        for name in re.findall(r"\b[A-Z]\w+Error\b", document.read_text("utf-8"))
    }
    assert named
    assert named <= set(toolret.__all__)


def test_integration_helpers_come_from_their_own_module_and_converters_sit_together() -> None:
    """An integration is imported from one place, its own module, which exports every helper it
    has; none is a top-level name. Each provider's tool converter is, from ``adapters``."""
    import importlib

    from toolret import _LAZY

    assert not [name for name, module in _LAZY.items() if module.startswith("toolret.integrations")]
    for provider in ("anthropic", "openai", "gemini", "langchain"):
        module = importlib.import_module(f"toolret.integrations.{provider}")
        assert all(getattr(module, name) is not None for name in module.__all__), provider
    converters = {name: module for name, module in _LAZY.items() if name.startswith("to_")}
    providers = ("to_anthropic", "to_gemini", "to_openai")
    assert converters == dict.fromkeys(providers, "toolret.adapters")
    gemini = importlib.import_module("toolret.integrations.gemini")
    assert gemini.to_gemini is toolret.to_gemini
