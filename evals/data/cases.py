"""Eval cases: realistic requests to the CRM "units" agent, each naming the tool(s) it needs.

English, Arabic and Turkish are written separately, each as a speaker of that language would ask
(the Arabic is mostly Gulf colloquial, some Modern Standard, as users of an Arabic-first CRM
write), not as translations of one another. A case may name a core tool; core tools are always
bound, so recall is measured over the non-core tools a case names, and every case names at least
one. ``OFF_TOPIC`` holds messages no tool applies to, for the score analysis.

The rows live in one module per language (``evals.data.cases_en``, ``cases_ar``, ``cases_tr``).
Keep these apart from ``toolret.demo._example_requests``: examples are what tool authors attach
to tools; cases are what the eval asks. A test rejects any example that equals or nearly
equals a case.

Every case belongs to a scenario, one user need (the same request in other words or another
language), and every scenario is in one of two halves, recorded in ``_SCENARIOS``:

- ``TUNE``: the tuning half. Descriptions, examples, document templates and scoring may be
  changed to make these cases pass.
- ``HELD``: the held-back half. Only reported and gated (``evals.recall.gate``); never revise a
  description or an example because a held-back case failed.

A third value, ``FRESH``, marks the fresh held-back set (``evals.data.fresh``): held back like
``HELD``, never tuned on, but kept out of ``CASES`` and so out of the gate and every study.
A fourth, ``FRESH2``, marks a second one written the same way (``evals.data.fresh2``), and a
fifth, ``FRESH3``, a third (``evals.data.fresh3``, which adds Persian).

The split is by scenario, so a case and its translations or near-equivalents sit in the same
half: tuning on one cannot lift the other. A scenario may move from held-back to tuning (when a
description is found to restate it), never back. How it was built:

1. The 133 cases written before the split were grouped into scenarios, read against the
   descriptions; the tuning half took those a description restates (it names the case's
   situation, not just the operation any description of that tool must name), about half of
   each language; five held-back scenarios found restated on a closer reading moved there too.
2. Every non-core tool then lacked held-back cases in some language, so new held-back scenarios
   were written for them, in situations no description or example names: every non-core tool
   has a held-back case in every language, and the held-back half is a little more than
   half (English 38 of 65, Arabic 40 of 69, Turkish 38 of 64).

Caveats: the descriptions and examples were written while the first 133 cases were visible,
and some ranking choices were made on a tuning half that held translations of cases that are
held back here, so held-back figures on those 133 are somewhat optimistic (the cases written
for the held-back half carry neither bias). Tuning looks only at the ``TUNE`` half.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evals.data.cases_ar import ROWS as AR
from evals.data.cases_en import ROWS as EN
from evals.data.cases_tr import ROWS as TR

__all__ = [
    "CASES",
    "FRESH",
    "FRESH2",
    "FRESH3",
    "HELD",
    "LANGUAGES",
    "OFF_TOPIC",
    "SPLITS",
    "TUNE",
    "Case",
    "OffTopic",
    "Split",
    "cases_in",
]

LANGUAGES = ("en", "ar", "tr")
"""The languages that have cases; every non-core tool needs a case in each."""

Split = Literal["tune", "held", "fresh", "fresh2", "fresh3"]
TUNE: Split = "tune"
"""The tuning half: what descriptions, examples and ranking choices may be fitted to."""
HELD: Split = "held"
"""The held-back half: reported and gated, never tuned on."""
FRESH: Split = "fresh"
"""The fresh held-back set (``evals.data.fresh.FRESH_CASES``, not in ``CASES``): written before
anything was measured on it, reported only, never tuned on, not gated."""
FRESH2: Split = "fresh2"
"""The second fresh held-back set (``evals.data.fresh2.FRESH2_CASES``, not in ``CASES``): like
``FRESH``, written before anything was measured on it, once ``FRESH`` had been read twice."""
FRESH3: Split = "fresh3"
"""The third fresh held-back set (``evals.data.fresh3.FRESH3_CASES``, not in ``CASES``): like
``FRESH2``, written before anything was measured on it, once ``FRESH2`` had been read; in
English, Arabic, Turkish and Persian."""
SPLITS: tuple[Split, ...] = (TUNE, HELD)


@dataclass(frozen=True)
class Case:
    """One request, its language, the tools the agent needs to serve it, its scenario (the
    user need it shares with its translations) and that scenario's half."""

    language: str
    prompt: str
    tools: tuple[str, ...]
    split: Split = TUNE
    scenario: str = ""


@dataclass(frozen=True)
class OffTopic:
    """A message no tool in the roster applies to."""

    language: str
    prompt: str


_SCENARIOS: dict[str, Split] = {
    # held back
    "new-lead-with-phone": HELD,
    "deal-gone-buyer-left": HELD,
    "import-a-spreadsheet": HELD,
    "export-leases-ending": HELD,
    "count-units-in-a-building": HELD,
    "restore-deleted-record": HELD,
    "delete-campaigns-object": HELD,
    "add-a-field-to-units": HELD,
    "make-a-field-mandatory": HELD,
    "drop-a-relation": HELD,
    "which-views-exist": HELD,
    "hide-a-column-and-sort-a-view": HELD,
    "what-the-team-wrote": HELD,
    "note-on-a-client-record": HELD,
    "note-and-reminder": HELD,
    "field-and-view-on-it": HELD,
    "mark-sold-and-export": HELD,
    "contracts-object-related-to-contacts": HELD,
    "find-a-deal-and-update-it": HELD,
    "record-added-by-mistake": HELD,
    "calendar-view": HELD,
    "postpone-a-task": HELD,
    "new-deal-and-follow-up-task": HELD,
    # held back from the start: written after the re-split
    "purge-a-dropped-buildings-units": HELD,
    "fold-an-imported-unit-into-its-copy": HELD,
    "who-edited-a-disputed-record": HELD,
    "describe-an-object-for-newcomers": HELD,
    "drop-a-field-we-may-not-keep": HELD,
    "leading-zero-lost": HELD,
    "reorder-and-recolour-a-dropdown": HELD,
    "can-a-unit-have-two-owners": HELD,
    "parking-bay-goes-with-a-flat": HELD,
    "vendor-contract-ended": HELD,
    "how-a-board-is-grouped": HELD,
    "campaign-over-remove-its-board": HELD,
    "colleagues-open-tasks-before-leave": HELD,
    "reopen-a-task-closed-too-early": HELD,
    "viewing-cancelled-drop-its-reminder": HELD,
    "prebuilt-for-holiday-rentals": HELD,
    "install-the-pack-we-looked-at": HELD,
    "who-has-admin-rights": HELD,
    "board-was-better-before-your-change": HELD,
    "lease-extended-new-end-date": HELD,
    "set-a-field-on-many": HELD,
    "payments-to-open-elsewhere": HELD,
    "track-keys-handed-out": HELD,
    "relate-maintenance-reports-to-units": HELD,
    "fix-a-misspelt-surname": HELD,
    "total-rent-collected": HELD,
    "saved-list-of-late-payers": HELD,
    "delegate-a-photo-shoot": HELD,
    # tuning
    "record-status-or-stage": TUNE,
    "contact-detail-changed": TUNE,
    "reassign-a-leavers-records": TUNE,
    "purge-test-contacts": TUNE,
    "count-deals-or-leads-in-a-period": TUNE,
    "merge-duplicate-record": TUNE,
    "who-changed-a-price": TUNE,
    "track-a-new-kind-of-record": TUNE,
    "rename-an-object": TUNE,
    "field-has-the-wrong-type": TUNE,
    "add-a-dropdown-option": TUNE,
    "relate-two-objects": TUNE,
    "link-two-records": TUNE,
    "what-a-view-filters": TUNE,
    "kanban-of-deals-by-stage": TUNE,
    "my-tasks": TUNE,
    "remind-me-to-call": TUNE,
    "mark-a-task-done": TUNE,
    "ready-made-templates": TUNE,
    "install-a-template": TUNE,
    "who-is-on-a-team": TUNE,
    "undo-a-wrong-change": TUNE,
    "raise-prices-by-percent": TUNE,
    "purge-old-lost-leads": TUNE,
    "export-tenants-for-accountant": TUNE,
    "average-rent": TUNE,
    # tuning: held back at first, then found restated by their tool's description (written
    # while every case was visible): the description names the case's situation, not just the
    # tool's operation
    "how-objects-connect": TUNE,
    "unlink-wrongly-linked-records": TUNE,
    "delete-the-fax-field": TUNE,
    "delete-an-old-view": TUNE,
    "delete-a-duplicate-task": TUNE,
}
"""Each scenario's half. The rows (``evals.data.cases_en``, ``cases_ar``, ``cases_tr``)
name their scenario; a scenario's cases in every language share its half, so no case has a
translation on the other side of the split."""

OFF_TOPIC: tuple[OffTopic, ...] = tuple(
    OffTopic(language, prompt)
    for language, prompt in (
        ("en", "What's the weather going to be like in Riyadh tomorrow?"),
        ("en", "Write me a short poem about the sea"),
        ("en", "Tell me a joke"),
        ("en", "Who won the football match last night?"),
        ("en", "What's a good recipe for chicken biryani?"),
        ("en", "How do I fix a flat bicycle tire?"),
        ("en", "Explain how photosynthesis works"),
        ("en", "Translate 'good morning' into French"),
        ("ar", "كم درجة الحرارة في جدة اليوم؟"),
        ("ar", "اكتب لي قصيدة عن الأم"),
        ("ar", "وش أفضل مطعم مندي في الرياض؟"),
        ("ar", "مين فاز بمباراة الهلال أمس؟"),
        ("ar", "علّمني طريقة عمل الكبسة"),
        ("ar", "متى يبدأ رمضان السنة هذي؟"),
        ("ar", "اشرح لي نظرية النسبية ببساطة"),
        ("ar", "كيف أتعلم البرمجة من الصفر؟"),
        ("tr", "Yarın İstanbul'da hava nasıl olacak?"),
        ("tr", "Bana bir fıkra anlat"),
        ("tr", "Menemen nasıl yapılır?"),
        ("tr", "Dün akşamki maçı kim kazandı?"),
        ("tr", "Fotosentez nasıl işler, kısaca anlatır mısın?"),
        ("tr", "İngilizce öğrenmek için ne önerirsin?"),
        ("fr", "Quel temps fera-t-il demain à Paris ?"),
        ("fr", "Recommande-moi un bon roman policier"),
        ("de", "Erzähl mir einen Witz über Katzen"),
        ("es", "¿Cuál es la capital de Australia?"),
    )
)


def _build(language: str, rows: tuple[tuple[str, ...], ...]) -> tuple[Case, ...]:
    cases = []
    for scenario, prompt, *tools in rows:
        if scenario not in _SCENARIOS:
            raise ValueError(f"case {prompt!r}: no half recorded for scenario {scenario!r}")
        cases.append(Case(language, prompt, tuple(tools), _SCENARIOS[scenario], scenario))
    return tuple(cases)


CASES: tuple[Case, ...] = _build("en", EN) + _build("ar", AR) + _build("tr", TR)
"""Every case, English first, then Arabic, then Turkish."""


def cases_in(language: str, split: Split | None = None) -> tuple[Case, ...]:
    """The cases written in one language (in one half, if ``split`` is given)."""
    return tuple(
        case
        for case in CASES
        if case.language == language and (split is None or case.split == split)
    )
