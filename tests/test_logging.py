"""Loggers by concern: a fleet's thin tools, an outage and the worker each have their own.

``toolret.catalog`` says once per set of thin tools what was kept with a thin description;
``toolret.selection`` says once per change of cause that selections fall open, and once that
they narrow again; ``toolret.worker`` is the worker's (tests/test_worker_outages.py). Quieting
the catalog's logger must leave outages audible.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Awaitable, Callable

import pytest

from tests.support.tools import numbered_catalog
from toolret import EmbedderError, StoreError, catalog_from_mcp
from toolret.retrieval._selection import FailOpenLog, Ranking, Reason, select_guarded

CATALOG = numbered_catalog(20)
FLEET = {
    f"server{i}": [{"name": f"tool{j}", "description": "Get it"} for j in range(4)]
    for i in range(3)
}


async def _narrowing(message: str) -> Ranking:
    return Ranking({name: 1.0 - i / 100 for i, name in enumerate(CATALOG.names)})


def _failing(error: Exception) -> Callable[[str], Awaitable[Ranking]]:
    async def rank(message: str) -> Ranking:
        raise error

    return rank


def _lines(caplog: pytest.LogCaptureFixture, logger: str) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == logger]


async def test_fail_open_is_logged_once_per_change_of_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="toolret.selection")
    state = FailOpenLog()  # each retriever keeps one
    steps = [
        *[_failing(StoreError("connection refused"))] * 5,
        *[_failing(TimeoutError())] * 3,
        *[_failing(StoreError("connection refused"))] * 2,
        *[_narrowing] * 4,
        _failing(EmbedderError("503")),
    ]
    reasons = [
        (await select_guarded(CATALOG, "hi", rank, k=3, fail_open_log=state)).reason
        for rank in steps
    ]
    assert reasons.count(Reason.STORE_ERROR) == 7
    lines = _lines(caplog, "toolret.selection")
    assert [(level, text.split(":")[1].strip()) for level, text in lines] == [
        (logging.WARNING, "sending the full roster (store_error)"),
        (logging.WARNING, "sending the full roster (timeout)"),
        (logging.WARNING, "sending the full roster (store_error)"),
        (logging.INFO, "selections narrow again (after store_error)"),
        (logging.WARNING, "sending the full roster (embedder_error)"),
    ]
    assert "connection refused" in lines[0][1]


async def test_quieting_catalog_warnings_leaves_outages_audible(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """What the deployment guide's logging snippet does, checked: a fleet's thin tools go
    unlogged while a fail-open still reaches the log."""
    catalog_logger = logging.getLogger("toolret.catalog")
    try:
        catalog_logger.setLevel(logging.ERROR)
        with caplog.at_level(logging.WARNING, logger="toolret"):
            catalog = catalog_from_mcp(FLEET)
            await select_guarded(
                CATALOG, "hi", _failing(StoreError("gone")), k=3, fail_open_log=FailOpenLog()
            )
    finally:
        catalog_logger.setLevel(logging.NOTSET)
    assert len(catalog.warnings) == 12
    assert _lines(caplog, "toolret.catalog") == []
    assert len(_lines(caplog, "toolret.selection")) == 1


def test_an_application_logging_at_info_gets_no_debug_line_from_bm25s() -> None:
    """bm25s sets its own logger to DEBUG when imported: an application that configures the
    root logger at INFO (the gateway, any service) would print a line per index built."""
    code = (
        "import logging\n"
        "logging.basicConfig(level=logging.INFO)\n"
        "from toolret.demo.roster import catalog\n"
        "from toolret.retrieval._lexical import catalog_index\n"
        "print(len(catalog_index(catalog).search('delete a record', 3)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "3"
    assert "bm25s" not in done.stderr, done.stderr
