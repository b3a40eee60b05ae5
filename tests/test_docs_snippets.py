"""The Python snippets of the README and the guides in ``docs/``, run as written against the
embedded defaults.

Each ```python block runs in a fresh interpreter from an empty directory, with the bundled
model (no key) and the run's embedded Postgres as ``DATABASE_URL``; a block that defines an
async entry point is then driven once, as a service would. A block that talks to a model
provider says so on its first line (``# talks to ...``); ``tests/test_docs_providers.py`` runs
it as written against a local server as strict as that provider's API; here it is compiled only.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SNIPPETS = [
    snippet
    for document in DOCUMENTS
    for snippet in re.findall(r"```python\n(.*?)```", document.read_text("utf-8"), re.DOTALL)
]

DRIVERS = {
    "async def stable_turn": (
        "import asyncio\n"
        "from toolret import InMemoryRetriever\n"
        "from toolret.demo.roster import catalog as units_catalog\n"
        "async def main():\n"
        "    session = {}\n"
        "    async with InMemoryRetriever() as retriever:\n"
        "        await retriever.index(units_catalog)\n"
        "        first = await stable_turn(retriever, session, 'Delete the duplicate contact')\n"
        "        second = await stable_turn(retriever, session, 'أضف مهمة للاتصال بالعميل غدا')\n"
        "    assert [t.name for t in second[0]][: len(first[0])] == [t.name for t in first[0]]\n"
        "    assert first[3] > 0\n"
        "    print(len(session['tools']))\n"
        "asyncio.run(main())\n"
    ),
    'logging.getLogger("toolret.catalog")': (
        "from toolret import catalog_from_mcp\n"
        "from toolret.retrieval._selection import FailOpenLog, Reason\n"
        "seen = []\n"
        "class Keep(logging.Handler):\n"
        "    def emit(self, record): seen.append(record.name)\n"
        "logging.getLogger().addHandler(Keep())\n"
        "thin = [{'name': f't{i}', 'description': 'Get'} for i in range(3)]\n"
        "fleet = catalog_from_mcp({'s': thin})\n"
        "FailOpenLog().failed(Reason.STORE_ERROR, OSError('connection refused'))\n"
        "assert seen == ['toolret.selection'], seen  # the outage, not the thin tools\n"
        "print(len(fleet.warnings))\n"
    ),
    "units_catalog = default_registry": (
        "assert units_catalog.names == ['find_records', 'delete_record'], units_catalog.names\n"
        "assert [t.name for t in units_catalog.core] == ['find_records']\n"
        "print(len(units_catalog))\n"
    ),
}


OUTPUTS = {
    "selection = await retriever.select(catalog,": r"narrowed \[.*'delete_record'.*\]",
    "print(fleet.warnings[0].kind": (
        r"invalid_schema /properties/title/type\nopen_ticket /properties/title/type"
    ),
    "local = OpenAIEmbedder(": r"localhost:11434/nomic-embed-text@768\+[0-9a-f]{8} search_query:",
}
"""Blocks that print their own result: what it must look like (any other prints a count)."""


def test_the_docs_have_the_snippets_this_test_drives() -> None:
    for marker in [*DRIVERS, *OUTPUTS]:
        assert sum(marker in snippet for snippet in SNIPPETS) == 1, marker


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.splitlines()[0][:40])
def test_a_docs_snippet_runs(snippet: str, database_url: str, tmp_path: Path) -> None:
    if snippet.startswith("# talks to "):
        flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        assert compile(snippet, "snippet", "exec", flags=flags)
        assert "tests/test_docs_providers.py" in snippet.splitlines()[0]
        return
    code = snippet + "".join(driver for marker, driver in DRIVERS.items() if marker in snippet)
    env = {k: v for k, v in os.environ.items() if k not in ("GEMINI_API_KEY", "REDIS_URL")}
    env |= {"DATABASE_URL": database_url, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    shape = next((shape for marker, shape in OUTPUTS.items() if marker in snippet), r"\d+")
    assert re.fullmatch(shape, done.stdout.strip()), done.stdout
