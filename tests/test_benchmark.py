"""``toolret recall DIR``: a benchmark folder measured with both retrievers, and studies.

The folder is written here, tiny and synthetic (the public sets stay where they are, outside
the repository): the CRM tools, English and Turkish messages, examples for some tools.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.data.cases import HELD, TUNE
from evals.recall.roster_sets import roster_set
from tests.support.embedders import CountingEmbedder, SparseCountingEmbedder
from tests.support.tools import CRM_TOOLS
from toolret.adapters._mcp import mcp_origin
from toolret.recall._data import BenchmarkError, load_benchmark
from toolret.recall._runner import run_recall
from toolret.recall.studies import StudyResult
from toolret.recall.studies._fusion import FIXED, UNION
from toolret.recall.studies._sparse import REFERENCE

CASES = [
    ("en", "remove the duplicate contact for Acme", ["delete_record"]),
    ("en", "remind me to call the buyer on Friday", ["create_task"]),
    ("en", "send the quote to the client by email", ["send_email"]),
    ("en", "download all companies as a spreadsheet", ["export_records"]),
    ("tr", "Acme için yinelenen kişiyi sil", ["delete_record"]),
    ("tr", "Cuma günü alıcıyı aramamı hatırlat", ["create_task"]),
    ("tr", "Teklifi müşteriye e-postayla gönder", ["send_email", "create_record"]),
]
EXAMPLES = {
    "delete_record": {"en": ["delete this contact"], "tr": ["bu kaydı sil"]},
    "create_task": {"en": ["add a to-do for tomorrow"], "tr": ["yarın için bir görev ekle"]},
    "send_email": {"en": ["email the client"], "tr": ["müşteriye e-posta at"]},
}


def write_folder(root: Path) -> Path:
    root.mkdir()
    tools = [{"name": t.name, "description": t.description} for t in CRM_TOOLS]
    (root / "tools.jsonl").write_text("\n".join(json.dumps(t) for t in tools), encoding="utf-8")
    cases = [{"query": q, "expected": e, "lang": lang} for lang, q, e in CASES]
    (root / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in cases), encoding="utf-8")
    (root / "examples.json").write_text(json.dumps(EXAMPLES), encoding="utf-8")
    return root


def test_a_benchmark_folder_loads_as_tools_cases_and_examples(tmp_path: Path) -> None:
    bench = load_benchmark(write_folder(tmp_path / "tiny"))
    assert bench.name == "tiny"
    assert bench.tuning
    assert bench.languages == ("en", "tr")
    assert len(bench.cases_in("tr")) == 3
    with_examples = bench.catalog(examples=True)
    assert with_examples["delete_record"].examples == ("delete this contact", "bu kaydı sil")
    assert bench.catalog(examples=False)["delete_record"].examples == ()


def test_a_broken_folder_says_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(BenchmarkError, match=r"tools\.jsonl \(or servers\.json\) and cases"):
        load_benchmark(tmp_path)
    root = write_folder(tmp_path / "broken")
    with (root / "cases.jsonl").open("a", encoding="utf-8") as cases:
        cases.write('\n{"query": "x", "expected": ["no_such_tool"], "lang": "en"}')
    with pytest.raises(BenchmarkError, match=r"cases\.jsonl:8: .*no_such_tool"):
        load_benchmark(root)


def test_the_roster_halves_are_sets_and_only_the_tuning_half_may_be_tuned_on() -> None:
    tuning, held = roster_set(TUNE), roster_set(HELD)
    assert tuning.tuning
    assert not held.tuning
    assert {case.query for case in tuning.cases}.isdisjoint(case.query for case in held.cases)
    assert tuning.catalog(examples=True).core


def test_bench_measures_both_retrievers_and_writes_the_report(
    tmp_path: Path, database_url: str
) -> None:
    result = run_recall(
        [write_folder(tmp_path / "tiny")],
        tmp_path / "out",
        embedders=[CountingEmbedder()],
        database_url=database_url,
        studies=("score", "hybrid"),
        k=3,
        log=False,
    )
    configurations = {(r.retriever, r.language, r.mode, r.examples) for r in result.rows}
    assert configurations == {
        *(
            ("memory", language, mode, flag)
            for language in ("en", "tr")
            for mode in ("dense", "bm25", "hybrid")
            for flag in (True, False)
        ),
        *(
            ("client", language, mode, flag)
            for language in ("en", "tr")
            for mode in ("dense", "bm25", "hybrid")
            for flag in (True, False)
        ),
    }
    assert all(row.bound == 3 and row.roster == len(CRM_TOOLS) for row in result.rows)
    for row in result.rows:
        curve = row.metrics.curve
        assert list(curve) == sorted(curve)
        assert curve[-1] == 1.0
        assert 0 < row.metrics.mrr <= 1
    # The client selects exactly what the in-memory retriever selects, and scores the same.
    assert {(a.mode, a.examples) for a in result.agreements} == {
        (mode, flag) for mode in ("dense", "bm25", "hybrid") for flag in (True, False)
    }
    assert all(a.all_same and a.largest_score_gap < 1e-4 for a in result.agreements)
    memory = {(r.language, r.mode, r.examples): r for r in result.rows if r.retriever == "memory"}
    for row in (r for r in result.rows if r.retriever == "client"):
        assert row.metrics == memory[(row.language, row.mode, row.examples)].metrics
    # Turkish messages share no informative word with the English descriptions.
    assert any(
        r.mode == "bm25" and r.language == "tr" and not r.examples and r.metrics.no_signal > 0
        for r in result.rows
    )

    studies = [study for study in result.studies if isinstance(study, StudyResult)]
    assert [study.study for study in studies] == ["score", "hybrid"]
    score = studies[0]
    assert score.current in score.choices
    assert score.winner in score.choices
    assert {row.bench for row in score.rows} == {"tiny"}

    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "### tiny (tuning)" in report
    assert "| client | en | hybrid | yes |" in report
    assert "### score" in report
    assert "(in use)" in report
    assert "(best)" in report
    assert list((tmp_path / "out").glob("recall_tiny_*.png"))


SERVERS = {
    "kitchen": [
        {
            "name": "suggestions",
            "description": "Get Suggestions",
            "inputSchema": {"properties": {"q": {"description": "a dish or an ingredient"}}},
        },
        {"name": "recipes_by_author", "description": "Get recipes by author"},
    ],
    "weather": [{"name": "forecast", "description": "Seven-day forecast for a city"}],
    "football": [{"name": "standings", "description": "League table of a season"}],
    "movies": [{"name": "search", "description": "Search films by title"}],
}
FLEET_CASES = [
    {
        "query": "dinner ideas with beef, and will it rain?",
        "expected": ["kitchen__suggestions", "weather__forecast"],
    },
    {"query": "who leads the league this season", "expected": ["football__standings"]},
]


def write_fleet(root: Path) -> Path:
    root.mkdir()
    (root / "servers.json").write_text(json.dumps(SERVERS), encoding="utf-8")
    lines = [json.dumps({**case, "lang": "en"}) for case in FLEET_CASES]
    (root / "cases.jsonl").write_text("\n".join(lines), encoding="utf-8")
    return root


def test_an_mcp_fleet_folder_is_read_as_a_user_reads_their_servers(tmp_path: Path) -> None:
    bench = load_benchmark(write_fleet(tmp_path / "fleet"))
    catalog = bench.catalog(examples=False)
    assert catalog.names[0] == "kitchen__suggestions"
    assert mcp_origin(catalog["kitchen__suggestions"]) == ("kitchen", "suggestions")
    assert catalog["kitchen__suggestions"].input_schema
    assert bench.example_flags == (False,)


def test_a_fleet_reports_needed_tool_recall_and_whole_cases(tmp_path: Path) -> None:
    result = run_recall(
        [write_fleet(tmp_path / "fleet")],
        None,
        embedders=[CountingEmbedder()],
        retrievers=("memory",),
        modes=("hybrid",),
        k=2,
        log=False,
    )
    (row,) = result.rows
    assert not row.examples
    assert 0 <= row.complete_at_k <= row.recall_at_k <= 1
    assert row.metrics.all_bound(20) == 1.0  # five tools: every case whole at 20
    assert row.metrics.all_bound(1) <= 0.5  # the first case needs two tools


def test_the_fleet_studies_judge_by_their_rule(tmp_path: Path) -> None:
    result = run_recall(
        [write_fleet(tmp_path / "fleet"), write_folder(tmp_path / "tiny")],
        None,
        embedders=[CountingEmbedder()],
        retrievers=("memory",),
        modes=("hybrid",),
        studies=("documents", "servers", "clauses"),
        k=2,
        log=False,
    )
    studies = [study for study in result.studies if isinstance(study, StudyResult)]
    assert [study.study for study in studies] == ["documents", "servers", "clauses"]
    documents, servers, clauses = studies
    # The first-party folder is also measured as a fleet; only fleets are ranked by servers.
    assert {row.bench for row in documents.rows} == {"fleet", "tiny", "tiny as a fleet"}
    assert {row.bench for row in servers.rows} == {"fleet", "tiny as a fleet"}
    assert documents.current == "in use (hybrid)"
    for study in studies:
        assert study.verdict.startswith("Rule: passes if no set loses more than 1 point")
        assert set(study.passed) <= set(study.choices)
    assert "name: description (hybrid)" in documents.choices
    assert any(choice.startswith("two stages") for choice in servers.choices)
    assert any(choice.startswith("per clause") for choice in clauses.choices)


def test_the_fusion_and_names_studies_judge_by_their_rules(tmp_path: Path) -> None:
    result = run_recall(
        [write_fleet(tmp_path / "fleet"), write_folder(tmp_path / "tiny")],
        None,
        embedders=[CountingEmbedder()],
        retrievers=("memory",),
        modes=("hybrid",),
        studies=("fusion", "names"),
        k=2,
        log=False,
    )
    studies = [study for study in result.studies if isinstance(study, StudyResult)]
    assert [study.study for study in studies] == ["fusion", "names"]
    fusion, names = studies
    assert fusion.current.startswith("in use: weight 0.015 × max(1, informative words / 5)^2")
    assert {FIXED, UNION, "dense alone", "BM25 alone"} <= set(fusion.choices)
    assert fusion.verdict.startswith("Rule: against the profile's weight, fixed")
    assert "The union at k 2 binds" in fusion.verdict
    assert set(fusion.passed) <= set(fusion.choices)
    # The union holds BM25's own top c at every cut-off c: never below BM25 alone.
    by = {(r.variant.choice, r.bench, r.language, r.variant.examples): r for r in fusion.rows}
    for (choice, bench, language, flag), row in by.items():
        if choice == UNION:
            lexical = by[("BM25 alone", bench, language, flag)].metrics.curve
            assert all(u >= b - 1e-9 for u, b in zip(row.metrics.curve, lexical, strict=True))
    assert names.current in names.choices
    assert "in use + 0.1 × the name's own vector" in names.choices
    assert names.verdict.startswith("Rule: passes if no set loses more than 1 point")


def test_a_folder_with_no_more_tools_than_k_is_refused_with_a_message(tmp_path: Path) -> None:
    """Every selection would bind the whole folder (the pass-through): a message naming the
    set and the k to use, before anything is embedded; not a traceback from the runner."""
    from typer.testing import CliRunner

    from toolret.cli._app import app

    folder = write_folder(tmp_path / "tiny")
    tools = len(CRM_TOOLS)
    with pytest.raises(BenchmarkError, match=rf"tiny has {tools} candidate tools, no more than"):
        run_recall([folder], None, embedders=[CountingEmbedder()], k=tools, log=False)
    for command in (["recall", str(folder)], ["eval", "--bench", str(folder)]):
        result = CliRunner().invoke(app, [*command, "--k", str(tools)])
        assert result.exit_code == 2, result.output
        assert f"tiny has {tools} candidate tools, no more than k={tools}" in result.stderr
        assert f"--k {tools - 1}" in result.stderr
        assert "Traceback" not in result.output


def test_the_sparse_study_judges_by_the_rule_and_needs_a_sparse_head(tmp_path: Path) -> None:
    folders = [write_fleet(tmp_path / "fleet"), write_folder(tmp_path / "tiny")]
    common = {"retrievers": ("memory",), "modes": ("hybrid",), "k": 2, "log": False}
    result = run_recall(
        folders, None, embedders=[SparseCountingEmbedder()], studies=("sparse",), **common
    )
    [study] = [study for study in result.studies if isinstance(study, StudyResult)]
    assert study.study == "sparse"
    assert study.current == REFERENCE
    assert {"dense alone", "BM25 alone", "sparse alone"} <= set(study.choices)
    assert any(choice.endswith("where other language") for choice in study.choices)
    assert study.verdict.startswith("Rule: against without the sparse signal")
    assert "Messages paying the second pass" in study.verdict
    assert set(study.passed) <= set(study.choices)
    # A model without a sparse head has nothing to study: skipped, the rest still measured.
    plain = run_recall(folders, None, embedders=[CountingEmbedder()], studies=("sparse",), **common)
    assert plain.studies == []
    assert plain.rows
