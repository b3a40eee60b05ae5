"""``toolret recall``: recall on benchmark folders from any install, or on the roster from a
checkout. ``toolret eval`` (``--bench DIR`` for the folders) is the same command, hidden."""

from __future__ import annotations

from typing import Annotated

import typer

from toolret.cli._errors import fail

__all__ = ["eval_", "recall"]

Out = Annotated[str, typer.Option(help="Directory for report.md and the plots.")]
Modes = Annotated[str, typer.Option(help="Comma-separated: dense,bm25,hybrid.")]
Embedders = Annotated[
    str | None,
    typer.Option(
        help="bundled,gemini,openai,azure (default: the bundled model, plus the embedder "
        "TOOLRET_EMBEDDER chooses)."
    ),
]
K = Annotated[int, typer.Option(min=1, help="Non-core tools bound per selection.")]
Plots = Annotated[bool, typer.Option(help="Draw the PNG plots (the [eval] extra).")]
Study = Annotated[
    str,
    typer.Option(
        help="template, role, score, hybrid, documents, servers, clauses, fusion, names "
        "(comma-separated) or all: compare the candidates for that ranking choice on the "
        "tuning sets."
    ),
]
Memo = Annotated[str | None, typer.Option(help="Keep every vector in this file between runs.")]


def recall(
    folders: Annotated[
        list[str] | None,
        typer.Argument(
            help="Benchmark folders (tools.jsonl or an MCP fleet's servers.json, cases.jsonl, "
            "examples.json). None: the roster's two halves and the CI gate, from a checkout."
        ),
    ] = None,
    out: Out = "evals/out",
    modes: Modes = "dense,bm25,hybrid",
    embedders: Embedders = None,
    k: K = 12,
    plots: Plots = True,
    study: Study = "",
    memo: Memo = None,
) -> None:
    """Measure retrieval's recall: recall@1/3/5/k/20, the share of requests with every tool
    they need bound, and MRR, per set, language and mode, with and without examples, for the
    in-memory retriever and the pgvector client (DATABASE_URL, else the embedded Postgres).

    On benchmark folders this works from any install. With no folder, from a checkout of the
    toolret repository, it measures the 44-tool roster's tuning and held-back halves and its
    three fresh held-back sets, then runs the CI gate (exit 1 when it fails). A folder with no more
    tools than k is refused with a message (exit 2): every selection would bind all of it.
    Writes report.md and recall@k plots to --out. Latency is measured elsewhere: `make bench`.
    """
    argv = [*(folders or []), "--out", out, "--modes", modes, "--k", str(k)]
    argv += ["--study", study] if study else []
    argv += ["--embedders", embedders] if embedders else []
    argv += [] if plots else ["--no-plots"]
    argv += ["--memo", memo] if memo else []
    if folders:
        from toolret.recall._runner import main as run_folders

        raise typer.Exit(run_folders(argv))
    try:
        from evals.recall.roster_sets import measure as run_roster
    except ModuleNotFoundError:
        fail(
            "the roster's cases are not part of the package: run `toolret recall` from a "
            "checkout of the toolret repository (`make eval`), or `toolret recall DIR` on a "
            "benchmark folder of your own",
            2,
        )
    raise typer.Exit(run_roster(argv))


def eval_(
    bench: Annotated[
        list[str] | None, typer.Option(help="A benchmark folder; repeatable (`recall DIR`).")
    ] = None,
    out: Out = "evals/out",
    modes: Modes = "dense,bm25,hybrid",
    embedders: Embedders = None,
    k: K = 12,
    plots: Plots = True,
    study: Study = "",
    memo: Memo = None,
) -> None:
    """`toolret recall`, with `--bench DIR` for the folders."""
    recall(bench, out, modes, embedders, k, plots, study, memo)
