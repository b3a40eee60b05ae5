"""``evals.studies.language_map``: the per-language maps are fitted from half A's pairs alone
(half B must never feed a map), and a map moves only a message written in another language
than the catalog's, toward the catalog's language; English, a language without a map, and
``a = 0`` leave the vector byte-identical. With the real model."""

from __future__ import annotations

import dataclasses

import numpy as np

from evals.studies.language_map import (
    TARGET,
    fit_procrustes,
    fit_ridge,
    fitted,
    language_pairs,
    map_queries,
)
from tests.support.embedders import CountingEmbedder
from tests.test_language_shift_study import (
    ENGLISH,
    TURKISH,
    _bench,
    assert_half_a_alone,
    query_vectors,
)
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._scoring import Scorer


async def test_the_pairs_read_half_a_alone_and_pair_each_message_with_its_original() -> None:
    bench = _bench()
    counting = CountingEmbedder()
    memo = MemoEmbedder(counting)
    try:
        pairs, fed = await language_pairs(Scorer(memo), [bench])
        half_b = assert_half_a_alone(counting, bench)
        assert fed == {("tr", "toy"): 15}
        assert set(pairs) == {"tr"}, "no pairs of English with itself"
        x, y, folds = pairs["tr"]
        assert folds.tolist() == [0] * 10 + [1] * 5, "a fold is one of half A's blocks"
        scenarios = [*range(10), *range(20, 25)]
        for row, i in enumerate(scenarios):
            turkish = await memo.embed_query(TURKISH[i % 3].format(i + 1))
            english = await memo.embed_query(ENGLISH[i % 3].format(i + 1))
            assert np.array_equal(x[row], np.asarray(turkish, dtype=np.float64))
            assert np.array_equal(y[row], np.asarray(english, dtype=np.float64))
        # half B rewritten: the same maps, to the bit
        other = [
            dataclasses.replace(case, query=f"{case.query} bugün") if case.query in half_b else case
            for case in bench.cases
        ]
        again, _ = await language_pairs(Scorer(memo), [dataclasses.replace(bench, cases=other)])
        for name, maps in fitted(again).items():
            for key, found in maps.items():
                assert np.array_equal(found.delta, fitted(pairs)[name][key].delta), name
    finally:
        await memo.aclose()


async def test_a_map_moves_only_other_languages_toward_the_catalog_s() -> None:
    memo = MemoEmbedder(CountingEmbedder())
    try:
        pairs, _ = await language_pairs(Scorer(memo), [_bench()])
        texts = ["wecke mich um sieben", "sabah yedide alarm kur", "set an alarm for 7 am"]
        queries = await query_vectors(memo, texts)
    finally:
        await memo.aclose()
    x, y, _ = pairs["tr"]
    languages = ["de", "tr", "en"]  # no German pairs: German stays where it was
    for fit in (fit_procrustes(x, y), fit_ridge(x, y, 0.1), fit_ridge(x, y, 1.0, 4)):
        maps = {("tr", TARGET): fit}
        moved, which = map_queries(queries, languages, "en", maps, 1.0)
        assert which.tolist() == [False, True, False]
        assert moved[0].tobytes() == queries[0].tobytes(), "no map for German: identical"
        assert moved[2].tobytes() == queries[2].tobytes(), "English on English: identical"
        assert np.isclose(np.linalg.norm(moved[1]), 1.0)
        assert moved[1] @ queries[2] > queries[1] @ queries[2], "nearer the English message"
        same, none = map_queries(queries, languages, "en", maps, 0.0)
        assert not none.any()
        assert same.tobytes() == queries.tobytes(), "a = 0: the identity"
        unknown, nothing = map_queries(queries, languages, None, maps, 1.0)
        assert not nothing.any()
        assert unknown.tobytes() == queries.tobytes(), "unknown catalog language: nothing moves"


def test_rank_0_is_the_mean_shift_and_procrustes_is_orthogonal() -> None:
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(12, 8)), rng.normal(size=(12, 8))
    shift = fit_ridge(x, y, 1.0, 0)
    assert not shift.delta.any()
    assert np.allclose(shift.step(x[0]), y.mean(axis=0) - x.mean(axis=0))
    turn = np.eye(8) + fit_procrustes(x, y).delta
    assert np.allclose(turn.T @ turn, np.eye(8))
    # plenty of pairs and no penalty to speak of: ridge recovers an exact linear map
    true = rng.normal(size=(8, 8))
    many = rng.normal(size=(400, 8))
    fit = fit_ridge(many, 0.5 + many @ true, 1e-9)
    assert np.allclose(np.eye(8) + fit.delta, true, atol=1e-4)


def test_a_fold_left_out_never_feeds_its_maps() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(30, 8)), rng.normal(size=(30, 8))
    folds = np.repeat(np.arange(3), 10)
    other = x.copy()
    other[folds == 1] += 5.0
    for name, maps in fitted({"tr": (x, y, folds)}, leave=1).items():
        again = fitted({"tr": (other, y, folds)}, leave=1)[name][("tr", TARGET)]
        assert np.array_equal(maps[("tr", TARGET)].delta, again.delta), name
        assert np.array_equal(maps[("tr", TARGET)].source, again.source), name
    whole = fitted({"tr": (x, y, folds)})["ridge λ=1"][("tr", TARGET)]
    changed = fitted({"tr": (other, y, folds)})["ridge λ=1"][("tr", TARGET)]
    assert not np.array_equal(whole.delta, changed.delta), "without leave, every fold feeds it"
