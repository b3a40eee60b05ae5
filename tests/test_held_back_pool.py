"""The pooled reading of the roster's spent held-back sets (``evals.studies.held_back_pool``):
each case's recall from its needed tools' ranks, and how often a set of a fresh set's size
would let a reading pass the issue's rule."""

from __future__ import annotations

import numpy as np

from evals.studies.held_back_pool import pass_rate, per_case_recall


def test_a_case_s_recall_is_the_share_of_its_needed_tools_within_each_cut() -> None:
    got = per_case_recall([[1], [4], [2, 13], [6, 12]])
    assert got.tolist() == [
        [100.0, 100.0, 100.0],
        [0.0, 100.0, 100.0],
        [50.0, 50.0, 50.0],
        [0.0, 0.0, 100.0],
    ]


def test_a_reading_that_changes_nothing_always_passes_and_one_that_loses_everywhere_never() -> None:
    same = {"ar": np.zeros((50, 3)), "tr": np.zeros((40, 3))}
    assert pass_rate(same, 84, draws=500) == 1.0
    worse = {"ar": np.zeros((50, 3)), "tr": np.full((40, 3), -2.0)}
    assert pass_rate(worse, 84, draws=500) == 0.0


def test_one_language_failing_fails_the_draw_and_noise_alone_fails_some() -> None:
    # one case in ten moves 100 points at R@5 only, as many up as down: no change on average
    moved = np.array([[100.0]] * 15 + [[-100.0]] * 15 + [[0.0]] * 270)
    noisy = np.hstack([np.zeros((300, 1)), moved, np.zeros((300, 1))])
    alone = pass_rate({"ar": noisy}, 84, draws=2000)
    assert 0.2 < alone < 0.8
    both = pass_rate({"ar": noisy, "tr": noisy[::-1].copy()}, 84, draws=2000)
    assert both < alone
    # more cases a set, fewer draws lose a point by chance
    assert pass_rate({"ar": noisy}, 2000, draws=2000) > alone
