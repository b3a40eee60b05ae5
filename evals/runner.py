"""The retrieval eval: recall and narrowing per language, mode, embedder, with and without examples.

For each embedder (the bundled model always; Gemini when ``GEMINI_API_KEY`` is set), each
example configuration (the roster with its example requests, and descriptions only), each mode
(dense, bm25, hybrid), each language and each half of the cases (``tune``: in-sample, what
descriptions and examples may be fitted to; ``held``: held back, reported and gated only),
every case goes through ``InMemoryRetriever``:

- ``select()`` gives what a turn really binds: recall@k at the configured ``k`` (12) is measured
  on it, as is narrowing (the selection holds fewer tools than the roster) and the number of
  tools bound (core + retrieved).
- ``rank()`` gives the curve recall@1..20.

Recall of a case is the share of the non-core tools it names that were found (core tools are
always bound); a language's recall@k is the mean over its cases. A case that misses a tool in
its selection prints as ``"prompt" → missing_tool``.

Two studies on the dense ranking complete it: the weakest true-match score against the strongest
off-topic score (seed 000's argument for having no similarity floor), and whether example
requests rank better embedded as queries or as documents (a choice, so measured on the tuning
half only). The CI gate (``evals.gate``) reads the held-back rows.

``--long-messages`` adds the long-message study (``evals.truncation``): each case inside a pasted
email or log, cut to the query window keeping head, tail or both, at 128/256/512 tokens.

Every text is embedded once per embedder (``MemoEmbedder``) and reused across modes and cases.
The retrievers get a generous time budget, so the eval measures ranking, not machine load.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evals.cases import CASES, HELD, LANGUAGES, OFF_TOPIC, SPLITS, TUNE, Case, Split
from evals.gate import THRESHOLDS
from evals.memo import MemoEmbedder
from evals.roster import build_catalog
from toolret.catalog import Catalog
from toolret.embedders.base import Embedder
from toolret.embedders.e5 import BundledE5Embedder
from toolret.memory import InMemoryRetriever
from toolret.selection import DEFAULT_K, Mode, top_k
from toolret.settings import RetrievalMode, Settings, make_embedder
from toolret.tool import Role

__all__ = [
    "CURVE_KS",
    "MODES",
    "EvalResult",
    "Failure",
    "RoleRow",
    "Row",
    "ScoreSplit",
    "evaluate",
    "main",
    "resolve_embedders",
    "run",
    "split_list",
]

MODES: tuple[RetrievalMode, ...] = ("dense", "bm25", "hybrid")
CURVE_KS = tuple(range(1, 21))
TABLE_KS = (1, 5)
"""Recall cut-offs read off the ranking; the configured ``k`` is read off the selection."""
EVAL_TIME_BUDGET = 60.0
DEFAULT_OUT = Path("evals/out")


@dataclass(frozen=True)
class Failure:
    """A case whose selection missed some of its tools."""

    prompt: str
    missing: tuple[str, ...]

    def __str__(self) -> str:
        return f'"{self.prompt}" → {", ".join(self.missing)}'


@dataclass(frozen=True)
class Row:
    """One language x mode x example configuration of one embedder."""

    embedder: str
    language: str
    mode: str
    examples: bool
    split: Split
    """``tune`` (in-sample) or ``held`` (held back)."""
    cases: int
    recall: dict[int, float]
    """Recall at each cut-off; the configured ``k`` is measured on what ``select()`` bound."""
    curve: tuple[float, ...]
    """Recall at k = 1..20, from the ranking."""
    narrowed: float
    """Share of cases whose selection held fewer tools than the roster."""
    no_signal: float
    """Share of cases where every candidate scored zero: the selection narrowed, but to the
    first tools in catalog order (what a lexical ranker does with a message it cannot read)."""
    bound: float
    """Average number of tools bound (core + retrieved)."""
    roster: int
    failures: tuple[Failure, ...]


@dataclass(frozen=True)
class ScoreSplit:
    """Dense scores of true matches against off-topic messages, for one embedder and config."""

    embedder: str
    examples: bool
    true_scores: tuple[tuple[str, float], ...]
    """Per case: its language and the score of its weakest-scoring needed tool."""
    off_topic_scores: tuple[tuple[str, float], ...]
    """Per off-topic message: its language and the best score any tool got."""

    @property
    def weakest_true(self) -> float:
        return min(score for _, score in self.true_scores)

    @property
    def strongest_off_topic(self) -> float:
        return max(score for _, score in self.off_topic_scores)

    @property
    def true_below_strongest_off_topic(self) -> int:
        """True matches a floor that drops every off-topic message would also drop."""
        ceiling = self.strongest_off_topic
        return sum(1 for _, score in self.true_scores if score <= ceiling)

    @property
    def off_topic_above_weakest_true(self) -> int:
        """Off-topic messages a floor that keeps every true match would still let through."""
        floor = self.weakest_true
        return sum(1 for _, score in self.off_topic_scores if score >= floor)


@dataclass(frozen=True)
class RoleRow:
    """Dense recall with examples embedded in one role, for one language."""

    embedder: str
    role: Role
    language: str
    recall: dict[int, float]
    mrr: float


@dataclass
class EvalResult:
    """Everything one run measured."""

    k: int
    roster: int
    rows: list[Row] = field(default_factory=list)
    splits: list[ScoreSplit] = field(default_factory=list)
    roles: list[RoleRow] = field(default_factory=list)
    embedders: list[str] = field(default_factory=list)
    chosen_roles: dict[str, Role] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    elapsed: float = 0.0

    def row(
        self, embedder: str, language: str, mode: str, examples: bool, split: Split = HELD
    ) -> Row:
        """The row for one configuration and half of the cases."""
        wanted = (embedder, language, mode, examples, split)
        for row in self.rows:
            if (row.embedder, row.language, row.mode, row.examples, row.split) == wanted:
                return row
        raise KeyError(wanted)

    @property
    def gate_rows(self) -> list[Row]:
        """The CI gate's configuration: the bundled model, dense, with examples."""
        bundled = BundledE5Embedder.model_id
        return [
            row
            for row in self.rows
            if row.embedder == bundled and row.mode == "dense" and row.examples
        ]

    @property
    def gate_passed(self) -> bool | None:
        """Every gated selection narrowed, and each language's held-back recall at each gated
        cut-off is at or above its threshold (``evals.gate.THRESHOLDS``). None when the gate
        was not run."""
        rows = self.gate_rows
        if not rows:
            return None
        narrowed = all(row.narrowed == 1.0 for row in rows)
        held = [row for row in rows if row.split == HELD]
        return narrowed and all(
            row.recall[cut] >= minimum - 1e-9
            for row in held
            for cut, minimum in THRESHOLDS.get(row.language, {self.k: 1.0}).items()
            if cut in row.recall
        )


def needed(case: Case, catalog: Catalog) -> tuple[str, ...]:
    """The non-core tools a case needs: what recall is measured over."""
    return tuple(name for name in case.tools if not catalog[name].core)


async def evaluate(
    embedders: Sequence[Embedder],
    *,
    modes: Sequence[RetrievalMode] = MODES,
    languages: Sequence[str] = LANGUAGES,
    examples: Sequence[bool] = (True, False),
    k: int = DEFAULT_K,
    role_study: bool = True,
    log: bool = True,
) -> EvalResult:
    """Measure every configuration for every embedder (the CI gate reads the bundled model's)."""
    started = time.perf_counter()
    catalogs = {flag: build_catalog(examples=flag) for flag in examples}
    roster = len(build_catalog(examples=False))
    result = EvalResult(k=k, roster=roster)
    cases = [case for case in CASES if case.language in languages]
    for inner in embedders:
        memo = MemoEmbedder(inner)
        try:
            await memo.embed_queries([c.prompt for c in cases] + [o.prompt for o in OFF_TOPIC])
        except Exception as error:  # an unreachable provider skips that embedder, loudly
            result.skipped[inner.model_id] = repr(error)
            _say(log, f"skipping {inner.model_id}: {error!r}")
            continue
        result.embedders.append(memo.model_id)
        result.chosen_roles[memo.model_id] = memo.example_role
        for flag, catalog in catalogs.items():
            for mode in modes:
                tick = time.perf_counter()
                retriever = InMemoryRetriever(memo, mode=mode, k=k, time_budget=EVAL_TIME_BUDGET)
                await retriever.index(catalog)
                for language in languages:
                    for split in SPLITS:
                        chosen = [c for c in cases if c.language == language and c.split == split]
                        result.rows.append(
                            await _measure(retriever, catalog, chosen, language, mode, flag, k)
                        )
                _say(
                    log,
                    f"{memo.model_id} {mode:<6} examples={flag!s:<5} "
                    f"{time.perf_counter() - tick:5.1f}s ({memo.embedded} texts embedded)",
                )
            if "dense" in modes:
                result.splits.append(await _score_split(memo, catalog, cases, flag))
        if role_study and True in catalogs:
            tuning = [case for case in cases if case.split == TUNE]
            for role in ("query", "document"):
                result.roles += await _role_study(
                    memo.with_example_role(role), catalogs[True], tuning, languages, k
                )
            _say(log, f"{memo.model_id} example-role study done ({memo.embedded} texts)")
    result.elapsed = time.perf_counter() - started
    return result


async def _measure(
    retriever: InMemoryRetriever,
    catalog: Catalog,
    cases: Sequence[Case],
    language: str,
    mode: RetrievalMode,
    examples: bool,
    k: int,
) -> Row:
    curve = [0.0] * len(CURVE_KS)
    found_at_k = narrowed = bound = no_signal = 0.0
    failures: list[Failure] = []
    for case in cases:
        wanted = needed(case, catalog)
        selection = await retriever.select(catalog, case.prompt)
        missing = tuple(name for name in wanted if name not in selection.names)
        found_at_k += 1 - len(missing) / len(wanted)
        if missing:
            failures.append(Failure(case.prompt, missing))
        narrowed += selection.mode is Mode.NARROWED and len(selection.tools) < len(catalog)
        bound += len(selection.tools)
        ranking = await retriever.rank(catalog, case.prompt)
        no_signal += max(ranking.scores.values(), default=0.0) <= 0
        for i, share in enumerate(await _curve(retriever, catalog, case.prompt, wanted)):
            curve[i] += share
    n = len(cases) or 1
    recall = {cut: curve[CURVE_KS.index(cut)] / n for cut in TABLE_KS}
    recall[k] = found_at_k / n
    return Row(
        embedder=retriever.embedder.model_id,
        language=language,
        mode=mode,
        examples=examples,
        split=cases[0].split if cases else TUNE,
        cases=len(cases),
        recall=recall,
        curve=tuple(value / n for value in curve),
        narrowed=narrowed / n,
        no_signal=no_signal / n,
        bound=bound / n,
        roster=len(catalog),
        failures=tuple(failures),
    )


async def _curve(
    retriever: InMemoryRetriever, catalog: Catalog, prompt: str, wanted: Sequence[str]
) -> list[float]:
    """Share of ``wanted`` found at each k in ``CURVE_KS``."""
    ranking = await retriever.rank(catalog, prompt)
    order = top_k(catalog, ranking.scores, len(catalog.candidates))
    place = {name: i for i, name in enumerate(order)}
    return [sum(place[name] < cut for name in wanted) / len(wanted) for cut in CURVE_KS]


async def _score_split(
    embedder: MemoEmbedder, catalog: Catalog, cases: Sequence[Case], examples: bool
) -> ScoreSplit:
    retriever = InMemoryRetriever(embedder, mode="dense", time_budget=EVAL_TIME_BUDGET)
    true_scores = []
    for case in cases:
        scores = (await retriever.rank(catalog, case.prompt)).scores
        true_scores.append((case.language, min(scores[name] for name in needed(case, catalog))))
    off_topic = []
    for message in OFF_TOPIC:
        scores = (await retriever.rank(catalog, message.prompt)).scores
        off_topic.append((message.language, max(scores.values())))
    return ScoreSplit(embedder.model_id, examples, tuple(true_scores), tuple(off_topic))


async def _role_study(
    embedder: MemoEmbedder,
    catalog: Catalog,
    cases: Sequence[Case],
    languages: Sequence[str],
    k: int,
) -> list[RoleRow]:
    retriever = InMemoryRetriever(embedder, mode="dense", time_budget=EVAL_TIME_BUDGET)
    rows = []
    cuts = (*TABLE_KS, k)
    for language in languages:
        chosen = [case for case in cases if case.language == language]
        hits = dict.fromkeys(cuts, 0.0)
        reciprocal = 0.0
        for case in chosen:
            wanted = needed(case, catalog)
            ranking = await retriever.rank(catalog, case.prompt)
            order = top_k(catalog, ranking.scores, len(catalog.candidates))
            place = {name: i for i, name in enumerate(order)}
            for cut in cuts:
                hits[cut] += sum(place[name] < cut for name in wanted) / len(wanted)
            reciprocal += sum(1 / (place[name] + 1) for name in wanted) / len(wanted)
        n = len(chosen) or 1
        rows.append(
            RoleRow(
                embedder.model_id,
                embedder.example_role,
                language,
                {cut: value / n for cut, value in hits.items()},
                reciprocal / n,
            )
        )
    return rows


def configured_embedders(names: Iterable[str] | None = None) -> list[Embedder]:
    """The bundled model, then Gemini when ``GEMINI_API_KEY`` is set (or as ``names`` ask)."""
    settings = Settings()
    has_key = settings.gemini_api_key is not None and bool(
        settings.gemini_api_key.get_secret_value()
    )
    wanted = list(names) if names is not None else ["bundled", *(["gemini"] if has_key else [])]
    embedders: list[Embedder] = []
    for name in wanted:
        if name == "bundled":
            embedders.append(BundledE5Embedder())
        elif name == "gemini":
            if not has_key:
                raise SystemExit("the gemini embedder needs GEMINI_API_KEY")
            embedders.append(make_embedder(settings))
        else:
            raise SystemExit(f"unknown embedder {name!r}; use bundled or gemini")
    return embedders


def run(
    out_dir: Path | str | None = DEFAULT_OUT,
    *,
    modes: Sequence[RetrievalMode] = MODES,
    languages: Sequence[str] = LANGUAGES,
    embedders: Sequence[str] | Sequence[Embedder] | None = None,
    examples: Sequence[bool] = (True, False),
    k: int = DEFAULT_K,
    role_study: bool = True,
    plots: bool = True,
    log: bool = True,
) -> EvalResult:
    """Run the eval and write ``report.md`` and the plots into ``out_dir`` (None: no files).

    ``embedders`` takes names (``bundled``, ``gemini``) or ``Embedder`` objects; by default the
    bundled model, plus Gemini when ``GEMINI_API_KEY`` is set.
    """
    chosen = resolve_embedders(embedders)

    async def go() -> EvalResult:
        try:
            return await evaluate(
                chosen,
                modes=modes,
                languages=languages,
                examples=examples,
                k=k,
                role_study=role_study,
                log=log,
            )
        finally:
            for embedder in chosen:
                await embedder.aclose()

    result = asyncio.run(go())
    if out_dir is not None:
        from evals.report import write_report

        write_report(result, Path(out_dir), plots=plots)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evals.runner``: print the table, write the report; 1 if the CI gate fails."""
    parser = argparse.ArgumentParser(
        prog="python -m evals.runner", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="report directory")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated modes")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated")
    parser.add_argument(
        "--embedders", default=None, help="bundled,gemini (default: bundled, + gemini with a key)"
    )
    parser.add_argument("--k", type=int, default=DEFAULT_K, help="tools retrieved per turn")
    parser.add_argument(
        "--no-examples-baseline", action="store_true", help="skip descriptions-only"
    )
    parser.add_argument("--no-role-study", action="store_true", help="skip the example-role study")
    parser.add_argument("--no-plots", action="store_true", help="write the table only")
    parser.add_argument(
        "--long-messages",
        action="store_true",
        help="also run the long-message study (evals.truncation; slow) into OUT/truncation.md",
    )
    args = parser.parse_args(argv)
    modes = tuple(split_list(args.modes))
    unknown = [mode for mode in modes if mode not in MODES]
    if unknown:
        parser.error(f"unknown mode {unknown[0]!r}; use {', '.join(MODES)}")
    started = time.perf_counter()
    result = run(
        args.out,
        modes=modes,  # type: ignore[arg-type]
        languages=tuple(split_list(args.languages)),
        embedders=tuple(split_list(args.embedders)) if args.embedders else None,
        examples=(True,) if args.no_examples_baseline else (True, False),
        k=args.k,
        role_study=not args.no_role_study,
        plots=not args.no_plots,
    )
    from evals.report import console_report

    print(console_report(result))
    if args.long_messages:
        from evals import truncation

        truncation.main(["--out", str(args.out)])
    print(f"\nreport: {args.out / 'report.md'}  ({time.perf_counter() - started:.1f}s)")
    return 1 if result.gate_passed is False else 0


def resolve_embedders(embedders: Sequence[str] | Sequence[Embedder] | None) -> list[Embedder]:
    """The embedders named (or given), or every configured one."""
    if not embedders:
        return configured_embedders()
    names = [e for e in embedders if isinstance(e, str)]
    objects = [e for e in embedders if not isinstance(e, str)]
    return (configured_embedders(names) if names else []) + objects


def split_list(value: str) -> list[str]:
    """A comma-separated option's items."""
    return [part.strip() for part in value.split(",") if part.strip()]


def _say(log: bool, message: str) -> None:
    if log:
        print(f"[eval] {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
