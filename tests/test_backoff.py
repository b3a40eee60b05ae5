"""``Backoff``: at once, then after the initial delay, doubling up to the maximum; reset."""

from __future__ import annotations

import itertools

import pytest

from toolret.indexing._backoff import Backoff


class Clock:
    """A clock the test moves by hand (test data: seconds since an arbitrary origin)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_key_is_due_at_once_then_after_doubling_delays_up_to_the_maximum() -> None:
    clock = Clock()
    backoff = Backoff(5.0, 30.0, clock=clock)
    assert backoff.due("corpus")
    asked_at = [clock.now]
    while clock.now < 1000.0 + 200:
        clock.now += 0.5
        if backoff.due("corpus"):
            asked_at.append(clock.now)
    gaps = [round(b - a, 1) for a, b in itertools.pairwise(asked_at)]
    assert gaps[:4] == [5.0, 10.0, 20.0, 30.0]
    assert set(gaps[3:]) == {30.0}, "capped at the maximum"


def test_keys_back_off_independently_and_reset_starts_over() -> None:
    clock = Clock()
    backoff = Backoff(5.0, 300.0, clock=clock)
    assert backoff.due("a")
    assert backoff.due("b")
    assert not backoff.due("a")
    assert backoff.retry_in("a") == 5.0
    clock.now += 2.0
    assert backoff.due("c")
    clock.now += 3.0
    assert backoff.due("a")
    assert backoff.retry_in("a") == 10.0
    backoff.reset("a")
    assert backoff.retry_in("a") is None
    assert backoff.due("a"), "served, then lost again: asked at once"
    assert backoff.retry_in("a") == 5.0
    assert backoff.due("b")
    assert not backoff.due("c"), "c, first asked 3 s ago, waits its own 5 s"


@pytest.mark.parametrize(("initial", "maximum"), [(0, 5), (-1, 5), (10, 5)])
def test_nonsense_delays_are_refused(initial: float, maximum: float) -> None:
    with pytest.raises(ValueError, match="initial"):
        Backoff(initial, maximum)
