"""A fresh held-back set of roster cases: new scenarios, written before anything was measured.

Why: the roster's held-back half (``evals.data.cases``, ``HELD``) has been read after several
choices (the sparse signal's weight, its gate, its length ramp), so it can no longer confirm the
next one on its own. This set is for that confirmation: whether the sparse signal may be on by
default is read here once, default against ``TOOLRET_SPARSE=1``, with and without examples, in
every language (docs/decisions.md, "A fresh held-back set").

How it was written (on ``WRITTEN``, every row before any retrieval was run on it; only the text
checks of ``tests/test_eval_fresh.py`` ran before the commit that added them):

- every non-core roster tool has two scenarios of its own (each has a look-alike the roster
  names: create / update / delete record, update / bulk update, delete / bulk delete, import /
  export, restore / undo, the field tools, link / unlink records, list / get view, ...), and five
  scenarios need two tools at once;
- each scenario is one user need of an agent on a property CRM, asked the way a user would ask
  it, once in English, Arabic (mostly Gulf colloquial, some Modern Standard) and Turkish, each
  written for its language (local names and places, not word for word);
- none paraphrases a case of either half, and none restates a tool's description or examples
  (situations they do not name); lengths run from 3 to about 25 words, most 6 to 18, and some
  need their tool without naming its operation ("Tower B was handed over today...").

Rules: reported only, never tuned on (``FRESH``, like ``HELD``); never edit a description, an
example or one of these rows because of a figure measured on it; not part of ``CASES``, so the CI
gate (``evals.recall.gate``) and the studies never see it. The rows live in ``fresh_en``,
``fresh_ar`` and ``fresh_tr``; the recall runner reports the set as ``roster-held-back-fresh``
(``evals.recall.roster_sets``).
"""

from __future__ import annotations

from collections.abc import Mapping

from evals.data.cases import FRESH, LANGUAGES, Case, Split
from evals.data.fresh_ar import ROWS as AR
from evals.data.fresh_en import ROWS as EN
from evals.data.fresh_tr import ROWS as TR

__all__ = ["FRESH_CASES", "LABEL", "SCENARIOS", "WRITTEN", "build", "fresh_cases_in"]

Rows = tuple[tuple[str, ...], ...]

WRITTEN = "2026-12-06"
"""The day every row was written, before anything was measured on them."""
LABEL = f"held-back, fresh (written {WRITTEN})"
"""How the recall report labels the set."""


def build(
    rows: Mapping[str, Rows],
    split: Split = FRESH,
    name: str = "fresh",
    languages: tuple[str, ...] = LANGUAGES,
) -> tuple[tuple[str, ...], tuple[Case, ...]]:
    """The scenarios in English order, and every case of ``split``, language by language in the
    order of ``languages``; raises ``ValueError`` when a scenario is not written once in each
    language, or its languages need different tools (the message names the rows as
    ``{name}_{language}``)."""
    scenarios = tuple(row[0] for row in rows["en"])
    needs: dict[str, tuple[str, ...]] = {row[0]: tuple(row[2:]) for row in rows["en"]}
    cases = []
    for language in languages:
        written = [row[0] for row in rows.get(language, ())]
        if sorted(written) != sorted(scenarios) or len(set(scenarios)) != len(scenarios):
            raise ValueError(f"{name}_{language}: not every scenario once, as in {name}_en")
        for scenario, prompt, *tools in rows.get(language, ()):
            if tuple(tools) != needs[scenario]:
                raise ValueError(f"{scenario} ({language}) needs {tools}, not {needs[scenario]}")
            cases.append(Case(language, prompt, tuple(tools), split, scenario))
    return scenarios, tuple(cases)


SCENARIOS, FRESH_CASES = build({"en": EN, "ar": AR, "tr": TR})
"""The fresh set's scenarios, and its cases: English, then Arabic, then Turkish."""


def fresh_cases_in(language: str) -> tuple[Case, ...]:
    """The fresh cases written in one language."""
    return tuple(case for case in FRESH_CASES if case.language == language)
