"""Tools used together, studied on tuning data: ``python -m evals.studies.companions``.

The two-phase path of ``evals.studies.find_tools_path`` (``select`` at k 12, then find_tools,
five tools a capability, the capabilities taken from the request alone), on toollens-dev, with
the counts of tools used together (``toolret.retrieval._companions``) learned from one half of
its requests and measured on the other (halves by request: ``evals.studies.fleet_examples``),
both ways, averaged. Each find_tools call asks one capability, with the tools bound so far
(the selection and earlier finds) as ``bound``: the companions' anchors, as in the product.

What traffic teaches is not in the data, so two kinds of traffic are read from the other half:

- **every needed tool**: each request's turn called every tool it needed (the turn ended
  complete, by find_tools rephrased or any other way);
- **only what it reached**: each request's turn called only the needed tools that select and
  find_tools bound without companions (the request and its clauses): what today's product
  would report.

Tables: the two-phase rows before and after, per phrase source; the choices tried (slots in
``select`` and in find_tools, the anchors' discount, the anchors of find_tools, the prior);
toollens-dev-ml per language (halves by request, a request and its translations in the same
half; the names counted once a request); and noise: every traffic turn also calling one or two
random tools, on toollens-dev and on the sets whose requests need one tool each (massive-dev,
the roster's tuning half), where whatever companions are learned are noise: R@5 (``select`` at
k 5) and R@12 against the same without companions, the rule of docs/decisions.md (no set loses
more than a point). Writes ``evals/out/companions.md``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from evals.data.cases import TUNE
from evals.recall.roster_sets import roster_set
from evals.studies._report import report_main
from evals.studies.find_tools_path import CEILING, PHRASES, Ranked, prepare
from toolret.recall._data import BenchCase, load_benchmark
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._scoring import Scorer
from toolret.retrieval._companions import (
    ANCHOR_DECAY,
    MIN_STRENGTH,
    MIN_TOGETHER,
    PRIOR,
    Companions,
)

__all__ = ["Setting", "main"]

OUT = Path(__file__).resolve().parents[1] / "out" / "companions.md"
K = 12
LIMIT = 5
PHRASE = "the request and its clauses"


@dataclass(frozen=True)
class Setting:
    """One way to use companions: places in ``select`` (of k) and in each find_tools answer
    (of five), the anchors' discount in ``select``, whether find_tools' anchors include the
    tools bound, and ``Companions.from_counts``'s prior and evidence needed."""

    select: int = 4
    find: int = 2
    decay: float = ANCHOR_DECAY
    bound: bool = True
    prior: float = PRIOR
    together: float = MIN_TOGETHER
    strength: float = MIN_STRENGTH

    def label(self) -> str:
        anchors = "bound + first finds" if self.bound else "first finds"
        turns = round(self.together + 0.5)
        return (
            f"select {self.select} of {K} (discount {self.decay:g}), find_tools {self.find} of"
            f" {LIMIT} ({anchors}), prior {self.prior:g}, ≥ {turns} turns together, strength"
            f" ≥ {self.strength:g}"
        )

    def learn(self, turns: Sequence[Sequence[str]]) -> Companions:
        return Companions.from_turns(
            turns, prior=self.prior, min_together=self.together, min_strength=self.strength
        )


IN_USE = Setting()
NONE = Setting(select=0, find=0)


def halves(cases: Sequence[BenchCase], key: Callable[[BenchCase], str]) -> list[list[int]]:
    """Case indices in two halves by the parity of ``key(case)``'s SHA-256."""
    side = [hashlib.sha256(key(c).encode()).digest()[0] % 2 for c in cases]
    return [[i for i, s in enumerate(side) if s == half] for half in (0, 1)]


class TwoPhase:
    """One set's cases, scored once: the request's scores and each phrase's."""

    def __init__(self, ranked: Ranked) -> None:
        self.ranked = ranked
        self.names = ranked.names
        self.position = {name: i for i, name in enumerate(self.names)}
        catalog = ranked.scored.catalog
        self.eligible = lambda name: name in catalog and not catalog[name].core
        self.request: list[np.ndarray] = []
        self.phrases: dict[str, list[list[np.ndarray]]] = {}

    async def score(self, phrases: Sequence[str]) -> None:
        ranked = self.ranked
        for case in ranked.scored.bench.cases:
            self.request.append(ranked.scores(case.query, ranked.scored.vectors[case.query]))
        for label in phrases:
            rows = []
            for case in ranked.scored.bench.cases:
                asked = PHRASES[label](case.query, case.expected, set())
                vectors = [await ranked.scorer.embedder.embed_query(text) for text in asked]
                rows.append([ranked.scores(t, v) for t, v in zip(asked, vectors, strict=True)])
            self.phrases[label] = rows

    def order(self, scores: np.ndarray, taken: set[str]) -> list[str]:
        skip = {self.position[name] for name in taken}
        return [self.names[i] for i in self.ranked.order(scores, skip)]

    def run(
        self, i: int, companions: Companions, setting: Setting, phrase: str
    ) -> tuple[set[str], set[str]]:
        """One case: what select bound, and what select and find_tools bound."""
        ranked = self.order(self.request[i], set())
        chosen, _ = companions.in_select(
            ranked, K, self.eligible, slots=setting.select, decay=setting.decay
        )
        taken = set(chosen)
        selected = set(chosen)
        for scores in self.phrases[phrase][i]:
            order = self.order(scores, taken)
            (found,) = companions.in_answers(
                [order[:LIMIT]],
                LIMIT,
                anchors=sorted(taken) if setting.bound else (),
                skip=taken,
                eligible=self.eligible,
                slots=setting.find,
            )
            taken.update(found)
        return selected, taken


def _shares(cases: Sequence[BenchCase], bound: Sequence[set[str]]) -> tuple[float, float]:
    share = sum(
        sum(t in b for t in c.expected) / len(c.expected) for c, b in zip(cases, bound, strict=True)
    )
    complete = sum(all(t in b for t in c.expected) for c, b in zip(cases, bound, strict=True))
    return 100 * share / len(cases), 100 * complete / len(cases)


def traffic_turns(
    path: TwoPhase, taught: Sequence[int], kind: str, noise: float = 0.0, seed: int = 0
) -> list[list[str]]:
    """The called tools of each taught case's turn (``kind``: ``every`` or ``reached``), plus
    ``noise`` random tools a turn on average (0.1: one in a tenth of the turns)."""
    cases = path.ranked.scored.bench.cases
    rng = random.Random(seed)
    turns = []
    for i in taught:
        needed = list(cases[i].expected)
        if kind == "reached":
            _, bound = path.run(i, Companions(), NONE, PHRASE)
            needed = [t for t in needed if t in bound]
        extra = int(noise) + (rng.random() < noise - int(noise))
        turns.append(needed + [rng.choice(path.names) for _ in range(extra)])
    return turns


def two_phase(
    path: TwoPhase,
    measured: list[list[int]],
    taught: list[list[int]],
    setting: Setting,
    *,
    kind: str = "every",
    phrase: str = PHRASE,
    noise: float = 0.0,
) -> list[float]:
    """Bound after select, after find_tools; complete after select, after find_tools: the mean
    of the two directions."""
    cases = path.ranked.scored.bench.cases
    rows = []
    for mine, theirs in zip(measured, taught, strict=True):
        turns = traffic_turns(path, theirs, kind, noise) if setting != NONE else []
        companions = setting.learn(turns)
        runs = [path.run(i, companions, setting, phrase) for i in mine]
        chosen = [c for c, _ in runs]
        after = [a for _, a in runs]
        (s, cs), (f, cf) = (
            _shares([cases[i] for i in mine], chosen),
            _shares([cases[i] for i in mine], after),
        )
        rows.append([s, f, cs, cf])
    return list(np.mean(np.array(rows), axis=0))


def _cells(values: Sequence[float]) -> str:
    return " | ".join(f"{value:.1f}" for value in values)


UNGUARDED = replace(IN_USE, together=0.5, strength=0.0)
SETTINGS = [
    NONE,
    IN_USE,
    UNGUARDED,
    replace(IN_USE, together=0.5),
    replace(IN_USE, strength=0.0),
    replace(IN_USE, together=2.5),
    replace(IN_USE, strength=0.3),
    *(replace(IN_USE, select=n) for n in (0, 2, 3, 6)),
    *(replace(IN_USE, decay=d) for d in (1.0, 0.6)),
    *(replace(IN_USE, find=n) for n in (0, 1, 3)),
    replace(IN_USE, bound=False),
    *(replace(IN_USE, prior=p) for p in (0.5, 1.0, 5.0)),
]


async def fleet_tables(scorer: Scorer, benchmarks: Path) -> list[str]:
    bench = load_benchmark(benchmarks / "toollens-dev")
    path = TwoPhase(await prepare(scorer, bench, False))
    sources = [label for label in PHRASES if label != CEILING]
    await path.score(sources)
    first, second = halves(bench.cases, lambda c: c.query)
    measured, taught = [first, second], [second, first]
    lines = [
        "## Two phases on toollens-dev (tuning): select at k 12, then find_tools (5 a capability),"
        " companions learned from the other half",
        "",
        "| capabilities sent | traffic | companions | bound after select | after find_tools"
        " | complete after select | after find_tools |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for label in sources:
        plain = two_phase(path, measured, taught, NONE, phrase=label)
        lines.append(f"| {label} | | none | {_cells(plain)} |")
        for kind in ("every", "reached"):
            row = two_phase(path, measured, taught, IN_USE, kind=kind, phrase=label)
            lines.append(f"| {label} | {kind} | in use | {_cells(row)} |")
    lines += [
        "",
        f"## The choices tried (toollens-dev, tuning; {PHRASE})",
        "",
        "| setting | every: select | find_tools | complete | reached: select | find_tools"
        " | complete |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for setting in SETTINGS:
        every = two_phase(path, measured, taught, setting, kind="every")
        reached = two_phase(path, measured, taught, setting, kind="reached")
        label = "none" if setting == NONE else setting.label()
        picked = [every[0], every[1], every[3], reached[0], reached[1], reached[3]]
        lines.append(f"| {label}{' (in use)' if setting == IN_USE else ''} | {_cells(picked)} |")
    lines += [
        "",
        "## Noisy traffic (toollens-dev, tuning): every taught turn also calls random tools",
        "",
        "| random tools a turn | bound after select | after find_tools | complete after select"
        " | after find_tools |",
        "|---|---:|---:|---:|---:|",
        f"| none learned | {_cells(two_phase(path, measured, taught, NONE))} |",
    ]
    for noise in (0.0, 0.1, 1.0, 2.0):
        for setting in (IN_USE, UNGUARDED):
            row = two_phase(path, measured, taught, setting, noise=noise)
            name = "in use" if setting == IN_USE else "unguarded"
            lines.append(f"| {noise:g} ({name}) | {_cells(row)} |")
    return lines


async def languages_table(scorer: Scorer, benchmarks: Path) -> list[str]:
    bench = load_benchmark(benchmarks / "toollens-dev-ml")
    path = TwoPhase(await prepare(scorer, bench, False))
    await path.score([PHRASE])
    cases = bench.cases
    english = [i for i, c in enumerate(cases) if c.language == "en"]
    sides = halves([cases[i] for i in english], lambda c: c.query)
    lines = [
        "",
        "## toollens-dev-ml per language (tuning): companions learned from the other half's"
        " requests (every needed tool, names counted once a request)",
        "",
        "| language | bound after select | after find_tools | complete after select | after"
        " find_tools | in use: after select | after find_tools | complete after select | after"
        " find_tools | unguarded: after select | after find_tools | complete after select |"
        " after find_tools |",
        "|---|" + "---:|" * 12,
    ]
    for language in bench.languages:
        mine = [i for i, c in enumerate(cases) if c.language == language]
        measured = [[mine[j] for j in side] for side in sides]
        taught = [[english[j] for j in side] for side in reversed(sides)]
        cells = [
            _cells(two_phase(path, measured, taught, setting))
            for setting in (NONE, IN_USE, UNGUARDED)
        ]
        lines.append(f"| {language} | {' | '.join(cells)} |")
    return lines


def _recalls(path: TwoPhase, i: int, companions: Companions, setting: Setting) -> list[float]:
    """R@5 of ``select`` at k 5, R@12 at k 12, and the find_tools answer to the request with
    nothing bound (its first finds the only anchors)."""
    case = path.ranked.scored.bench.cases[i]
    ranked = path.order(path.request[i], set())
    picks = [
        companions.in_select(ranked, k, path.eligible, slots=min(slots, setting.select))[0]
        for k, slots in ((5, 1), (K, setting.select))
    ]
    (found,) = companions.in_answers(
        [ranked[:LIMIT]], LIMIT, eligible=path.eligible, slots=setting.find
    )
    return [
        sum(t in set(got) for t in case.expected) / len(case.expected) for got in (*picks, found)
    ]


NOISE = (0.1, 1.0)


async def noise_table(scorer: Scorer, benchmarks: Path) -> list[str]:
    lines = [
        "",
        "## Noise where tools are not used together (tuning): each taught request's one tool, and"
        " a random tool in a tenth of the turns or in every turn; R@5 (select at k 5), R@12,"
        " find_tools R@5 (the request, nothing bound), the change against no companions",
        "",
        "| set | language | examples | without | "
        + " | ".join(
            f"{name} · noise {rate:g}" for name in ("in use", "unguarded") for rate in NOISE
        )
        + " |",
        "|---|---|---|---|" + "---|" * 2 * len(NOISE),
    ]
    for bench in (load_benchmark(benchmarks / "massive-dev"), roster_set(TUNE)):
        for flag in bench.example_flags:
            path = TwoPhase(await prepare(scorer, bench, flag))
            await path.score([])
            cases = bench.cases
            for language in bench.languages:
                mine = [i for i, c in enumerate(cases) if c.language == language]
                sides = halves([cases[i] for i in mine], lambda c: c.query)
                plain = np.zeros(3)
                for j in mine:
                    plain += _recalls(path, j, Companions(), IN_USE)
                moved = []
                for setting in (IN_USE, UNGUARDED):
                    for rate in NOISE:
                        total = np.zeros(3)
                        for side, other in ((sides[0], sides[1]), (sides[1], sides[0])):
                            taught = [mine[j] for j in other]
                            learned = setting.learn(traffic_turns(path, taught, "every", rate))
                            for j in side:
                                total += _recalls(path, mine[j], learned, setting)
                        change = 100 * (total - plain) / len(mine)
                        moved.append(" / ".join(f"{x:+.1f}" for x in change))
                base = " / ".join(f"{100 * x / len(mine):.1f}" for x in plain)
                flag_text = "yes" if flag else "no"
                lines.append(
                    f"| {bench.name} | {language} | {flag_text} | {base} | {' | '.join(moved)} |"
                )
    return lines


async def run(benchmarks: Path, memo: MemoEmbedder) -> str:
    scorer = Scorer(memo)
    lines = await fleet_tables(scorer, benchmarks)
    lines += await languages_table(scorer, benchmarks)
    lines += await noise_table(scorer, benchmarks)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", run, OUT, argv)


if __name__ == "__main__":
    raise SystemExit(main())
