"""The Misses page in headless Chromium: the turns reported for a catalog (stored as the worker
stores them), the tools called but not bound by tool and, where the text was kept, by
language, as the console's JSON twin says."""

from __future__ import annotations

from pathlib import Path

from tests.support.browser import ARABIC, CHINESE, drive, serving
from tests.support.reported import report_misses
from tests.support.service_catalog import registration
from toolret.embedders._e5 import BundledE5Embedder
from toolret.service._catalogs import build_catalog
from toolret.service._models import CatalogRegistration
from toolret.store._vector_store import VectorStore


async def _report(database_url: str) -> None:
    """Three reported turns of ``crm``: two missing merge_records (Arabic, Chinese), one
    missing export_records, each with its text kept (TOOLRET_FEEDBACK_TEXT=1)."""
    catalog = build_catalog(CatalogRegistration.model_validate(registration()))
    embedder = BundledE5Embedder()
    turns = [(ARABIC, "merge_records"), (CHINESE, "merge_records"), (CHINESE, "export_records")]
    async with VectorStore.from_url(database_url) as store:
        await report_misses(store, catalog, embedder, turns, keep_text=True)
    await embedder.aclose()


async def test_misses_show_what_their_json_says(database_url: str, tmp_path: Path) -> None:
    with serving(database_url, tmp_path, TOOLRET_FEEDBACK_TEXT="1") as console:
        await _report(database_url)
        shown = drive("misses", tmp_path, base=console.url, catalog="crm")
        twin = console.http.get("/console/misses.json?catalog=crm").json()["detail"]
        assert shown["turns"].startswith(f"{twin['turns']} reported turns")
        assert twin["turns"] == 3
        assert [row[:3] for row in shown["rows"]] == [
            [t["tool"], str(t["misses"]), str(t["hits"])] for t in twin["tools"]
        ]
        assert [row[0] for row in shown["rows"]] == ["merge_records", "export_records"]
        assert sorted(row[0] for row in shown["languages"]) == ["ar", "zh", "zh"]
        assert len(shown["texts"]) == 3
