"""What the fleet studies share: the bundled model behind a memo, and a ``main`` that writes
the report.

``python -m evals.studies.<study> [--benchmarks DIR] [--out FILE] [--memo FILE]``: the study
reads the tuning benchmarks in DIR (``../shared/benchmarks``), prints its report and writes it to
FILE; ``--memo`` keeps the vectors between runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

from toolret.embedders._e5 import BundledE5Embedder
from toolret.recall._memo import MemoEmbedder

__all__ = ["BENCHMARKS", "bundled_memo", "report_main"]

BENCHMARKS = next(
    (
        folder / "shared" / "benchmarks"
        for folder in Path(__file__).resolve().parents
        if (folder / "shared" / "benchmarks" / "toollens-dev").is_dir()
    ),
    Path("../shared/benchmarks"),
)
"""``../shared/benchmarks`` from the checkout (or a worktree below it)."""

Study = Callable[[Path, MemoEmbedder], Awaitable[str]]


@contextlib.asynccontextmanager
async def bundled_memo(memo_file: Path | None = None) -> AsyncIterator[MemoEmbedder]:
    """The bundled model behind a memo, loaded from ``memo_file`` and saved back to it."""
    memo = MemoEmbedder(BundledE5Embedder())
    if memo_file is not None:
        memo.load(memo_file)
    try:
        yield memo
    finally:
        if memo_file is not None:
            memo.save(memo_file)
        await memo.aclose()


def report_main(doc: str, study: Study, out: Path, argv: Sequence[str] | None) -> int:
    """Parse the command line, run ``study`` on the benchmarks and write its report."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--benchmarks", type=Path, default=BENCHMARKS)
    parser.add_argument("--out", type=Path, default=out)
    parser.add_argument("--memo", type=Path, default=None, help="keep vectors between runs")
    args = parser.parse_args(argv)

    async def run() -> str:
        async with bundled_memo(args.memo) as memo:
            return await study(args.benchmarks, memo)

    report = asyncio.run(run())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    print(report)
    print(f"wrote {args.out}")
    return 0
