"""``toolret lint``: the catalog doctor on the command line."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from toolret._settings import Settings
from toolret.cli._errors import fail, load_or_exit
from toolret.cli._options import CatalogOption, console
from toolret.cli._output import show_table, working
from toolret.errors import ConfigurationError

if TYPE_CHECKING:
    from toolret.authoring._lint import LintReport

__all__ = ["LINT_EPILOG", "lint", "print_lint_report"]

LINT_EPILOG = (
    "Exit status: 0 clean or warnings only; 1 errors (or warnings, with --strict); "
    "2 the catalog or an option cannot be used."
)


def lint(
    catalog: CatalogOption = "toolret.demo.roster:catalog",
    languages: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated ISO 639-1 codes every non-core tool should have examples in "
            "(default: each language holding 10% or more of the catalog's examples)."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="The report as JSON (schema: docs/catalogs.md).")
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
    from toolret._settings import make_embedder
    from toolret.authoring._lint import lint_catalog

    loaded = load_or_exit(catalog)
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
        with working(f"embedding {len(loaded)} tools and their examples…"):
            report = asyncio.run(run())
    except ConfigurationError as error:
        fail(error, 2)
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
        show_table(table)
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
