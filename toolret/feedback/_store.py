"""Feedback in Postgres: reported turns, their hits and misses, and the learned vector layer.

The worker writes here (``toolret.worker._feedback``); the application's read-only role reads only
``toolret_learned_vectors``, through the ranking statement. Tables are created by the alembic
migration 0002 (see its docstring for the columns).

Learned vectors belong to a (model, catalog corpus hash), like the corpus's own documents: the
corpus hash is content-addressed over the catalog's documents, and a learned vector answers "this
catalog ranked that tool too low for this message", which is a statement about that corpus. Each
promotion run writes its vectors in one transaction under an advisory lock per corpus, so readers
see a run's vectors all at once or not at all. When the catalog changes, its new corpus starts
with no learned layer; the old one is collected with its corpus.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import text

from toolret._profile import DEFAULT_PROFILE, ToolScore
from toolret.embedders._base import Vector
from toolret.feedback._companion_store import counted_rows
from toolret.feedback._learning import Decision, LearningPolicy, VectorSpace, learned_key
from toolret.feedback._signals import HIT, MISS, TurnFeedback
from toolret.store._companion_sql import UPSERT
from toolret.store._pool import StorePool, xact_lock

__all__ = [
    "DayStats",
    "FeedbackStats",
    "FeedbackStore",
    "PromotionReport",
    "ToolStats",
]

INSERT_TURN = """
INSERT INTO toolret_feedback_turns
    (model_id, corpus_hash, k, bound, core, find_tools_calls, learn, dimension, embedding, text)
VALUES (:model, :corpus, :k, CAST(:bound AS text[]), CAST(:core AS text[]), :finds, :learn,
        :dimension, CAST(:embedding AS vector), :text)
RETURNING id
"""
INSERT_EVENTS = """
INSERT INTO toolret_feedback_events (turn_id, tool_name, outcome, via_find_tools)
SELECT :turn, t, o, f
FROM unnest(CAST(:tools AS text[]), CAST(:outcomes AS text[]), CAST(:finds AS boolean[]))
     AS u(t, o, f)
ON CONFLICT DO NOTHING
"""
CORPUS_VECTORS = """
SELECT d.tool_name, v.embedding, v.kind
FROM toolret_corpora c
JOIN toolret_corpus_documents d ON d.corpus_id = c.id
JOIN toolret_vectors v ON v.model_id = c.model_id AND v.doc_key = d.doc_key
WHERE c.model_id = :model AND c.corpus_hash = :corpus AND c.published_at IS NOT NULL
"""
LEARNED_VECTORS = """
SELECT tool_name, embedding FROM toolret_learned_vectors
WHERE model_id = :model AND corpus_hash = :corpus ORDER BY created_at, doc_key
"""
UNCONSIDERED_MISSES = """
SELECT e.turn_id, e.tool_name, t.embedding, t.k, t.core
FROM toolret_feedback_events e JOIN toolret_feedback_turns t ON t.id = e.turn_id
WHERE t.model_id = :model AND t.corpus_hash = :corpus AND t.learn
  AND e.outcome = 'miss' AND e.promotion IS NULL
ORDER BY e.turn_id, e.tool_name
"""
INSERT_LEARNED = """
INSERT INTO toolret_learned_vectors
    (model_id, corpus_hash, doc_key, tool_name, dimension, embedding, turn_id)
VALUES (:model, :corpus, :key, :tool, :dimension, CAST(:embedding AS vector), :turn)
ON CONFLICT DO NOTHING
"""
MARK_CONSIDERED = """
UPDATE toolret_feedback_events SET promotion = :decision
WHERE turn_id = :turn AND tool_name = :tool
"""
FORGET = """
DELETE FROM toolret_learned_vectors
WHERE model_id = :model AND tool_name = :tool
  AND (CAST(:corpus AS text) IS NULL OR corpus_hash = :corpus)
"""
FORGET_MISSES = """
UPDATE toolret_feedback_events e SET promotion = 'forgotten'
FROM toolret_feedback_turns t
WHERE t.id = e.turn_id AND t.model_id = :model AND e.tool_name = :tool AND e.outcome = 'miss'
  AND (CAST(:corpus AS text) IS NULL OR t.corpus_hash = :corpus)
"""
GC_TURNS = """
DELETE FROM toolret_feedback_turns
WHERE created_at < coalesce(CAST(:now AS timestamptz), now()) - CAST(:retention AS interval)
"""
GC_LEARNED = """
DELETE FROM toolret_learned_vectors l
WHERE NOT EXISTS (SELECT FROM toolret_corpora c
                  WHERE c.model_id = l.model_id AND c.corpus_hash = l.corpus_hash)
"""
DAILY = """
WITH t AS (
    SELECT id, created_at, find_tools_calls FROM toolret_feedback_turns
    WHERE model_id = :model AND corpus_hash = :corpus
      AND created_at >= now() - CAST(:window AS interval)),
e AS (
    SELECT turn_id, count(*) FILTER (WHERE outcome = 'hit') AS hits,
           count(*) FILTER (WHERE outcome = 'miss') AS misses
    FROM toolret_feedback_events WHERE turn_id IN (SELECT id FROM t) GROUP BY turn_id)
SELECT CAST(date_trunc('day', t.created_at) AS date), count(*),
       count(*) FILTER (WHERE coalesce(e.misses, 0) > 0),
       count(*) FILTER (WHERE t.find_tools_calls > 0),
       coalesce(sum(e.hits), 0), coalesce(sum(e.misses), 0)
FROM t LEFT JOIN e ON e.turn_id = t.id
GROUP BY 1 ORDER BY 1
"""
TOOL_EVENTS = """
SELECT e.tool_name, e.outcome, e.via_find_tools, t.bound[1:3]
FROM toolret_feedback_events e JOIN toolret_feedback_turns t ON t.id = e.turn_id
WHERE t.model_id = :model AND t.corpus_hash = :corpus
  AND t.created_at >= now() - CAST(:window AS interval)
"""
LEARNED_COUNTS = """
SELECT tool_name, count(*) FROM toolret_learned_vectors
WHERE model_id = :model AND corpus_hash = :corpus GROUP BY tool_name
"""
CASES = """
SELECT t.text, array_agg(e.tool_name ORDER BY e.tool_name)
FROM toolret_feedback_turns t JOIN toolret_feedback_events e ON e.turn_id = t.id
WHERE t.model_id = :model AND t.corpus_hash = :corpus AND t.text IS NOT NULL
GROUP BY t.id, t.text
HAVING bool_or(e.outcome = 'miss')
ORDER BY t.id
"""


@dataclass(frozen=True)
class PromotionReport:
    """One promotion run over a corpus's unconsidered misses."""

    considered: int
    decisions: dict[str, int]

    @property
    def promoted(self) -> int:
        return self.decisions.get(Decision.PROMOTED.value, 0)


@dataclass(frozen=True)
class DayStats:
    """One day of reported turns."""

    day: date
    turns: int
    turns_with_miss: int
    turns_with_find_tools: int
    hits: int
    misses: int

    @property
    def miss_rate(self) -> float:
        """Misses over called tools (hits + misses)."""
        called = self.hits + self.misses
        return self.misses / called if called else 0.0


@dataclass(frozen=True)
class ToolStats:
    """One tool's hits and misses, what was bound when it was missed, and its learned vectors."""

    tool: str
    hits: int
    misses: int
    via_find_tools: int
    confused_with: tuple[tuple[str, int], ...]
    learned: int


@dataclass(frozen=True)
class FeedbackStats:
    """What ``toolret feedback`` shows for one catalog corpus."""

    model_id: str
    corpus_hash: str
    days: tuple[DayStats, ...]
    tools: tuple[ToolStats, ...] = field(default=())

    @property
    def turns(self) -> int:
        return sum(day.turns for day in self.days)


class FeedbackStore:
    """Writes and reads feedback through a store's pool (a role that may write): its
    transactions, locks and error mapping (a missing table is ``SchemaMissingError``)."""

    def __init__(self, store: StorePool) -> None:
        self.store = store

    async def record(self, feedback: TurnFeedback, *, used_together: Sequence[str] = ()) -> int:
        """Store one turn and its hits and misses, and count ``used_together`` (the tools it
        called, when companions are counted) in the same transaction; return the turn's id."""
        tools = [*feedback.hits, *feedback.misses]
        counted = counted_rows(used_together)
        async with self.store.transaction() as connection:
            result = await connection.execute(
                text(INSERT_TURN),
                {
                    "model": feedback.model_id,
                    "corpus": feedback.corpus_hash,
                    "k": feedback.k,
                    "bound": list(feedback.bound),
                    "core": list(feedback.core),
                    "finds": feedback.find_tools_calls,
                    "learn": feedback.learn,
                    "dimension": len(feedback.vector),
                    "embedding": feedback.embedding,
                    "text": feedback.text,
                },
            )
            turn = int(result.scalar_one())
            if tools:
                await connection.execute(
                    text(INSERT_EVENTS),
                    {
                        "turn": turn,
                        "tools": tools,
                        "outcomes": [HIT] * len(feedback.hits) + [MISS] * len(feedback.misses),
                        "finds": [name in feedback.discovered for name in tools],
                    },
                )
            if counted:
                await connection.execute(
                    text(UPSERT),
                    {"tools": [a for a, _ in counted], "companions": [b for _, b in counted]},
                )
            return turn

    async def promote(
        self,
        model_id: str,
        corpus_hash: str,
        policy: LearningPolicy | None = None,
        score: ToolScore = DEFAULT_PROFILE.score,
    ) -> PromotionReport:
        """Consider every miss not considered yet of a corpus whose turns opted into learning;
        write the promoted vectors in one transaction. Nothing happens until the corpus is
        published (its misses wait). ``score`` is the model's ``ToolScore`` (its embedder's
        profile): a miss the ranking already fixes under it is not promoted."""
        policy = policy or LearningPolicy()
        where = {"model": model_id, "corpus": corpus_hash}
        decisions: Counter[str] = Counter()
        async with self.store.transaction() as connection:
            await xact_lock(connection, "learn", model_id, corpus_hash)
            misses = (await connection.execute(text(UNCONSIDERED_MISSES), where)).all()
            if not misses:
                return PromotionReport(0, {})
            documents = (await connection.execute(text(CORPUS_VECTORS), where)).all()
            if not documents:
                return PromotionReport(0, {})
            learned = (await connection.execute(text(LEARNED_VECTORS), where)).all()
            space = VectorSpace(
                [(row[0], _array(row[1])) for row in documents],
                [(row[0], _array(row[1])) for row in learned],
                kinds=[row[2] for row in documents],
                score=score,
            )
            for turn, tool, stored, k, core in misses:
                vector = _array(stored)
                decision = space.decide(tool, vector, k=k, core=core, policy=policy)
                decisions[decision.value] += 1
                if decision is Decision.PROMOTED:
                    await connection.execute(
                        text(INSERT_LEARNED),
                        {
                            **where,
                            "key": learned_key(model_id, vector),
                            "tool": tool,
                            "dimension": len(vector),
                            "embedding": vector,
                            "turn": turn,
                        },
                    )
                await connection.execute(
                    text(MARK_CONSIDERED), {"decision": decision.value, "turn": turn, "tool": tool}
                )
        return PromotionReport(len(misses), dict(decisions))

    async def forget(self, model_id: str, tool: str, corpus_hash: str | None = None) -> int:
        """Delete ``tool``'s learned vectors (of one corpus, or every corpus of the model) and
        mark its misses so they are never promoted again; return how many vectors went."""
        where = {"model": model_id, "tool": tool, "corpus": corpus_hash}
        async with self.store.transaction() as connection:
            removed = await connection.execute(text(FORGET), where)
            await connection.execute(text(FORGET_MISSES), where)
            return int(getattr(removed, "rowcount", 0) or 0)

    async def gc(self, retention: timedelta, *, now: datetime | None = None) -> tuple[int, int]:
        """Delete turns older than ``retention`` and learned vectors whose corpus is gone;
        return (turns, learned vectors) deleted."""
        async with self.store.transaction() as connection:
            turns = await connection.execute(text(GC_TURNS), {"now": now, "retention": retention})
            learned = await connection.execute(text(GC_LEARNED))
            return (
                int(getattr(turns, "rowcount", 0) or 0),
                int(getattr(learned, "rowcount", 0) or 0),
            )

    async def learned_counts(self, model_id: str, corpus_hash: str) -> dict[str, int]:
        """Learned vectors per tool of one corpus."""
        async with self.store.transaction() as connection:
            rows = await connection.execute(
                text(LEARNED_COUNTS), {"model": model_id, "corpus": corpus_hash}
            )
            return {row[0]: int(row[1]) for row in rows}

    async def stats(
        self, model_id: str, corpus_hash: str, *, window: timedelta = timedelta(days=30)
    ) -> FeedbackStats:
        """Per day and per tool, over the last ``window``."""
        where = {"model": model_id, "corpus": corpus_hash, "window": window}
        async with self.store.transaction() as connection:
            days = tuple(
                DayStats(row[0], *(int(x) for x in row[1:]))
                for row in await connection.execute(text(DAILY), where)
            )
            events = (await connection.execute(text(TOOL_EVENTS), where)).all()
        learned = await self.learned_counts(model_id, corpus_hash)
        hits: Counter[str] = Counter()
        misses: Counter[str] = Counter()
        found: Counter[str] = Counter()
        confused: dict[str, Counter[str]] = {}
        for tool, outcome, via_find_tools, bound in events:
            if outcome == HIT:
                hits[tool] += 1
                continue
            misses[tool] += 1
            found[tool] += bool(via_find_tools)
            confused.setdefault(tool, Counter()).update((bound or [])[:1])
        names = sorted(set(hits) | set(misses) | set(learned), key=lambda t: (-misses[t], t))
        tools = tuple(
            ToolStats(
                tool=name,
                hits=hits[name],
                misses=misses[name],
                via_find_tools=found[name],
                confused_with=tuple(confused.get(name, Counter()).most_common(3)),
                learned=learned.get(name, 0),
            )
            for name in names
        )
        return FeedbackStats(model_id, corpus_hash, days, tools)

    async def cases(self, model_id: str, corpus_hash: str) -> list[tuple[str, tuple[str, ...]]]:
        """(message, called tools) of turns that had a miss and whose text was kept."""
        async with self.store.transaction() as connection:
            rows = await connection.execute(text(CASES), {"model": model_id, "corpus": corpus_hash})
            return [(row[0], tuple(row[1])) for row in rows]


def _array(value: Any) -> Vector:
    """A vector as the driver returns it (pgvector's ``Vector``, or an array) as float32."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if callable(to_numpy) else value, dtype=np.float32)
