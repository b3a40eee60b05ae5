"""``toolret eval``: the roster eval from a checkout, or ``--bench DIR`` on any install."""

from __future__ import annotations

from typing import Annotated

import typer

from toolret.cli._errors import fail

__all__ = ["eval_"]


def eval_(
    out: Annotated[str, typer.Option(help="Directory for report.md and the plots.")] = "evals/out",
    modes: Annotated[str, typer.Option(help="Comma-separated: dense,bm25,hybrid.")] = (
        "dense,bm25,hybrid"
    ),
    languages: Annotated[str, typer.Option(help="Comma-separated case languages.")] = "en,ar,tr",
    embedders: Annotated[
        str | None,
        typer.Option(help="bundled,gemini (default: the bundled model, plus Gemini with a key)."),
    ] = None,
    k: Annotated[int, typer.Option(min=1, help="Non-core tools bound per selection.")] = 12,
    baseline: Annotated[
        bool, typer.Option(help="Also measure the roster without example requests.")
    ] = True,
    plots: Annotated[bool, typer.Option(help="Draw the PNG plots.")] = True,
    bench: Annotated[
        list[str] | None,
        typer.Option(
            help="A benchmark folder (tools.jsonl or an MCP fleet's servers.json, cases.jsonl, "
            "examples.json); repeatable. Measures it with both retrievers instead of the roster "
            "(works from any install)."
        ),
    ] = None,
    study: Annotated[
        str,
        typer.Option(
            help="With --bench: template, role, score, hybrid, documents, servers, clauses "
            "(comma-separated) or all: compare the candidates for that ranking choice on the "
            "tuning sets."
        ),
    ] = "",
    memo: Annotated[
        str | None,
        typer.Option(help="With --bench: keep every vector in this file between runs."),
    ] = None,
) -> None:
    """Measure retrieval on the 44-tool roster: recall@1/5/12 and narrowing per language and mode.

    Every case must find its tools within the top k and narrow the roster (the CI gate, checked
    with the bundled model in dense mode). Writes a markdown table and PNG plots (recall@k
    curves; weakest true match against strongest off-topic score) to --out. Exits 1 when the
    gate fails, printing each "prompt" → missing tool.

    The roster eval runs from a checkout of the toolret repository (its cases are not
    packaged). With --bench DIR, from any install: recall@1/3/5/12/20, the share of requests
    with every tool they need bound, and MRR per language on that folder, in every mode, with
    and without examples, for the in-memory retriever and the pgvector client (DATABASE_URL,
    else the embedded Postgres); --study adds the comparisons behind the ranking choices.
    Report in --out/bench (plots with the [eval] extra).
    """
    if bench:
        from toolret.recall._runner import main as run_bench

        argv = [*bench, "--out", f"{out}/bench", "--modes", modes, "--k", str(k)]
        argv += ["--study", study] if study else []
        argv += ["--embedders", embedders] if embedders else []
        argv += [] if plots else ["--no-plots"]
        argv += ["--memo", memo] if memo else []
        raise typer.Exit(run_bench(argv))

    try:
        from evals.recall.runner import main as run_eval
    except ModuleNotFoundError:
        fail(
            "the roster eval's cases are not part of the package: run `toolret eval` from a "
            "checkout of the toolret repository (`make eval`), or `toolret eval --bench DIR` "
            "on a benchmark folder of your own",
            2,
        )
    argv = ["--out", out, "--modes", modes, "--languages", languages, "--k", str(k)]
    argv += ["--embedders", embedders] if embedders else []
    argv += [] if baseline else ["--no-examples-baseline"]
    argv += [] if plots else ["--no-plots"]
    raise typer.Exit(run_eval(argv))
