"""``evals.studies.language_shift``: the per-language means are made from half A's messages
alone (half B must never feed a mean), and the shift moves only a message written in another
language than the catalog's, toward the catalog's language, with the real model."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from evals.studies.language_shift import language_means, shift_queries
from tests.support.embedders import CountingEmbedder
from toolret.recall._data import BenchCase, BenchSet
from toolret.recall._halves import half_of
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._scoring import Scorer

ENGLISH = ["set an alarm for {} am", "play song number {}", "what is the weather in {} days"]
TURKISH = ["sabah {} için alarm kur", "{} numaralı şarkıyı çal", "{} gün sonra hava nasıl olacak"]


def _bench() -> BenchSet:
    """25 scenarios in English and Turkish (the same tools): A holds 0-9 and 20-24, B 10-19."""
    cases = [
        BenchCase(texts[i % 3].format(i + 1), (f"tool_{i % 3}",), language)
        for language, texts in (("en", ENGLISH), ("tr", TURKISH))
        for i in range(25)
    ]
    return BenchSet("toy", (), tuple(cases))


def assert_half_a_alone(counting: CountingEmbedder, bench: BenchSet) -> set[str]:
    """Every half-A message of ``bench`` was embedded, and nothing else; half B's messages."""
    half_a = {case.query for case in half_of(bench, "A").cases}
    half_b = {case.query for case in half_of(bench, "B").cases}
    assert set(counting.queries) == half_a, "every half-A message embedded, nothing else"
    assert not set(counting.queries) & half_b
    return half_b


async def query_vectors(memo: MemoEmbedder, texts: list[str]) -> NDArray[np.float64]:
    """The texts' query vectors, one row each, as the studies compute with them."""
    return np.stack([await memo.embed_query(t) for t in texts]).astype(np.float64)


async def test_language_means_read_half_a_alone() -> None:
    bench = _bench()
    counting = CountingEmbedder()
    memo = MemoEmbedder(counting)
    try:
        means, fed = await language_means(Scorer(memo), [bench])
        assert_half_a_alone(counting, bench)
        assert fed == {("en", "toy"): 15, ("tr", "toy"): 15}
        english = [c.query for c in half_of(bench, "A").cases if c.language == "en"]
        vectors = np.stack([await memo.embed_query(q) for q in english]).astype(np.float64)
        assert np.allclose(means["en"], vectors.mean(axis=0))
    finally:
        await memo.aclose()


async def test_the_shift_moves_only_other_languages_toward_the_catalog_s() -> None:
    memo = MemoEmbedder(CountingEmbedder())
    try:
        means, _ = await language_means(Scorer(memo), [_bench()])
        texts = ["wecke mich um sieben", "sabah yedide alarm kur", "wake me at seven"]
        queries = await query_vectors(memo, texts)
    finally:
        await memo.aclose()
    languages = ["de", "tr", "en"]  # no German mean: German stays where it was
    moved, which = shift_queries(queries, languages, "en", means, 1.0)
    assert which.tolist() == [False, True, False]
    assert np.array_equal(moved[0], queries[0])
    assert np.array_equal(moved[2], queries[2]), "English on English: identical"
    assert np.isclose(np.linalg.norm(moved[1]), 1.0)
    assert moved[1] @ means["en"] > queries[1] @ means["en"]
    assert moved[1] @ queries[2] > queries[1] @ queries[2], "nearer the English message"
    same, none = shift_queries(queries, languages, None, means, 1.0)
    assert not none.any(), "unknown catalog language: nothing moves"
    assert np.array_equal(same, queries)
