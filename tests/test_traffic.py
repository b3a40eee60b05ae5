"""The learning replay's traffic is new: no request repeats a case or a tool's example."""

from __future__ import annotations

from evals.data.cases import CASES, LANGUAGES
from evals.data.traffic import TRAFFIC, traffic_in
from tests.test_eval_metadata import all_examples, near_duplicate
from toolret.demo.roster import build_catalog


def test_traffic_covers_every_candidate_in_every_language() -> None:
    catalog = build_catalog()
    candidates = {tool.name for tool in catalog.candidates}
    for language in LANGUAGES:
        assert set(TRAFFIC[language]) == candidates, language
    assert len(traffic_in()) == len(candidates) * len(LANGUAGES)


def test_traffic_repeats_no_case_and_no_example() -> None:
    written = [case.prompt for case in CASES] + [text for _, _, text in all_examples()]
    clashes = [
        (prompt, other)
        for _, prompt, _ in traffic_in()
        for other in written
        if near_duplicate(prompt, other)
    ]
    assert clashes == []
