"""A third fresh held-back set of roster cases: new scenarios in four languages, written before
anything was measured on them.

Why: the second fresh set (``evals.data.fresh2``) has been read once, for the head-keeping
fusion (docs/decisions.md, "The second fresh set, read once"), and is spent like the first. This
one is for the next confirmation, read once, the same way: default against the variant, with
and without examples, in every language (docs/decisions.md, "A third fresh held-back set").

How it was written (on ``WRITTEN``, in session 47, every row before any retrieval, ranking or
embedding was run on it; only the text checks of ``tests/test_eval_fresh.py`` ran before the
commit that added them):

- every non-core roster tool has two scenarios of its own, each a need whose tool has a
  look-alike on the roster (create / update / delete record, update / bulk update, delete / bulk
  delete / delete object, import / export, restore / undo / merge, the field tools, create /
  delete relation / link / unlink, list / get / create / update / delete view, add / list
  comments and tasks, browse / install), and six scenarios need two tools at once;
- the situations are other than the earlier sets' homes, villas and offices for sale or rent:
  student residences, shops and kiosks in a mall, warehouses and workshops, a coworking floor,
  self-storage, wedding and event halls, clinic suites and company staff housing;
- each scenario is one need of a user of the CRM's agent, asked the way that user would ask it,
  once in English, Arabic (mostly Gulf colloquial), Turkish and Persian (Iranian, colloquial
  written Persian), each written for its language with its own names, places, dates and habits,
  not word for word;
- none restates a case of either half, a case of the first or second fresh set, a tool's
  description or one of its examples (``tests/test_eval_fresh.py`` checks the near-duplicate
  rule against all of them); lengths run from 3 to 25 words, most 6 to 18.

The roster's examples (``toolret.demo._example_requests``) have none in Persian: the rows with
examples give every tool its English, Arabic and Turkish examples, so a Persian case is matched
against examples in other languages only.

Rules: reported only, never tuned on (``FRESH3``); never edit a description, an example or one
of these rows because of a figure measured on it; not part of ``CASES``, so the CI gate
(``evals.recall.gate``) and the studies never see it. The rows live in
``fresh3_{en,ar,tr,fa}_model`` (records, objects, fields, relations) and
``fresh3_{en,ar,tr,fa}_work`` (the rest); the recall runner reports the set as
``roster-held-back-fresh3`` (``evals.recall.roster_sets``).
"""

from __future__ import annotations

from evals.data.cases import FRESH3, Case
from evals.data.fresh import build
from evals.data.fresh3_ar_model import ROWS as AR_MODEL
from evals.data.fresh3_ar_work import ROWS as AR_WORK
from evals.data.fresh3_en_model import ROWS as EN_MODEL
from evals.data.fresh3_en_work import ROWS as EN_WORK
from evals.data.fresh3_fa_model import ROWS as FA_MODEL
from evals.data.fresh3_fa_work import ROWS as FA_WORK
from evals.data.fresh3_tr_model import ROWS as TR_MODEL
from evals.data.fresh3_tr_work import ROWS as TR_WORK

__all__ = ["FRESH3_CASES", "LABEL", "LANGUAGES", "ROWS", "SCENARIOS", "WRITTEN", "fresh3_cases_in"]

WRITTEN = "2026-12-06"
"""The day every row was written (session 47, the third set), before anything was measured."""
LABEL = f"held-back, fresh (written {WRITTEN}, session 47, third)"
"""How the recall report labels the set."""
LANGUAGES = ("en", "ar", "tr", "fa")
"""The set's languages: the roster's three, and Persian."""

ROWS = {
    "en": (*EN_MODEL, *EN_WORK),
    "ar": (*AR_MODEL, *AR_WORK),
    "tr": (*TR_MODEL, *TR_WORK),
    "fa": (*FA_MODEL, *FA_WORK),
}
"""Each language's rows, (scenario, prompt, tool, ...)."""

SCENARIOS, FRESH3_CASES = build(ROWS, FRESH3, "fresh3", LANGUAGES)
"""The third fresh set's scenarios, and its cases: English, Arabic, Turkish, then Persian."""


def fresh3_cases_in(language: str) -> tuple[Case, ...]:
    """The third fresh set's cases written in one language."""
    return tuple(case for case in FRESH3_CASES if case.language == language)
