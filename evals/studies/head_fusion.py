"""Fusions that keep the dense head: the sparse signal's ranking joined to today's default
ranking by position, not by score, chosen on half A of every tuning set's requests and
confirmed on half B (``toolret.recall._halves``).

``python -m evals.studies.head_fusion [--benchmarks DIR] [--out FILE] [--memo FILE]``

The sets, the rule and the cached score matrices are ``evals.studies.sparse_fusion``'s
(massive-dev with and without examples, toollens-dev-ml, xsid-dev, the mixed-language fleet, the
roster's tuning half with and without examples, judged whole, in-sample on both sides). Each
message has two rankings of the catalog's candidates: **the default's** (dense + BM25, no
sparse signal: today's default) and **the opt-in's** (``TOOLRET_SPARSE=1``: ``+ g × sparse``,
``g`` from the ``described_elsewhere`` gate, descriptions of at least five words and the length
ramp 4 → 8 words). A message the opt-in gives no weight keeps the default's ranking under every
candidate. The candidates are pure functions of the two rankings (``head_kept``,
``bounded_rise``, ``interleaved``, ``head_order_kept``), so the client could apply them after
its statements:

- **head kept, h**: the default's first ``h`` tools stay in place; below them, the opt-in's order
  of the rest (h ∈ 1, 2, 3);
- **bounded rise, r**: the opt-in's order, except that no tool rises more than ``r`` places above
  its rank in the default's (r ∈ 1, 2, 3, 5): position ``i`` takes the opt-in's best tool among
  those the default ranks at ``i + r`` or better (always one: the default's first ``i + 1``);
- **interleaved from p**: the default's first ``p`` tools, then, turn about, the opt-in's best
  tool not yet placed and the default's best not yet placed (p ∈ 3, 4, 6);
- **head order kept, m**: the opt-in's ranking, with the places it gives the default's first
  ``m`` tools refilled by those tools in the default's order (m ∈ 3, 5, 8): a tool from deeper
  may enter anywhere, two of the dense head's tools never trade places. Added after reading half
  A (before B): there, on the roster's tuning half without examples, the tools that pushed a
  needed tool out of today's opt-in's top 3 came from the default's top 5 (2 of 3, median rank
  4: look-alikes), while on toollens-dev-ml they came from deeper (median rank 15, 11% from the
  top 5) and the opt-in's won needed tools from deeper still (median 19, 66% beyond rank 12).

**The choice**, written down and committed before half B was read: on half A, a candidate must
pass the issue's rule, no (set, language) row loses more than ``MAX_LOSS`` point of R@3, R@5 or
R@12 (xsid-dev: R@1/3/5) against today's default; of those, the one with the best mean R@5 gain
over every (set, language) row but English (the mixed fleet's English counted:
``sparse_fusion._gain``). It **confirms** only if on half B it also passes the rule and keeps at
least ``KEEP`` of its own half-A gain. Today's opt-in is reported beside them, not a candidate.
Half B is read only once (``HEAD_FUSION_HALF_B=1``).

Beside the rule, for each candidate: the cases lost and won against the default at R@3 (the
share of a case's needed tools in the top 3 falls or rises), all sets pooled and on the roster's
tuning half without examples; for the chosen one, per set. With ``HEAD_FUSION_PATH=1`` the
report adds the two-phase path (``select`` at k 12, then find_tools per capability phrase, as
``evals.studies.short_fusion`` builds it) on toollens-dev-ml: reported, not part of the choice;
it encodes every clause once (cached in ``evals/out/fusion``). Writes ``evals/out/head_fusion.md``.

``HEAD_FUSION_ROSTER=<split>`` (a ``Split`` of ``evals.data.cases``) reports
instead one split of the roster's cases, whole, with and without examples: the default, today's
opt-in and the head kept at 1 and 3 tools, R@3/R@5/R@12 per language. For the lead's reading of
a held-back set after the choice; nothing is chosen on it.
"""

from __future__ import annotations

import heapq
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar, cast, get_args

import numpy as np
from numpy.typing import NDArray

from evals.data.cases import TUNE, Split
from evals.recall.mixed_fleet import mixed_fleet
from evals.recall.roster_sets import roster_set
from evals.studies._fusion_signals import FusionSignals, fusion_signals
from evals.studies._report import report_main
from evals.studies.scale_fusion import Turns, _turns, turns_table
from evals.studies.short_fusion import _two_phase, clause_set
from evals.studies.sparse_fusion import (
    MAX_LOSS,
    REFERENCE,
    SETS,
    Measured,
    _gain,
    _reference,
    _worst,
    detail,
    measure_choices,
)
from toolret.recall._data import BenchSet, load_benchmark
from toolret.recall._halves import BLOCK, HALVES
from toolret.recall._memo import MemoEmbedder
from toolret.retrieval._short import length_share
from toolret.retrieval._sparse import described_elsewhere, described_words

__all__ = ["bounded_rise", "head_kept", "head_order_kept", "interleaved", "main", "roster_split"]

T = TypeVar("T")
Matrix = NDArray[np.float64]
Choices = dict[str, tuple[Matrix, NDArray[np.bool_]]]
Order = Callable[[Sequence[int], Sequence[int]], list[int]]

TODAY = "today's opt-in: + g × sparse (gate, min 5 words, ramp 4→8)"
KEEP = 0.9
"""A choice confirms when its mean R@5 gain on B is at least this share of its gain on A."""
CONFIRM = os.environ.get("HEAD_FUSION_HALF_B") == "1"
"""Half B is read only once the choice is made on A (``HEAD_FUSION_HALF_B=1``)."""
PATH = os.environ.get("HEAD_FUSION_PATH") == "1"
ROSTER_SPLIT = os.environ.get("HEAD_FUSION_ROSTER")
"""A roster split to report instead of the study (``HEAD_FUSION_ROSTER``)."""
READ = (REFERENCE, TODAY, "head kept, h 1", "head kept, h 3")
"""What a roster split's reading shows."""
HEADS = (1, 2, 3)
RISES = (1, 2, 3, 5)
FROM = (3, 4, 6)
ORDERED = (3, 5, 8)
K = 12


def roster_split(name: str) -> Split:
    """``HEAD_FUSION_ROSTER``'s value as a split of ``evals.data.cases`` (``roster_set`` maps it
    to its set); raises ``SystemExit`` naming the splits when it is none of them."""
    splits: tuple[str, ...] = get_args(Split)
    if name not in splits:
        raise SystemExit(f"HEAD_FUSION_ROSTER={name}: not a roster split ({', '.join(splits)})")
    return cast(Split, name)


def head_kept(default: Sequence[T], opt_in: Sequence[T], h: int) -> list[T]:
    """The default's first ``h`` tools in place, then the opt-in's order of the others."""
    head = list(default[:h])
    kept = set(head)
    return head + [t for t in opt_in if t not in kept]


def bounded_rise(default: Sequence[T], opt_in: Sequence[T], r: int) -> list[T]:
    """The opt-in's order, but no tool more than ``r`` places above its rank in the default's:
    each position takes the opt-in's best tool among those the default ranks at most ``r``
    places below that position."""
    place = {t: i for i, t in enumerate(opt_in)}
    waiting: list[tuple[int, int]] = []
    out: list[T] = []
    reached = 0
    for i in range(len(default)):
        while reached < len(default) and reached <= i + r:
            heapq.heappush(waiting, (place[default[reached]], reached))
            reached += 1
        out.append(default[heapq.heappop(waiting)[1]])
    return out


def interleaved(default: Sequence[T], opt_in: Sequence[T], p: int) -> list[T]:
    """The default's first ``p`` tools, then the opt-in's best not yet placed and the default's
    best not yet placed, turn about."""
    out = list(default[:p])
    placed = set(out)
    sources = (iter(opt_in), iter(default))
    turn = 0
    while len(out) < len(default):
        # each source skips only placed tools, so it holds every tool not placed yet
        found = next(t for t in sources[turn] if t not in placed)
        out.append(found)
        placed.add(found)
        turn = 1 - turn
    return out


def head_order_kept(default: Sequence[T], opt_in: Sequence[T], m: int) -> list[T]:
    """The opt-in's order, with the default's first ``m`` tools, wherever the opt-in puts them,
    in the default's order among themselves."""
    head = list(default[:m])
    members = set(head)
    refill = iter(head)
    return [next(refill) if t in members else t for t in opt_in]


CANDIDATES: dict[str, Order] = {}
CANDIDATES.update({f"head kept, h {h}": lambda d, o, h=h: head_kept(d, o, h) for h in HEADS})
CANDIDATES.update({f"bounded rise, r {r}": lambda d, o, r=r: bounded_rise(d, o, r) for r in RISES})
CANDIDATES.update({f"interleaved from p {p}": lambda d, o, p=p: interleaved(d, o, p) for p in FROM})
CANDIDATES.update(
    {f"head order kept, m {m}": lambda d, o, m=m: head_order_kept(d, o, m) for m in ORDERED}
)

CLIENT = {
    "head kept": "exact with the default's first h tools beside the opt-in's statement: on the "
    "exact path one statement returning both orders; on the index path one more statement "
    "(the default's, limit h); the opt-in's first K then fill the rest",
    "bounded rise": "exact with the default's first K + r tools and each one's sparse score "
    "(the opt-in's order among them is then known in process): on the exact path one "
    "statement; on the index path the default's statement plus the sparse scores of K + r "
    "named tools",
    "interleaved": "exact with the default's and the opt-in's first K tools: on the exact path "
    "one statement returning both orders; on the index path two statements",
    "head order kept": "exact with the default's first m tools and the opt-in's first K: the "
    "opt-in's places among its first K held by the default's head go to the head's first ones "
    "in the default's order; on the exact path one statement, on the index path two",
}


def opt_in_weight(x: FusionSignals, bench: BenchSet, examples: bool) -> NDArray[np.float64]:
    """Each message's sparse weight under ``TOOLRET_SPARSE=1`` (gate, five words, ramp 4→8)."""
    catalog = bench.catalog(examples=examples)
    texts = [case.query for case in bench.cases]
    gate = np.array([described_elsewhere(catalog, t) for t in texts], dtype=np.float64)
    gate *= described_words(catalog) >= 5
    out: NDArray[np.float64] = gate * np.array([length_share(t, 4, 8) for t in texts])
    return out


def _orders(x: FusionSignals, scores: Matrix) -> list[list[int]]:
    """Each message's candidates, best first (ties in catalog order, as ``_ranks`` breaks them)."""
    masked = np.where(x.candidates[None, :], scores, -np.inf)
    order = np.argsort(-masked, axis=1, kind="stable")[:, : int(x.candidates.sum())]
    return [row.tolist() for row in order]


def _choices(x: FusionSignals, g: NDArray[np.float64]) -> Choices:
    """The default, today's opt-in and every candidate, each as a score matrix ranking as it
    orders (a sent message's scores are its places counted from the bottom)."""
    sent = g > 0
    reference = _reference(x)
    opt_in = reference + g[:, None] * x.sparse
    out: Choices = {REFERENCE: (reference, np.zeros(len(g), dtype=bool)), TODAY: (opt_in, sent)}
    rows = np.flatnonzero(sent)
    defaults, opted = _orders(x, reference[rows]), _orders(x, opt_in[rows])
    for name, order in CANDIDATES.items():
        scores = reference.copy()
        for row, d, o in zip(rows, defaults, opted, strict=True):
            placed = order(d, o)
            scores[row] = -np.inf
            scores[row, placed] = np.arange(len(placed), 0, -1, dtype=np.float64)
        out[name] = (scores, sent)
    return out


async def study(benchmarks: Path, memo: MemoEmbedder) -> str:
    if ROSTER_SPLIT is not None:
        return await _roster_reading(memo, roster_split(ROSTER_SPLIT))
    sets: list[tuple[BenchSet, bool]] = [(load_benchmark(benchmarks / n), False) for n in SETS]
    sets += [(mixed_fleet(benchmarks), False), (roster_set(TUNE), True)]
    measured = []
    turns: Turns = {}
    for bench, whole in sets:
        for flag in bench.example_flags:
            x = await fusion_signals(memo, bench, flag)
            choices = _choices(x, opt_in_weight(x, bench, flag))
            m = measure_choices(x, bench, flag, choices, whole=whole)
            measured.append(m)
            turns.update(_turns(x, m.name, choices, whole))
            print(f"[head_fusion] {bench.name} examples={flag}", file=sys.stderr, flush=True)
    path = await _path(memo, load_benchmark(benchmarks / "toollens-dev-ml")) if PATH else None
    return _report(measured, turns, path)


async def _roster_reading(memo: MemoEmbedder, split: Split) -> str:
    """One roster split, whole: each reading's R@3/R@5/R@12 per language, and its change
    against the default."""
    bench = roster_set(split)
    lines = [f"## {bench.name}, whole (reported only; never chosen on)", ""]
    for flag in bench.example_flags:
        x = await fusion_signals(memo, bench, flag)
        m = measure_choices(x, bench, flag, _choices(x, opt_in_weight(x, bench, flag)), whole=True)
        lines += [f"{m.name} (R@3/R@5/R@12):", "", "| ranking | " + " | ".join(m.languages) + " |"]
        lines.append("|---|" + "---|" * len(m.languages))
        for choice in READ:
            cells = []
            for lang in m.languages:
                got, ref = m.recall[(choice, "A", lang)], m.recall[(REFERENCE, "A", lang)]
                change = "/".join(f"{g - r:+.1f}" for g, r in zip(got, ref, strict=True))
                cells.append("/".join(f"{v:.1f}" for v in got) + f" ({change})")
            lines.append(f"| {choice} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _passes(measured: Sequence[Measured], choice: str, half: str) -> bool:
    return _worst(measured, choice, half)[0] >= -MAX_LOSS


def _report(measured: Sequence[Measured], turns: Turns, path: list[str] | None) -> str:
    choices = list(measured[0].paid)
    halves = HALVES if CONFIRM else ("A",)
    lines = turns_table(measured, turns, choices[1:], halves)
    passing = [c for c in CANDIDATES if _passes(measured, c, "A")]
    chosen = max(passing, key=lambda c: _gain(measured, c, "A")) if passing else None
    verdict = (
        f"\nChosen on A (within the rule, the best mean R@5 gain): **{chosen or 'none'}**"
        f" (passing on A: {', '.join(passing) or 'none'})"
    )
    if CONFIRM and chosen is not None:
        a, b = _gain(measured, chosen, "A"), _gain(measured, chosen, "B")
        within = _passes(measured, chosen, "B")
        kept = b >= KEEP * a
        verdict += (
            f"; on B it {'passes' if within else 'FAILS'} the rule and keeps "
            f"{100 * b / a:.0f}% of its A gain: it "
            f"{'CONFIRMS' if within and kept else 'does NOT confirm'}"
        )
    lines += [verdict + ".", "", "What the client needs, per family:", ""]
    lines += [f"- **{family}**: {need}" for family, need in CLIENT.items()]
    shown = [REFERENCE, TODAY] + ([chosen] if chosen else [])
    if chosen is not None:
        lines += ["", f"Cases lost / won at R@3 against the default, per set ({chosen}):", ""]
        lines += _per_set(measured, turns, [TODAY, chosen], halves)
    tables = detail(measured, shown)
    if not CONFIRM:
        tables = "\n".join(line for line in tables.splitlines() if "B (confirming)" not in line)
    lines += ["", tables]
    if path is not None:
        lines += path
    return "\n".join(lines) + "\n"


def _per_set(
    measured: Sequence[Measured], turns: Turns, shown: Sequence[str], halves: Sequence[str]
) -> list[str]:
    cells = [f"{c}, {h}" for c in shown for h in halves]
    lines = ["| set | " + " | ".join(cells) + " |", "|---|" + "---:|" * len(cells)]
    for m in measured:
        got = [turns[(m.name, c, h)][:2] for c in shown for h in halves]
        lines.append(f"| {m.name} | " + " | ".join(f"{lo} / {wo}" for lo, wo in got) + " |")
    return lines


async def _path(memo: MemoEmbedder, bench: BenchSet) -> list[str]:
    """The two-phase path on ``bench``: needed tools bound and tasks complete after find_tools,
    per candidate, half and language."""
    requests = await fusion_signals(memo, bench, False)
    clauses, owner = clause_set(bench)
    phrases = await fusion_signals(memo, clauses, False)
    select = _choices(requests, opt_in_weight(requests, bench, False))
    find = _choices(phrases, opt_in_weight(phrases, clauses, False))
    language = np.array(requests.languages)
    halves = {h: (requests.scenarios // BLOCK) % 2 == i for i, h in enumerate(HALVES)}
    shown = HALVES if CONFIRM else ("A",)
    languages = list(dict.fromkeys(requests.languages))
    lines = [
        "",
        f"## Two phases on {bench.name}: select at k {K}, then find_tools (5 a capability)",
        "",
        "Needed tools bound / tasks complete after find_tools (reported; not in the choice).",
        "",
        "| choice | half | " + " | ".join(languages) + " |",
        "|---|---|" + "---|" * len(languages),
    ]
    for choice in select:
        _, bound, _, whole = _two_phase(
            requests, phrases, owner, select[choice][0], find[choice][0]
        )
        for half in shown:
            cells = []
            for lang in languages:
                rows = np.flatnonzero(halves[half] & (language == lang))
                cells.append(
                    f"{100 * np.mean([bound[i] for i in rows]):.1f} / "
                    f"{100 * np.mean([whole[i] for i in rows]):.1f}"
                )
            lines.append(f"| {choice} | {half} | " + " | ".join(cells) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", study, Path("evals/out/head_fusion.md"), argv)


if __name__ == "__main__":
    raise SystemExit(main())
