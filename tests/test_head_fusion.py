"""The head-keeping fusions of ``evals.studies.head_fusion``: pure functions of a message's two
rankings (today's default and the sparse opt-in's), so the client could apply them after its
statements. Each must return a permutation of the catalog and keep the promise in its name."""

from __future__ import annotations

import random

from evals.studies.head_fusion import bounded_rise, head_kept, head_order_kept, interleaved

DEFAULT = ["import_records", "export_records", "update_record", "bulk_update_records", "delete"]
"""The default's ranking: the dense head found the look-alike first."""
OPT_IN = ["export_records", "bulk_update_records", "delete", "import_records", "update_record"]
"""The opt-in's: the sparse signal put the other look-alike first."""


def _pairs(count: int = 200) -> list[tuple[list[int], list[int]]]:
    rng = random.Random(39)
    pairs = []
    for _ in range(count):
        n = rng.randint(1, 30)
        default, opt_in = list(range(n)), list(range(n))
        rng.shuffle(default)
        rng.shuffle(opt_in)
        pairs.append((default, opt_in))
    return pairs


def test_head_kept_leaves_the_default_s_first_tools_and_orders_the_rest_as_the_opt_in() -> None:
    assert head_kept(DEFAULT, OPT_IN, 1) == [
        "import_records",
        "export_records",
        "bulk_update_records",
        "delete",
        "update_record",
    ]
    for default, opt_in in _pairs():
        for h in (0, 1, 2, 3):
            got = head_kept(default, opt_in, h)
            assert sorted(got) == sorted(default)
            assert got[:h] == default[:h]
            rest = [t for t in opt_in if t not in default[:h]]
            assert got[h:] == rest
    assert head_kept(DEFAULT, OPT_IN, 0) == OPT_IN


def test_bounded_rise_lifts_no_tool_more_than_r_places_above_its_default_rank() -> None:
    # r 1: the opt-in's export_records may pass import_records, nothing may jump two places
    assert bounded_rise(DEFAULT, OPT_IN, 1) == [
        "export_records",
        "import_records",
        "bulk_update_records",
        "delete",
        "update_record",
    ]
    for default, opt_in in _pairs():
        rank = {t: i for i, t in enumerate(default)}
        for r in (0, 1, 2, 3, 5):
            got = bounded_rise(default, opt_in, r)
            assert sorted(got) == sorted(default)
            assert all(rank[t] - i <= r for i, t in enumerate(got))
        assert bounded_rise(default, opt_in, 0) == default
        assert bounded_rise(default, opt_in, len(default)) == opt_in


def test_bounded_rise_follows_the_opt_in_wherever_the_bound_allows() -> None:
    # the opt-in reversed: each place takes the lowest tool the bound lets rise that far
    assert bounded_rise(list("abcd"), list("dcba"), 1) == list("bcda")
    assert bounded_rise(list("abcdef"), list("fedcba"), 2) == list("cdefba")


def test_interleaved_keeps_the_default_s_first_p_then_takes_turns_starting_with_the_opt_in() -> (
    None
):
    assert interleaved(list("abcdef"), list("feadcb"), 2) == list("abfced")
    assert interleaved(DEFAULT, OPT_IN, 3) == [*DEFAULT[:3], "bulk_update_records", "delete"]
    for default, opt_in in _pairs():
        for p in (0, 3, 4, 6):
            got = interleaved(default, opt_in, p)
            assert sorted(got) == sorted(default)
            assert got[:p] == default[:p]
            # from p on, turn about: the opt-in's best not placed, then the default's
            for i in range(p, len(got)):
                source = opt_in if (i - p) % 2 == 0 else default
                assert got[i] == next(t for t in source if t not in got[:i])


def test_head_order_kept_lets_deeper_tools_in_anywhere_but_never_swaps_two_of_the_dense_head() -> (
    None
):
    # the opt-in swapped the look-alikes: the pair goes back to the default's order
    assert head_order_kept(DEFAULT, OPT_IN, 2) == [
        "import_records",
        "bulk_update_records",
        "delete",
        "export_records",
        "update_record",
    ]
    for default, opt_in in _pairs():
        for m in (0, 3, 5, 8):
            got = head_order_kept(default, opt_in, m)
            assert sorted(got) == sorted(default)
            head = set(default[:m])
            assert [t for t in got if t in head] == default[:m]
            assert [i for i, t in enumerate(got) if t in head] == [
                i for i, t in enumerate(opt_in) if t in head
            ]
            assert [t for t in got if t not in head] == [t for t in opt_in if t not in head]
        assert head_order_kept(default, opt_in, 0) == opt_in
