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
off-topic score (why there is no similarity floor: they overlap), and whether example
requests rank better embedded as queries or as documents (a choice, so measured on the tuning
half only). The CI gate (``evals.recall.gate``) reads the held-back rows.

``--long-messages`` adds the long-message study (``evals.studies.truncation``): each case inside a
pasted email or log, cut to the query window keeping head, tail or both, at 128/256/512 tokens.

Every text is embedded once per embedder (``MemoEmbedder``) and reused across modes and cases.
The retrievers get a generous time budget, so the eval measures ranking, not machine load.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from evals.data.cases import CASES, LANGUAGES, OFF_TOPIC, SPLITS, TUNE, Case
from evals.recall.results import CURVE_KS, TABLE_KS, EvalResult, Failure, RoleRow, Row, ScoreSplit
from toolret._catalog import Catalog
from toolret._settings import RetrievalMode
from toolret.demo.roster import build_catalog
from toolret.embedders._base import Embedder
from toolret.recall._memo import MemoEmbedder
from toolret.recall._runner import resolve_embedders, split_list
from toolret.retrieval._memory import InMemoryRetriever
from toolret.retrieval._selection import DEFAULT_K, Mode, top_k

__all__ = ["MODES", "evaluate", "main", "run"]

MODES: tuple[RetrievalMode, ...] = ("dense", "bm25", "hybrid")
EVAL_TIME_BUDGET = 60.0
DEFAULT_OUT = Path("evals/out")


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
        from evals.recall.report import write_report

        write_report(result, Path(out_dir), plots=plots)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evals.recall.runner``: print the table, write the report; 1 if the gate fails."""
    parser = argparse.ArgumentParser(
        prog="python -m evals.recall.runner", description=__doc__.split("\n")[0]
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
        help="also run the long-message study (evals.studies.truncation; slow): OUT/truncation.md",
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
    from evals.recall.report import console_report

    print(console_report(result))
    if args.long_messages:
        from evals.studies import truncation

        truncation.main(["--out", str(args.out)])
    print(f"\nreport: {args.out / 'report.md'}  ({time.perf_counter() - started:.1f}s)")
    return 1 if result.gate_passed is False else 0


def _say(log: bool, message: str) -> None:
    if log:
        print(f"[eval] {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
