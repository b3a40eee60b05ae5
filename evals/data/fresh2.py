"""A second fresh held-back set of roster cases: new scenarios, written before anything was
measured on them.

Why: the first fresh set (``evals.data.fresh``) has been read twice (for today's opt-in sparse
signal, then for a smaller weight chosen on the tuning sets), so it can no longer confirm a
choice on its own. This one was read once, the same way (default against the variant, with and
without examples, in every language), for the head-keeping fusion, and is spent like the first
(docs/decisions.md, "A second fresh held-back set" and "The second fresh set, read once").

How it was written (on ``WRITTEN``, in session 47, every row before any retrieval, ranking or
embedding was run on it; only the text checks of ``tests/test_eval_fresh.py`` ran before the
commit that added them):

- every non-core roster tool has two scenarios of its own, each a need whose tool has a
  look-alike on the roster (create / update / delete record, update / bulk update, delete / bulk
  delete / delete object, import / export, restore / undo / merge, the field tools, create /
  delete relation / link / unlink, list / get / create / update / delete view, add / list
  comments and tasks, browse / install), and six scenarios need two tools at once;
- each scenario is one need of a user of the property CRM's agent, asked the way that user
  would ask it, once in English, Arabic (mostly Gulf colloquial, some Modern Standard) and
  Turkish, each written for its language with its own names, places and habits, not word for
  word; many need their tool without naming its operation ("The import created a second Sunset
  Villas building; fold it into the original");
- none restates a case of either half, a case of the first fresh set, a tool's description or
  one of its examples (``tests/test_eval_fresh.py`` checks the near-duplicate rule against all
  of them); lengths run from 3 to 25 words, most 6 to 18.

Rules: reported only, never tuned on (``FRESH2``); never edit a description, an example or one
of these rows because of a figure measured on it; not part of ``CASES``, so the CI gate
(``evals.recall.gate``) and the studies never see it. The rows live in ``fresh2_{en,ar,tr}_model``
(records, objects, fields, relations) and ``fresh2_{en,ar,tr}_work`` (the rest); the recall
runner reports the set as ``roster-held-back-fresh2`` (``evals.recall.roster_sets``).
"""

from __future__ import annotations

from evals.data.cases import FRESH2, Case
from evals.data.fresh import build
from evals.data.fresh2_ar_model import ROWS as AR_MODEL
from evals.data.fresh2_ar_work import ROWS as AR_WORK
from evals.data.fresh2_en_model import ROWS as EN_MODEL
from evals.data.fresh2_en_work import ROWS as EN_WORK
from evals.data.fresh2_tr_model import ROWS as TR_MODEL
from evals.data.fresh2_tr_work import ROWS as TR_WORK

__all__ = ["FRESH2_CASES", "LABEL", "ROWS", "SCENARIOS", "WRITTEN", "fresh2_cases_in"]

WRITTEN = "2026-12-06"
"""The day every row was written (session 47), before anything was measured on them."""
LABEL = f"held-back, fresh (written {WRITTEN}, session 47)"
"""How the recall report labels the set."""

ROWS = {
    "en": (*EN_MODEL, *EN_WORK),
    "ar": (*AR_MODEL, *AR_WORK),
    "tr": (*TR_MODEL, *TR_WORK),
}
"""Each language's rows, (scenario, prompt, tool, ...)."""

SCENARIOS, FRESH2_CASES = build(ROWS, FRESH2, "fresh2")
"""The second fresh set's scenarios, and its cases: English, then Arabic, then Turkish."""


def fresh2_cases_in(language: str) -> tuple[Case, ...]:
    """The second fresh set's cases written in one language."""
    return tuple(case for case in FRESH2_CASES if case.language == language)
