"""The feedback job: store one reported turn, then (opted in) promote its corpus's misses.

The application sends ``TurnFeedback`` payloads through the queue (``toolret.feedback._sender``);
this job is the only writer of the feedback tables. When the turn opted into learning
(``TOOLRET_LEARN=1`` in the application, or ``report_turn(..., learn=True)``) and had a miss,
the same job runs a promotion over the corpus's unconsidered misses: the learned layer grows in
one transaction per run. Promotion waits for the corpus to be published; its misses wait too.
While Postgres cannot be reached the job is retried a few times, then dropped (feedback is
best-effort: it never holds up the worker), with one log line per outage, not a traceback.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from arq import Retry

from toolret._profile import DEFAULT_PROFILE, profile_of
from toolret.errors import StoreUnavailableError
from toolret.feedback._learning import LearningPolicy
from toolret.feedback._signals import TurnFeedback
from toolret.feedback._store import FeedbackStore
from toolret.retrieval._metrics import record_promoted
from toolret.worker._jobs import RETRY_BASE, retry_delay
from toolret.worker._outage import Dependency

__all__ = ["record_feedback"]

log = logging.getLogger("toolret.worker")


async def record_feedback(ctx: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """Store the turn in ``payload``; promote misses if it opted in. Returns what was done.

    Never logs the message text (a payload carries it only when the operator opted in).
    """
    feedback = TurnFeedback.from_payload(payload)
    store = FeedbackStore(ctx["store"])
    postgres: Dependency = ctx.get("postgres") or Dependency("Postgres")
    try:
        turn = await store.record(feedback)
    except StoreUnavailableError as error:
        postgres.down(error)
        base: timedelta = ctx.get("retry_base", RETRY_BASE)
        raise Retry(defer=retry_delay(ctx.get("job_try", 1), base)) from error
    postgres.up()
    result: dict[str, Any] = {
        "turn": turn,
        "hits": len(feedback.hits),
        "misses": len(feedback.misses),
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
