"""The feedback jobs: store one reported turn, count the tools it called together, then (opted
in) promote its corpus's misses; and count tools called together where no turn was reported.

The application sends ``TurnFeedback`` payloads through the queue (``toolret.feedback._sender``);
these jobs are the only writers of the feedback tables. The called tools are counted as used
together (``toolret.feedback._companion_store``) unless the application or the worker turned
companions off (``TOOLRET_COMPANIONS=0``), in the transaction that stores the turn; the gateway
sends just the names (``record_calls``). When the turn opted into learning
(``TOOLRET_LEARN=1`` in the application, or ``report_turn(..., learn=True)``) and had a miss,
the same job runs a promotion over the corpus's unconsidered misses: the learned layer grows in
one transaction per run. Promotion waits for the corpus to be published; its misses wait too.
While Postgres cannot be reached the job is retried a few times, then dropped (feedback is
best-effort: it never holds up the worker), with one log line per outage, not a traceback.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

from arq import Retry

from toolret._profile import DEFAULT_PROFILE, profile_of
from toolret._settings import Settings
from toolret.errors import StoreUnavailableError
from toolret.feedback._companion_store import CompanionStore
from toolret.feedback._learning import LearningPolicy
from toolret.feedback._signals import TurnFeedback
from toolret.feedback._store import FeedbackStore
from toolret.retrieval._metrics import record_promoted
from toolret.worker._jobs import RETRY_BASE, retry_delay
from toolret.worker._outage import Dependency

__all__ = ["record_calls", "record_feedback"]

log = logging.getLogger("toolret.worker")


async def record_feedback(ctx: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """Store the turn in ``payload``; promote misses if it opted in. Returns what was done.

    Never logs the message text (a payload carries it only when the operator opted in).
    """
    feedback = TurnFeedback.from_payload(payload)
    store = FeedbackStore(ctx["store"])
    counted = feedback.called if feedback.companions and _companions_on(ctx) else ()
    async with _retried_while_down(ctx):
        turn = await store.record(feedback, used_together=counted)
    result: dict[str, Any] = {
        "turn": turn,
        "hits": len(feedback.hits),
        "misses": len(feedback.misses),
        "counted": len(counted),
    }
    if feedback.learn and feedback.misses:
        policy: LearningPolicy = ctx.get("learning_policy") or LearningPolicy()
        embedder = ctx.get("embedder")
        score = (
            profile_of(embedder).score
            if embedder is not None and embedder.model_id == feedback.model_id
            else DEFAULT_PROFILE.score
        )
        report = await store.promote(feedback.model_id, feedback.corpus_hash, policy, score)
        record_promoted(report.promoted)
        result["promotion"] = report.decisions
        if report.promoted:
            log.info(
                "learned %d vector(s) for %s@%s",
                report.promoted,
                feedback.model_id,
                feedback.corpus_hash[:12],
            )
    return result


async def record_calls(ctx: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """Count the tools ``payload["tools"]`` names as called together in one turn (the gateway's
    report: names only). Returns how many rows it added to."""
    tools = [str(name) for name in payload.get("tools", ())]
    if not _companions_on(ctx):
        return {"rows": 0}
    async with _retried_while_down(ctx):
        rows = await CompanionStore(ctx["store"]).record(tools)
    return {"rows": rows}


def _companions_on(ctx: dict[str, Any]) -> bool:
    settings: Settings | None = ctx.get("settings")
    return (settings or Settings()).companions


@contextlib.asynccontextmanager
async def _retried_while_down(ctx: dict[str, Any]) -> AsyncIterator[None]:
    """Postgres unreachable: the job is retried later (a few times, then dropped), with one log
    line per outage."""
    postgres: Dependency = ctx.get("postgres") or Dependency("Postgres")
    try:
        yield
    except StoreUnavailableError as error:
        postgres.down(error)
        base: timedelta = ctx.get("retry_base", RETRY_BASE)
        raise Retry(defer=retry_delay(ctx.get("job_try", 1), base)) from error
    postgres.up()
