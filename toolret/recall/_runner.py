"""``toolret recall DIR``: recall and MRR on benchmark folders, for both retrievers: the one runner.

For each benchmark set — a folder given (``toolret.recall._data``), or, from a checkout, the
roster's two halves (``python -m evals.recall``) — with and without the tools' example
requests:

- the in-memory retriever in every mode (dense, bm25, hybrid);
- the pgvector client (``ToolRetrievalClient``) in the same modes, on the database
  ``DATABASE_URL`` names, else the embedded Postgres — and whether its selections equal the
  in-memory retriever's, case by case.

Per language: recall@1/3/5/20 and MRR read off the full ranking, recall@k (12) off what
``select()`` bound, the share of messages with every tool they need bound (at 5, k and 20: a
fleet's requests need two or three), the share with no signal (every tool scored 0), and the
tools bound, and the share of selections that narrowed. A set with no more candidate tools
than ``k`` is refused with a message (``check_measurable``): every selection would bind all of
it. ``--study`` adds the comparisons behind each ranking choice
(``toolret.recall.studies``). Writes ``report.md`` and recall@k plots (``toolret.recall._report``).

Every text is embedded once (``MemoEmbedder``) and shared by the retrievers and the studies.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolret._catalog import Catalog
from toolret._profile import corpus_documents
from toolret._settings import EMBEDDERS, RetrievalMode, Settings, embedder_kind, make_embedder
from toolret.embedders._base import Embedder, embed_role
from toolret.embedders._cache import with_query_cache
from toolret.embedders._e5 import BundledE5Embedder
from toolret.errors import ConfigurationError
from toolret.recall._data import BenchmarkError, BenchSet, load_benchmark
from toolret.recall._halves import HALVES, Half, half_of
from toolret.recall._memo import MemoEmbedder
from toolret.recall._results import (
    TIME_BUDGET,
    Agreement,
    BenchResult,
    BenchRow,
    Rank,
    rank_metrics,
    ranker,
)
from toolret.retrieval._memory import InMemoryRetriever
from toolret.retrieval._selection import DEFAULT_K, Mode, Selection

if TYPE_CHECKING:  # the client loads the store: imported where it runs
    from toolret.retrieval._client import ToolRetrievalClient

__all__ = [
    "check_measurable",
    "configured_embedders",
    "evaluate_recall",
    "main",
    "resolve_embedders",
    "run_recall",
    "split_list",
]

MODES: tuple[RetrievalMode, ...] = ("dense", "bm25", "hybrid")
DEFAULT_OUT = Path("evals/out/bench")


async def _measure(
    result: BenchResult,
    bench: BenchSet,
    memo: MemoEmbedder,
    *,
    modes: Sequence[RetrievalMode],
    database_url: str | None,
    k: int,
    log: bool,
) -> None:
    for flag in bench.example_flags:
        catalog = bench.catalog(examples=flag)
        memory: dict[str, dict[str, Selection]] = {}
        for mode in modes:
            retriever = InMemoryRetriever(memo, mode=mode, k=k, time_budget=TIME_BUDGET)
            await retriever.index(catalog)
            memory[mode] = await _rows(
                result,
                bench,
                catalog,
                "memory",
                mode,
                flag,
                memo.model_id,
                retriever.select,
                ranker(retriever, catalog),
                k,
            )
        if database_url is not None:
            clients = await _client_rows(result, bench, catalog, memo, flag, database_url, modes, k)
            for served, chosen in clients.items():
                same = _agreement(bench, memo.model_id, served, flag, memory[served], chosen)
                result.agreements.append(same)
        _say(log, f"{bench.name} examples={flag}: measured")


async def _client_rows(
    result: BenchResult,
    bench: BenchSet,
    catalog: Catalog,
    memo: MemoEmbedder,
    examples: bool,
    database_url: str,
    modes: Sequence[RetrievalMode],
    k: int,
) -> dict[str, dict[str, Selection]]:
    from toolret.retrieval._client import ToolRetrievalClient
    from toolret.store._vector_store import VectorStore

    store = VectorStore.from_url(database_url)
    selections: dict[str, dict[str, Selection]] = {}
    every = len(catalog.candidates)
    try:
        for mode in modes:
            async with ToolRetrievalClient(
                embedder=memo, store=store, mode=mode, k=k, time_budget=TIME_BUDGET
            ) as client:
                await client.index(catalog)
                rank = _client_ranker(client, catalog, every)
                selections[mode] = await _rows(
                    result,
                    bench,
                    catalog,
                    "client",
                    mode,
                    examples,
                    memo.model_id,
                    client.select,
                    rank,
                    k,
                )
    finally:
        await store.aclose()
    return selections


def _client_ranker(client: ToolRetrievalClient, catalog: Catalog, every: int) -> Rank:
    return lambda text: client.rank(catalog, text, every)


async def _rows(
    result: BenchResult,
    bench: BenchSet,
    catalog: Catalog,
    retriever: str,
    mode: str,
    examples: bool,
    embedder: str,
    select: Callable[[Catalog, str], Awaitable[Selection]],
    rank: Rank,
    k: int,
) -> dict[str, Selection]:
    selections: dict[str, Selection] = {}
    for language in bench.languages:
        cases = bench.cases_in(language)
        metrics = await rank_metrics(rank, catalog, cases)
        found = complete = bound = narrowed = 0.0
        for case in cases:
            selection = await select(catalog, case.query)
            narrowed += selection.mode is Mode.NARROWED
            selections[case.query] = selection
            bound_names = set(selection.names)
            found += sum(name in bound_names for name in case.expected) / len(case.expected)
            complete += all(name in bound_names for name in case.expected)
            bound += len(selection.tools)
        n = len(cases) or 1
        result.rows.append(
            BenchRow(
                bench.name,
                bench.tuning,
                retriever,
                embedder,
                language,
                mode,
                examples,
                metrics,
                found / n,
                complete / n,
                bound / n,
                len(catalog),
                narrowed / n,
            )
        )
    return selections


def _agreement(
    bench: BenchSet,
    embedder: str,
    mode: str,
    examples: bool,
    memory: dict[str, Selection],
    client: dict[str, Selection],
) -> Agreement:
    same = 0
    gap = 0.0
    for query, selection in memory.items():
        other = client[query]
        same += selection.names == other.names
        for name, score in selection.scores.items():
            if name in other.scores:
                gap = max(gap, abs(score - other.scores[name]))
    return Agreement(bench.name, embedder, mode, examples, len(memory), same, gap)


async def _embed_everything(memo: MemoEmbedder, sets: Sequence[BenchSet]) -> None:
    """Embed every query and document once, before anything is timed: queries one by one
    through the retrievers' own path (cut to the model's query window), documents in batches."""
    guarded = with_query_cache(memo)
    for query in dict.fromkeys(case.query for bench in sets for case in bench.cases):
        await guarded.embed_query(query)
    for bench in sets:
        documents = corpus_documents(bench.catalog(examples=bool(bench.examples)), memo)
        for role in ("document", "query"):
            texts = [doc.text for _, doc in documents if doc.role == role]
            await embed_role(guarded, texts, role)


async def evaluate_recall(
    sets: Sequence[BenchSet],
    embedders: Sequence[Embedder],
    *,
    modes: Sequence[RetrievalMode] = MODES,
    database_url: str | None = None,
    studies: Sequence[str] = (),
    k: int = DEFAULT_K,
    log: bool = True,
    memo_file: Path | None = None,
) -> BenchResult:
    """Measure every set with every embedder; run the ``studies`` on the tuning sets.

    ``memo_file`` keeps every vector between runs (one model's: the first embedder's)."""
    from toolret.recall.studies import run_study

    started = time.perf_counter()
    result = BenchResult(k=k, sets=list(sets))
    for inner in embedders:
        memo = MemoEmbedder(inner)
        if memo_file is not None:
            _say(log, f"{memo.load(memo_file)} vectors from {memo_file}")
        try:
            await _embed_everything(memo, sets)
        except Exception as error:  # an unreachable provider skips that embedder, loudly
            result.skipped[inner.model_id] = repr(error)
            _say(log, f"skipping {inner.model_id}: {error!r}")
            continue
        result.embedders.append(memo.model_id)
        for bench in sets:
            await _measure(
                result, bench, memo, modes=modes, database_url=database_url, k=k, log=log
            )
        tuning = [bench for bench in sets if bench.tuning]
        for study in studies:
            if study == "sparse" and memo.sparse_head is None:
                _say(log, f"{memo.model_id} has no sparse head: no sparse study")
                continue
            tick = time.perf_counter()
            result.studies.append(await run_study(study, memo, tuning, k=k))
            _say(log, f"{memo.model_id} study {study}: {time.perf_counter() - tick:.0f} s")
            if memo_file is not None:
                memo.save(memo_file)
        if memo_file is not None:
            memo.save(memo_file)
            memo_file = None  # one model's vectors
    result.elapsed = time.perf_counter() - started
    return result


def run_recall(
    folders: Sequence[Path | str],
    out_dir: Path | str | None = DEFAULT_OUT,
    *,
    embedders: Sequence[str] | Sequence[Embedder] | None = None,
    modes: Sequence[RetrievalMode] = MODES,
    retrievers: Sequence[str] = ("memory", "client"),
    database_url: str | None = None,
    extra_sets: Sequence[BenchSet] = (),
    studies: Sequence[str] = (),
    k: int = DEFAULT_K,
    plots: bool = True,
    log: bool = True,
    memo_file: Path | None = None,
    half: Half | None = None,
) -> BenchResult:
    """Load the folders (``half``: only that half of each one's requests, ``_halves``; the
    ``extra_sets`` keep theirs), measure, write the report (``out_dir`` None: no files). The
    client runs on ``database_url``, else ``DATABASE_URL``, else the embedded Postgres."""
    sets = [load_benchmark(folder) for folder in folders]
    sets = [half_of(b, half) for b in sets] if half else sets
    sets += extra_sets
    for bench in sets:
        check_measurable(bench, k)
    chosen = resolve_embedders(embedders)
    url = None
    if "client" in retrievers:
        from toolret.store.embedded import resolve_database_url

        url = database_url or resolve_database_url()

    async def go() -> BenchResult:
        try:
            return await evaluate_recall(
                sets,
                chosen,
                modes=modes,
                database_url=url,
                studies=studies,
                k=k,
                log=log,
                memo_file=memo_file,
            )
        finally:
            for embedder in chosen:
                await embedder.aclose()

    result = asyncio.run(go())
    if out_dir is not None:
        from toolret.recall._report import write_recall_report

        write_recall_report(result, Path(out_dir), plots=plots)
    return result


def main(argv: Sequence[str] | None = None, extra_sets: Sequence[BenchSet] = ()) -> int:
    """``toolret recall DIR [DIR ...]``: print the tables, write the report; ``extra_sets``
    beside the folders (the roster's halves, from a checkout: ``python -m evals.recall``)."""
    from toolret.recall.studies import STUDIES

    parser = argparse.ArgumentParser(
        prog="python -m toolret.recall._runner", description=__doc__.split("\n")[0]
    )
    parser.add_argument("folders", nargs="*", type=Path, help="benchmark folders")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="report directory")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated modes")
    parser.add_argument("--retrievers", default="memory,client", help="memory,client")
    parser.add_argument("--embedders", default=None, help="bundled,gemini")
    parser.add_argument("--k", type=int, default=DEFAULT_K, help="tools retrieved per turn")
    parser.add_argument(
        "--study",
        default="",
        help=f"comma-separated: {', '.join(STUDIES)}, or all (on the tuning sets only)",
    )
    parser.add_argument("--no-plots", action="store_true", help="write the tables only")
    parser.add_argument(
        "--memo", type=Path, default=None, help="keep every vector in this file between runs"
    )
    halves = "only this half of each folder's requests, by scenario (A tunes, B confirms)"
    parser.add_argument("--half", choices=HALVES, default=None, help=halves)
    args = parser.parse_args(argv)
    if not args.folders and not extra_sets:
        parser.error("give at least one benchmark folder")
    modes = split_list(args.modes)
    unknown = [mode for mode in modes if mode not in MODES]
    if unknown:
        parser.error(f"unknown mode {unknown[0]!r}; use {', '.join(MODES)}")
    studies = list(STUDIES) if args.study == "all" else split_list(args.study)
    if [study for study in studies if study not in STUDIES]:
        parser.error(f"unknown study in {args.study!r}; use {', '.join(STUDIES)} or all")
    retrievers = split_list(args.retrievers)
    if not set(retrievers) <= {"memory", "client"} or "memory" not in retrievers:
        parser.error("--retrievers takes memory, or memory,client")
    started = time.perf_counter()
    try:
        result = run_recall(
            args.folders,
            args.out,
            embedders=split_list(args.embedders) if args.embedders else None,
            modes=modes,  # type: ignore[arg-type]
            retrievers=retrievers,
            extra_sets=extra_sets,
            studies=studies,
            k=args.k,
            plots=not args.no_plots,
            memo_file=args.memo,
            half=args.half,
        )
    except BenchmarkError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from toolret.recall._report import console_recall_report

    print(console_recall_report(result))
    print(f"\nreport: {args.out / 'report.md'}  ({time.perf_counter() - started:.1f}s)")
    return 0 if all(agreement.all_same for agreement in result.agreements) else 1


def check_measurable(bench: BenchSet, k: int) -> None:
    """Raise ``BenchmarkError`` for a set with no more candidate tools than ``k``: every
    selection would bind them all (the pass-through), so recall at ``k`` says nothing."""
    candidates = len(bench.catalog(examples=False).candidates)
    if candidates <= k:
        raise BenchmarkError(
            f"{bench.name} has {candidates} candidate tools, no more than k={k}: every "
            "selection would bind them all (the pass-through), so there is nothing to measure; "
            f"measure it with --k {max(candidates - 1, 1)} or lower, or add tools"
        )


def configured_embedders(names: Iterable[str] | None = None) -> list[Embedder]:
    """The bundled model, then the embedder the settings choose (``TOOLRET_EMBEDDER``) when it
    is another; or the embedders ``names`` ask for (bundled, gemini, openai, azure)."""
    settings = Settings()
    chosen = embedder_kind(settings)
    wanted = list(names) if names is not None else ["bundled", chosen]
    embedders: list[Embedder] = []
    for name in dict.fromkeys(wanted):
        if name == "bundled":
            embedders.append(BundledE5Embedder(sparse=settings.sparse))
        elif name in EMBEDDERS:
            try:
                embedders.append(make_embedder(settings.model_copy(update={"embedder": name})))
            except ConfigurationError as error:
                raise SystemExit(f"the {name} embedder: {error}") from error
        else:
            raise SystemExit(f"unknown embedder {name!r}; use one of {', '.join(EMBEDDERS)}")
    return embedders


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
        print(f"[recall] {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
