"""The studies' memo of vectors: what one run saves, the next loads and does not compute
again, with or without sparse vectors (a study that never asks for them saves none)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.support.embedders import CountingEmbedder, SparseCountingEmbedder
from toolret.recall._memo import MemoEmbedder

MESSAGE = "delete the duplicate contact"
TEXTS = ["احذف جهة الاتصال المكررة", "Yarın için bir görev oluştur"]


async def test_a_memo_without_sparse_vectors_loads(tmp_path: Path) -> None:
    path = tmp_path / "memo.npz"
    first = MemoEmbedder(CountingEmbedder())
    try:
        vector = await first.embed_query(MESSAGE)
        first.save(path)
    finally:
        await first.aclose()
    counting = CountingEmbedder()
    second = MemoEmbedder(counting)
    try:
        assert second.load(path) == 1
        assert np.array_equal(await second.embed_query(MESSAGE), vector)
    finally:
        await second.aclose()
    assert counting.queries == [], "loaded, not embedded again"


async def test_a_memo_keeps_sparse_vectors_across_runs(tmp_path: Path) -> None:
    path = tmp_path / "memo.npz"
    first = MemoEmbedder(SparseCountingEmbedder())
    try:
        vectors = await first.embed_sparse(TEXTS, "query")
        first.save(path)
    finally:
        await first.aclose()
    counting = SparseCountingEmbedder()
    second = MemoEmbedder(counting)
    try:
        second.load(path)
        loaded = await second.embed_sparse(TEXTS, "query")
    finally:
        await second.aclose()
    assert counting.sparse_texts == [], "loaded, not embedded again"
    for before, after in zip(vectors, loaded, strict=True):
        assert after.dimension == before.dimension
        assert np.array_equal(after.indices, before.indices)
        assert np.array_equal(after.values, before.values)
