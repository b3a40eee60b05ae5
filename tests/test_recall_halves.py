"""The two halves of a benchmark set: a request and its translations always in the same one.

Choices are made on half A of each set's requests and confirmed on half B; a Persian line in A
whose English original sits in B would let tuning see the confirming half."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolret.recall._data import BenchCase, BenchSet
from toolret.recall._halves import BLOCK, half_of, scenarios
from toolret.recall._runner import main


def _labels(n: int) -> list[tuple[str, ...]]:
    return [(f"tool_{i % 3}",) for i in range(n)]


def test_parallel_languages_split_by_position_and_stay_together() -> None:
    labels = _labels(4 * BLOCK)
    cases = tuple(
        BenchCase(f"{language} {i}", label, language)
        for language in ("en", "fa")
        for i, label in enumerate(labels)
    )
    numbers, aligned = scenarios(cases)
    assert aligned
    assert numbers[: len(labels)] == numbers[len(labels) :]
    bench = BenchSet("parallel", (), cases)
    a, b = half_of(bench, "A"), half_of(bench, "B")
    assert len(a.cases) + len(b.cases) == len(cases)
    kept = {case.query.split()[1] for case in a.cases if case.language == "en"}
    assert kept == {case.query.split()[1] for case in a.cases if case.language == "fa"}
    assert not kept & {case.query.split()[1] for case in b.cases}


def test_translations_with_lines_dropped_align_to_their_english_originals() -> None:
    """xsid-dev's shape: each language an order-preserving subset of the English sentences."""
    english = [("weather",), ("alarm",), ("alarm",), ("reminder",), ("weather",), ("alarm",)]
    kept = [0, 2, 3, 5]  # the German translations of these four
    cases = tuple(BenchCase(f"en {i}", label, "en") for i, label in enumerate(english)) + tuple(
        BenchCase(f"de {i}", english[i], "de") for i in kept
    )
    numbers, aligned = scenarios(cases)
    assert aligned
    # the second German line needs "alarm": aligned to the first unmatched English "alarm"
    # after the previous match (1, where the translator dropped 2: a block keeps both together)
    assert numbers[len(english) :] == (0, 1, 3, 5)


def test_a_language_that_cannot_be_aligned_keeps_its_positions() -> None:
    cases = (
        BenchCase("en 0", ("a",), "en"),
        BenchCase("tr 0", ("b",), "tr"),
        BenchCase("tr 1", ("a",), "tr"),
    )
    numbers, aligned = scenarios(cases)
    assert not aligned
    assert numbers == (0, 0, 1)


def test_the_runner_measures_one_half_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = [{"name": f"tool_{i}", "description": f"does thing number {i}"} for i in range(15)]
    (tmp_path / "tools.jsonl").write_text("\n".join(json.dumps(t) for t in tools))
    rows = [
        {"query": f"do thing number {i % 15}", "expected": [f"tool_{i % 15}"], "lang": "en"}
        for i in range(2 * BLOCK + 3)
    ]
    (tmp_path / "cases.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    status = main(
        [
            str(tmp_path),
            "--half",
            "B",
            "--retrievers",
            "memory",
            "--modes",
            "bm25",
            "--out",
            str(tmp_path / "out"),
            "--no-plots",
            "--embedders",
            "bundled",
            "--k",
            "5",
        ]
    )
    assert status == 0
    assert f"{tmp_path.name} half B" in capsys.readouterr().out
