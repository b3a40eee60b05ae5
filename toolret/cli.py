"""The ``toolret`` command line: search, demo, and the operator commands."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolret.catalog import Catalog
from toolret.errors import ToolretError
from toolret.loading import load_catalog
from toolret.selection import Selection
from toolret.settings import RetrievalMode, Settings

__all__ = ["app", "main"]

app = typer.Typer(
    help="Semantic tool retrieval for LLM agents: the core tools plus the few a message needs.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
)
console = Console()

CatalogOption = Annotated[
    str,
    typer.Option(
        "--catalog",
        "-c",
        help="The tools: 'package.module:attribute' naming a Catalog, or a JSON file of "
        "OpenAI/Anthropic tools or an MCP tools/list result.",
    ),
]
KOption = Annotated[
    int | None,
    typer.Option("--k", "-k", min=1, help="How many non-core tools to bind [TOOLRET_K]."),
]
ModeOption = Annotated[
    RetrievalMode | None,
    typer.Option(
        "--mode",
        "-m",
        help="dense (embeddings), bm25 (lexical) or hybrid (union).",
        case_sensitive=False,
    ),
]


def main() -> None:
    """Entry point of the ``toolret`` script."""
    app()


@app.command()
def search(
    message: Annotated[str, typer.Argument(help="The user's message, in any language.")],
    catalog: CatalogOption = "evals.roster:catalog",
    k: KOption = None,
    mode: ModeOption = None,
) -> None:
    """Show which tools a message would be sent: core tools plus the best k, with scores.

    Prints the bound tools in catalog order, the mode (narrowed / passthrough / full), the
    reason when the full roster is sent, and the time the selection took.
    """
    settings = Settings()
    loaded = _load(catalog)
    selection = asyncio.run(_search(loaded, message, k or settings.k, mode or settings.mode))
    console.print(selection_table(loaded, selection, title=message))


async def _search(catalog: Catalog, message: str, k: int, mode: RetrievalMode) -> Selection:
    from toolret.memory import InMemoryRetriever

    async with InMemoryRetriever(mode=mode, k=k) as retriever:
        if mode != "bm25":
            with console.status(f"embedding {len(catalog)} tools…"):
                await retriever.index(catalog)
        return await retriever.select(catalog, message)


@app.command()
def demo() -> None:
    """Selections for English, Arabic and Turkish messages on the 44-tool demo roster.

    Runs on the bundled multilingual model with nothing to install and no key.
    """
    from toolret.demo import run_demo

    asyncio.run(run_demo(console))


@app.command("eval")
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
) -> None:
    """Measure retrieval on the 44-tool roster: recall@1/5/12 and narrowing per language and mode.

    Every case must find its tools within the top k and narrow the roster (the CI gate, checked
    with the bundled model in dense mode). Writes a markdown table and PNG plots (recall@k
    curves; weakest true match against strongest off-topic score) to --out. Exits 1 when the
    gate fails, printing each "prompt" → missing tool.
    """
    from evals.runner import main as run_eval

    argv = ["--out", out, "--modes", modes, "--languages", languages, "--k", str(k)]
    argv += ["--embedders", embedders] if embedders else []
    argv += [] if baseline else ["--no-examples-baseline"]
    argv += [] if plots else ["--no-plots"]
    raise typer.Exit(run_eval(argv))


def selection_table(catalog: Catalog, selection: Selection, *, title: str = "") -> Table:
    """A table of the bound tools: core flag, score, name, in catalog order."""
    caption = f"{selection.mode.value}"
    if selection.reason is not None:
        caption += f" ({selection.reason.value})"
    caption += f" · {len(selection.tools)}/{len(catalog)} tools · {selection.elapsed_ms:.1f} ms"
    table = Table(title=title, caption=caption)
    table.add_column("tool")
    table.add_column("domain")
    table.add_column("why", justify="right")
    for tool in selection.tools:
        score = selection.scores.get(tool.name)
        why = "core" if tool.core else (f"{score:.3f}" if score is not None else "—")
        table.add_row(tool.name, tool.domain, why)
    return table


def _load(spec: str) -> Catalog:
    try:
        return load_catalog(spec)
    except ToolretError as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
