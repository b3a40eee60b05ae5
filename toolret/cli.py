"""The ``toolret`` command line: search, demo, lint, and the operator commands.

Any ``ToolretError`` a command raises ends it with one line on stderr — ``error:`` and the
message, which says what to do — and exit status 1 (2 for a catalog that cannot be loaded),
never a traceback: the errors are expected conditions (no database, an unmigrated schema, a
Redis that is down), not bugs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
import typer.core
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, TaskID
from rich.table import Table

from toolret.catalog import Catalog
from toolret.errors import ConfigurationError, ToolretError
from toolret.examples_cli import examples_app
from toolret.feedback_cli import feedback_app
from toolret.loading import load_catalog
from toolret.selection import Selection
from toolret.settings import RetrievalMode, Settings

if TYPE_CHECKING:
    from toolret.client import ToolRetrievalClient
    from toolret.lint import LintReport

__all__ = ["app", "main"]


class _Commands(typer.core.TyperGroup):
    """The command group: turns a ``ToolretError`` from any command into one line and exit 1."""

    def invoke(self, ctx: Any) -> Any:  # Typer's vendored click.Context is private
        try:
            return super().invoke(ctx)
        except ToolretError as error:
            _fail(error)


app = typer.Typer(
    cls=_Commands,
    help="Semantic tool retrieval for LLM agents: the core tools plus the few a message needs.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
)
console = Console()
error_console = Console(stderr=True, soft_wrap=True)


def _fail(error: BaseException | str, code: int = 1) -> NoReturn:
    """Print ``error: <message>`` on one line to stderr and exit with ``code``."""
    message = " ".join(str(error).split()) or repr(error)
    error_console.print(f"[red]error:[/red] {escape(message)}")
    raise typer.Exit(code)


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
        help="dense (embeddings), bm25 (lexical) or hybrid (dense + BM25 where words match).",
        case_sensitive=False,
    ),
]


def main() -> None:
    """Entry point of the ``toolret`` script.

    Like ``python -m`` and ``arq``, it puts the working directory on the import path, so
    ``--catalog myapp.tools:catalog`` works from a checkout without installing ``myapp``.
    """
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    app()


@app.command()
def search(
    message: Annotated[str, typer.Argument(help="The user's message, in any language.")],
    catalog: CatalogOption = "toolret.demo_roster:catalog",
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
    if mode == "dense":
        return await _search_store(catalog, message, k)
    from toolret.memory import InMemoryRetriever

    async with InMemoryRetriever(mode=mode, k=k) as retriever:
        if mode != "bm25":
            with console.status(f"embedding {len(catalog)} tools…"):
                await retriever.index(catalog)
        return await retriever.select(catalog, message)


async def _search_store(catalog: Catalog, message: str, k: int) -> Selection:
    """Dense search through the database client: DATABASE_URL, or the embedded Postgres."""
    async with indexed_client(catalog, k) as client:
        return await client.select(catalog, message)


@contextlib.asynccontextmanager
async def indexed_client(
    catalog: Catalog, k: int | None = None
) -> AsyncIterator[ToolRetrievalClient]:
    """A ``ToolRetrievalClient`` on DATABASE_URL (else the embedded Postgres, started and
    migrated), with ``catalog`` indexed: what is missing is embedded now, with a progress bar.
    """
    from toolret.client import ToolRetrievalClient
    from toolret.embedded_pg import resolve_database_url

    with console.status("opening the database…"):
        url = await asyncio.to_thread(resolve_database_url)
    async with ToolRetrievalClient(url, k=k) as client:
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task(f"indexing {len(catalog)} tools", total=None, visible=False)
            report = await client.index(
                catalog,
                progress=lambda done, total: bar.update(
                    task, completed=done, total=total, visible=total > 0
                ),
            )
        console.print(
            f"[dim]{report.documents} documents of {len(catalog)} tools indexed for "
            f"{report.model_id}: {report.embedded} embedded now, {report.reused} already stored "
            f"({report.seconds:.1f} s)[/dim]"
        )
        yield client


@app.command()
def demo() -> None:
    """Selections for English, Arabic and Turkish messages on the 44-tool demo roster.

    Runs on the defaults with nothing to install and no key: the bundled multilingual model and
    an embedded Postgres with pgvector (or DATABASE_URL). The first run embeds the roster
    (about half a minute on two cores); later runs reuse the stored vectors.
    """
    from toolret.demo import demo_catalog, run_demo

    async def go() -> None:
        catalog = demo_catalog()
        async with indexed_client(catalog) as client:
            await run_demo(console, client, catalog)

    asyncio.run(go())


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
    bench: Annotated[
        list[str] | None,
        typer.Option(
            help="A benchmark folder (tools.jsonl, cases.jsonl, examples.json); repeatable. "
            "Measures it and the roster's halves with both retrievers instead."
        ),
    ] = None,
    study: Annotated[
        str,
        typer.Option(
            help="With --bench: template, role, score, hybrid (comma-separated) or all: compare "
            "the candidates for that ranking choice on the tuning sets."
        ),
    ] = "",
) -> None:
    """Measure retrieval on the 44-tool roster: recall@1/5/12 and narrowing per language and mode.

    Every case must find its tools within the top k and narrow the roster (the CI gate, checked
    with the bundled model in dense mode). Writes a markdown table and PNG plots (recall@k
    curves; weakest true match against strongest off-topic score) to --out. Exits 1 when the
    gate fails, printing each "prompt" → missing tool.

    With --bench DIR: recall@1/3/5/12 and MRR per language on that folder and on the roster's
    tuning and held-back halves, in every mode, with and without examples, for the in-memory
    retriever and the pgvector client (DATABASE_URL, else the embedded Postgres); --study adds
    the comparisons behind the ranking choices. Report in --out/bench.
    """
    try:
        from evals.benchmark import main as run_bench
        from evals.runner import main as run_eval
    except ModuleNotFoundError as error:
        console.print(
            "[red]error:[/red] the eval harness is not part of the package: run `toolret eval` "
            "from a checkout of the toolret repository (`make eval`)"
        )
        raise typer.Exit(2) from error
    if bench:
        argv = [*bench, "--out", f"{out}/bench", "--modes", modes, "--k", str(k)]
        argv += ["--study", study] if study else []
        argv += ["--embedders", embedders] if embedders else []
        argv += [] if plots else ["--no-plots"]
        raise typer.Exit(run_bench(argv))

    argv = ["--out", out, "--modes", modes, "--languages", languages, "--k", str(k)]
    argv += ["--embedders", embedders] if embedders else []
    argv += [] if baseline else ["--no-examples-baseline"]
    argv += [] if plots else ["--no-plots"]
    raise typer.Exit(run_eval(argv))


@app.command(
    epilog="Exit status: 0 clean or warnings only; 1 errors (or warnings, with --strict); "
    "2 the catalog or an option cannot be used."
)
def lint(
    catalog: CatalogOption = "toolret.demo_roster:catalog",
    languages: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated ISO 639-1 codes every non-core tool should have examples in "
            "(default: each language holding 10% or more of the catalog's examples)."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON (schema: see the README).")
    ] = False,
    strict: Annotated[bool, typer.Option(help="Fail on warnings too.")] = False,
    threshold: Annotated[
        float | None,
        typer.Option(
            min=-1.0,
            max=1.0,
            help="Look-alike cosine threshold (default: the model's calibrated one).",
        ),
    ] = None,
) -> None:
    """Tell a tool author what in a catalog will hurt retrieval.

    Embeds the catalog as indexing does, with the same model as the other commands (Gemini
    with GEMINI_API_KEY, else the bundled one), and reports:

    - **thin_description**: under 40 characters (an error for your own tools, a warning for an
      MCP server's or provider JSON's, which you cannot edit);
    - **cut_description**: longer than the model's input window, so its tail is never embedded
      (an error for your own tools, a warning for third-party ones);
    - **lookalike**: two tools the model can hardly tell apart (warning);
    - **misplaced_example**: an example nearer to another tool's description than to its own
      (warning);
    - **missing_language**: a tool with no example in a language checked (warning).

    Core tools are always bound, so only thin descriptions are checked for them.
    """
    from toolret.lint import lint_catalog
    from toolret.settings import make_embedder

    loaded = _load(catalog)
    codes = None if languages is None else [c.strip() for c in languages.split(",") if c.strip()]

    async def run() -> LintReport:
        embedder = make_embedder(Settings())
        try:
            return await lint_catalog(
                loaded, embedder, languages=codes, lookalike_threshold=threshold
            )
        finally:
            await embedder.aclose()

    try:
        if as_json:
            report = asyncio.run(run())
        else:
            with console.status(f"embedding {len(loaded)} tools and their examples…"):
                report = asyncio.run(run())
    except ConfigurationError as error:
        _fail(error, 2)
    if as_json:
        typer.echo(report.to_json())
    else:
        print_lint_report(catalog, report)
    raise typer.Exit(report.exit_code(strict=strict))


_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow"}


def print_lint_report(spec: str, report: LintReport) -> None:
    """The lint's findings as a table, then one summary line."""
    if report.findings:
        table = Table(title=f"toolret lint · {spec}", show_lines=False)
        table.add_column("severity", no_wrap=True)
        table.add_column("kind", no_wrap=True)
        table.add_column("tool", no_wrap=True)
        table.add_column("what to do", ratio=1)
        for finding in report.findings:
            style = _SEVERITY_STYLE[finding.severity]
            table.add_row(
                f"[{style}]{finding.severity}[/{style}]",
                finding.kind,
                escape(finding.tool),
                escape(finding.message),
            )
        console.print(table)
    errors, warnings = len(report.errors), len(report.warnings)
    verdict = (
        "[green]clean[/green]"
        if not report.findings
        else (
            f"[bold red]{errors} error{'s' * (errors != 1)}[/bold red], "
            f"[yellow]{warnings} warning{'s' * (warnings != 1)}[/yellow]"
        )
    )
    threshold = (
        "look-alike check skipped (no calibrated threshold for this model; pass --threshold)"
        if report.lookalike_threshold is None
        else f"look-alike threshold {report.lookalike_threshold:g}"
    )
    checked = ", ".join(report.languages) or "none"
    console.print(
        f"{verdict} · {report.candidates} of {report.tools} tools retrieved · languages "
        f"checked: {checked} · {threshold} · {report.model_id}"
    )


app.add_typer(feedback_app, name="feedback")
app.add_typer(examples_app, name="examples")

db_app = typer.Typer(help="The vector database: migrate it, stop the embedded server.")
app.add_typer(db_app, name="db")
UrlOption = Annotated[
    str | None,
    typer.Option("--url", help="postgresql:// URL [DATABASE_URL; else the embedded Postgres]."),
]


@db_app.command("upgrade")
def db_upgrade(url: UrlOption = None) -> None:
    """Migrate the database to the latest schema (alembic upgrade head)."""
    from toolret.embedded_pg import resolve_database_url
    from toolret.schema import upgrade_database

    target = url or resolve_database_url()
    upgrade_database(target)
    console.print("database at the latest schema")


@db_app.command("downgrade", context_settings={"ignore_unknown_options": True})
def db_downgrade(
    revision: Annotated[
        str,
        typer.Argument(help="A revision id, base (remove toolret's tables), or -N steps back."),
    ] = "-1",
    url: UrlOption = None,
) -> None:
    """Undo toolret's migrations to REVISION (alembic downgrade; default one step, -1)."""
    from toolret.embedded_pg import resolve_database_url
    from toolret.schema import database_revision, downgrade_database

    target = url or resolve_database_url()
    before = database_revision(target)
    if before is None:
        console.print("the database has no toolret schema: nothing to downgrade")
        return
    downgrade_database(target, revision)
    after = database_revision(target) or "base (no toolret tables)"
    console.print(f"database downgraded from {before} to {after}")


@db_app.command("stop")
def db_stop() -> None:
    """Stop the embedded Postgres (it keeps running between commands otherwise)."""
    from toolret.embedded_pg import stop_local_server

    console.print("stopped" if stop_local_server() else "the embedded Postgres was not running")


@app.command()
def status(url: UrlOption = None) -> None:
    """Models, corpora, row counts and whether each model's HNSW index exists.

    Exits 1, saying so, when the database is not migrated or its schema is older than this
    toolret's (run `toolret db upgrade`).
    """
    from toolret.embedded_pg import resolve_database_url
    from toolret.schema import head_revision
    from toolret.store import StoreStatus, VectorStore

    async def read(target: str) -> StoreStatus:
        async with VectorStore.from_url(target) as store:
            return await store.status()

    state = asyncio.run(read(url or resolve_database_url()))
    head = head_revision()
    if state.revision is None:
        _fail("this database has no toolret schema (not migrated): run `toolret db upgrade`")
    console.print(f"schema revision: {state.revision}")
    if state.revision != head:
        _fail(
            f"the schema is at revision {state.revision}, this toolret needs {head}: "
            "run `toolret db upgrade`"
        )
    table = Table(title="embedding models")
    for column in ("model", "dim", "vectors", "pending", "corpora", "published", "last seen"):
        table.add_column(column, justify="left" if column == "model" else "right")
    table.add_column("HNSW index")
    for m in state.models:
        seen = f"{m.last_seen:%Y-%m-%d %H:%M}" if m.last_seen else "—"
        row = (m.dimension, m.vectors, m.pending_vectors, m.corpora, m.published_corpora)
        table.add_row(m.model_id, *map(str, row), seen, "yes" if m.index else "no")
    console.print(table)


@app.command()
def reindex(
    catalog: Annotated[
        list[str],
        typer.Option(
            "--catalog", "-c", help="A catalog spec, as for search; repeat for several catalogs."
        ),
    ],
    enqueue: Annotated[
        bool, typer.Option("--enqueue", help="Queue a job for the worker instead [REDIS_URL].")
    ] = False,
) -> None:
    """Embed what the catalogs' tools need, here or through the worker; for a deploy step.

    Inline (the default): embeds only the documents this model has no vector for, with a
    progress bar, and publishes each catalog atomically [DATABASE_URL; else the embedded
    Postgres]. With --enqueue: queues one reindex job per catalog for the worker (arq
    workers.WorkerSettings) and returns at once; a corpus already queued is not queued twice.
    """
    from toolret.embedded_pg import resolve_database_url
    from toolret.indexing import index_catalog
    from toolret.queue import ReindexQueue
    from toolret.settings import make_embedder
    from toolret.store import VectorStore

    settings, catalogs = Settings(), {spec: _load(spec) for spec in catalog}
    if enqueue and not settings.redis_url:
        _fail("--enqueue needs REDIS_URL, the Redis the worker reads", 2)

    async def run() -> None:
        embedder = make_embedder(settings)
        try:
            if enqueue:
                async with ReindexQueue(settings.redis_url or "") as queue:
                    for spec, tools in catalogs.items():
                        queued = await queue.enqueue(tools, embedder)
                        console.print(f"{spec}: {'queued' if queued else 'already queued'}")
                return
            url = await asyncio.to_thread(resolve_database_url, settings)
            async with VectorStore.from_url(url) as store:
                for spec, tools in catalogs.items():
                    with Progress(console=console, transient=True) as bar:
                        task = bar.add_task(spec, total=None)
                        advance = functools.partial(_advance, bar, task)
                        report = await index_catalog(store, embedder, tools, progress=advance)
                    console.print(
                        f"{spec}: {report.documents} documents, {report.embedded} embedded, "
                        f"{'published' if report.published else 'already published'} "
                        f"({report.seconds:.1f} s)"
                    )
        finally:
            await embedder.aclose()

    asyncio.run(run())


def _advance(bar: Progress, task: TaskID, done: int, total: int) -> None:
    bar.update(task, completed=done, total=total)


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
        _fail(error, 2)
