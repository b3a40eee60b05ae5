"""The sparse pass beside the dense one (``TOOLRET_MODEL_THREADS=2``): the same selection as
when they run in turn, the passes observed side by side (not timed), and the setting checked."""

from __future__ import annotations

import threading

import pytest

from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder, InMemoryRetriever, Mode
from toolret._settings import Settings, make_embedder
from toolret.embedders._e5 import _share_cores
from toolret.embedders._model_thread import ModelThread, Priority
from toolret.errors import ConfigurationError
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._sparse import sparse_weight

BUDGET = 60.0
"""Generous: these tests are about what is selected, not the speed of a loaded machine."""
WAIT = 20.0
"""Seconds a model call waits for the other pass to start before the test fails."""
SENT = (
    "احذف جهة الاتصال المكررة من قائمة العملاء في النظام اليوم",
    "Yarın için müşteriyi arama görevi oluştur",
)
"""Messages the gate sends on the English CRM catalog, long enough for the sparse weight (it
follows a message's length): a dense and a sparse pass each."""
UNSENT = ("export the contacts to a csv file",)


class Meeting:
    """``on_job``: while ``armed``, each model call waits until the other has started too, so a
    selection's two passes finish only if they run at the same time."""

    def __init__(self) -> None:
        self.armed: threading.Barrier | None = None

    def __call__(self, priority: Priority) -> None:
        if self.armed is not None:
            self.armed.wait()


async def test_the_overlapped_passes_select_what_the_passes_in_turn_select(
    database_url: str,
) -> None:
    catalog = crm_catalog()
    meeting = Meeting()
    two = ModelThread("test-overlap", threads=2, on_job=meeting, on_call=_share_cores)
    overlapped = BundledE5Embedder(sparse=True, thread=two)
    in_turn = BundledE5Embedder(sparse=True)
    for message in SENT:
        assert sparse_weight(catalog, message, overlapped.profile) > 0
    for message in UNSENT:
        assert sparse_weight(catalog, message, overlapped.profile) == 0
    async with (
        InMemoryRetriever(in_turn, k=3, time_budget=BUDGET) as want_memory,
        InMemoryRetriever(overlapped, k=3, time_budget=BUDGET) as memory,
        ToolRetrievalClient(database_url, embedder=in_turn, k=3, time_budget=BUDGET) as want,
        ToolRetrievalClient(
            database_url, embedder=overlapped, k=3, time_budget=BUDGET, reuse=0
        ) as client,
    ):
        for retriever in (want_memory, memory, want, client):
            await retriever.index(catalog)
        pairs = ((want_memory, memory), (want, client))
        for message in (*SENT, *UNSENT):
            for expected, retriever in pairs:
                wanted = await expected.select(catalog, message)
                meeting.armed = threading.Barrier(2, timeout=WAIT) if message in SENT else None
                got = await retriever.select(catalog, message)
                meeting.armed = None
                assert got.mode is Mode.NARROWED, (message, got.reason)
                assert got.names == wanted.names, message
                assert got.scores == pytest.approx(wanted.scores, abs=1e-5)
                sent = any("sparse" in parts for parts in got.signals.values())
                assert sent == (message in SENT)


def test_the_model_threads_setting_is_a_whole_number_of_at_least_one() -> None:
    assert Settings().model_threads == 1
    embedder = make_embedder(Settings(embedder="bundled", model_threads=2))
    assert isinstance(embedder, BundledE5Embedder)
    assert embedder._thread.threads == 2
    for bad in ("0", "-1", "two", "1.5"):
        with pytest.raises(ConfigurationError, match="TOOLRET_MODEL_THREADS"):
            Settings(model_threads=bad)
    for threads in (0, -2, 1.5, True):
        with pytest.raises(ConfigurationError, match=r"at least 1.*TOOLRET_MODEL_THREADS"):
            BundledE5Embedder(threads=threads)  # type: ignore[arg-type]
