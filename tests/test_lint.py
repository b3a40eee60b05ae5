"""``toolret lint``: the catalog doctor, with the bundled model (no mocks).

The demo roster is linted once through the CLI (``--json``); a constructed catalog holding one
of each problem is linted through the library and the CLI.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from tests.support.embedders import CountingEmbedder
from tests.support.github_mcp import THIN, github_listing
from tests.support.lint_catalogs import LONG, MISPLACED, doctor_catalog
from toolret import BundledE5Embedder, LintFinding, LintReport, lint_catalog
from toolret.authoring._lint import KINDS, LOOKALIKE_THRESHOLDS, MISPLACED_MARGINS, embed_corpus
from toolret.cli._app import app
from toolret.demo.roster import catalog as roster
from toolret.embedders._conventions import calibration_key
from toolret.indexing._run import index_catalog
from toolret.store._vector_store import VectorStore

FINDING_KEYS = {
    "kind",
    "severity",
    "tool",
    "message",
    "other",
    "similarity",
    "own_similarity",
    "text",
    "language",
}
REPORT_KEYS = {
    "version",
    "model",
    "tools",
    "candidates",
    "languages",
    "lookalike_threshold",
    "misplaced_margin",
    "min_description_length",
    "errors",
    "warnings",
    "findings",
}


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner with no Gemini key in its environment: the CLI picks the bundled model."""
    for name in ("GEMINI_API_KEY", "TOOLRET_GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner()


def lint_json(runner: CliRunner, *args: str) -> tuple[Result, dict[str, Any]]:
    result = runner.invoke(app, ["lint", "--json", *args])
    return result, json.loads(result.stdout)


@pytest.fixture(scope="module")
def doctor_report() -> LintReport:
    return asyncio.run(lint_catalog(doctor_catalog(), BundledE5Embedder()))


def of_kind(report: LintReport, kind: str) -> list[LintFinding]:
    return [finding for finding in report.findings if finding.kind == kind]


def test_the_demo_roster_lints_with_warnings_only(runner: CliRunner) -> None:
    result, report = lint_json(runner, "--catalog", "toolret.demo.roster:catalog")
    assert result.exit_code == 0, result.output
    assert set(report) == REPORT_KEYS
    assert report["version"] == 1
    assert report["model"] == BundledE5Embedder.model_id
    assert (report["tools"], report["candidates"]) == (44, 39)
    assert sorted(report["languages"]) == ["ar", "en", "tr"]  # found in the examples
    assert (
        report["lookalike_threshold"] == LOOKALIKE_THRESHOLDS[calibration_key(BundledE5Embedder())]
    )
    assert report["errors"] == 0
    assert report["warnings"] == len(report["findings"]) > 0
    candidates = {tool.name: tool for tool in roster.candidates}
    for finding in report["findings"]:
        assert set(finding) == FINDING_KEYS
        assert finding["kind"] in KINDS
        assert finding["severity"] == "warning"
        assert finding["tool"] in candidates
        assert finding["message"]
    lookalikes = [f for f in report["findings"] if f["kind"] == "lookalike"]
    assert lookalikes  # the roster has near pairs (delete_relation / unlink_records, ...)
    for finding in lookalikes:
        assert finding["other"] in candidates
        assert finding["similarity"] >= report["lookalike_threshold"]
    for finding in report["findings"]:
        if finding["kind"] == "misplaced_example":
            assert finding["text"] in candidates[finding["tool"]].examples
            assert finding["other"] in candidates
            assert finding["similarity"] > finding["own_similarity"] + report["misplaced_margin"]
    assert not [f for f in report["findings"] if f["kind"] == "missing_language"]
    assert not [f for f in report["findings"] if f["kind"] == "cut_description"]


async def test_lint_documents_are_the_ones_indexing_embeds(store: VectorStore) -> None:
    indexer, linter = CountingEmbedder(), CountingEmbedder()
    catalog = doctor_catalog()
    await index_catalog(store, indexer, catalog)
    await embed_corpus(catalog, linter)
    core = set(catalog.names) - {tool.name for tool in catalog.candidates}
    assert not core  # every tool of this catalog is retrieved, so both embed the same set
    assert sorted(linter.documents) == sorted(indexer.documents)
    assert sorted(linter.queries) == sorted(indexer.queries)


def test_a_known_lookalike_pair(doctor_report: LintReport) -> None:
    (pair,) = of_kind(doctor_report, "lookalike")
    assert {pair.tool, pair.other} == {"send_email", "send_mail"}
    assert pair.severity == "warning"
    assert pair.similarity is not None
    assert pair.similarity >= LOOKALIKE_THRESHOLDS[calibration_key(BundledE5Embedder())]


def test_a_misplaced_example(doctor_report: LintReport) -> None:
    misplaced = [f for f in of_kind(doctor_report, "misplaced_example") if f.text == MISPLACED]
    (finding,) = misplaced
    assert (finding.tool, finding.other) == ("create_invoice", "delete_contact")
    assert finding.similarity is not None
    assert finding.own_similarity is not None
    margin = MISPLACED_MARGINS[calibration_key(BundledE5Embedder())]
    assert finding.similarity > finding.own_similarity + margin


def test_a_description_cut_by_the_window(doctor_report: LintReport) -> None:
    (cut,) = of_kind(doctor_report, "cut_description")
    assert (cut.tool, cut.severity) == ("schedule_meeting", "error")
    assert cut.text
    assert LONG.strip().endswith(cut.text)
    assert len(LONG) - len(cut.text) > 1000  # the model reads its first 512 tokens
    assert "512-token" in cut.message


def test_thin_descriptions_are_errors_for_own_tools_warnings_for_third_party(
    doctor_report: LintReport,
) -> None:
    thin = {f.tool: f.severity for f in of_kind(doctor_report, "thin_description")}
    assert thin == {"ping": "error", "get_me": "warning"}
    assert doctor_report.exit_code() == 1
    assert [f.severity for f in doctor_report.findings][: len(doctor_report.errors)] == [
        "error"
    ] * len(doctor_report.errors)


def test_languages_checked_default_to_those_of_the_examples(doctor_report: LintReport) -> None:
    assert doctor_report.languages == ("en",)
    missing = [(f.tool, f.language) for f in of_kind(doctor_report, "missing_language")]
    assert missing == [("get_me", "en")]  # the one tool without examples


def test_cli_checks_the_languages_asked_and_exits_1_on_errors(runner: CliRunner) -> None:
    spec = "tests.support.lint_catalogs:doctor_catalog"
    result, report = lint_json(runner, "--catalog", spec, "--languages", "en,tr")
    assert result.exit_code == 1, result.output
    assert report["languages"] == ["en", "tr"]
    missing = {(f["tool"], f["language"]) for f in report["findings"] if f["language"]}
    assert missing == {(tool, "tr") for tool in doctor_catalog().names} | {("get_me", "en")}
    assert report["errors"] == 2  # ping's thin description, schedule_meeting's cut one


def test_cli_on_an_mcp_listing_warns_and_exits_0(runner: CliRunner, tmp_path: Path) -> None:
    listing = asyncio.run(github_listing())
    path = tmp_path / "github.json"
    path.write_text(listing.model_dump_json(by_alias=True, exclude_none=True), encoding="utf-8")
    result = runner.invoke(app, ["lint", "--catalog", str(path)], terminal_width=120)
    assert result.exit_code == 0, result.output
    for name in THIN:
        assert f"github__{name}" in result.output
    assert "0 errors, 2 warnings" in result.output
    strict = runner.invoke(app, ["lint", "--catalog", str(path), "--strict", "--json"])
    assert strict.exit_code == 1
    assert json.loads(strict.stdout)["warnings"] == 2


def test_cli_exits_2_on_an_unknown_language_or_catalog(runner: CliRunner) -> None:
    result = runner.invoke(app, ["lint", "--languages", "en,xx"])
    assert result.exit_code == 2
    assert "xx" in result.output
    missing = runner.invoke(app, ["lint", "--catalog", "no_such_module:catalog"])
    assert missing.exit_code == 2
    assert "no_such_module" in missing.output
