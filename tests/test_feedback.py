"""Feedback from turns: reading what was called, sending it through the queue, storing it,
learning from misses, forgetting — with the real Redis, worker, Postgres and bundled model."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import numpy as np
import pytest
from arq.worker import Worker
from langchain_core.messages import AIMessage, HumanMessage

from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder, Settings
from toolret._profile import LEARNED_MIN_SIMILARITY, ToolScore, corpus_hash
from toolret.feedback._learning import Decision, LearningPolicy, VectorSpace, learned_key
from toolret.feedback._sender import FeedbackSender
from toolret.feedback._signals import TurnFeedback, called_tool_names, turn_feedback
from toolret.feedback._store import FeedbackStore
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode, Selection
from toolret.store._schema import READER_ROLE
from toolret.store._vector_store import VectorStore

K = 3
BUDGET = 30.0
MESSAGE = "Please look after the Acme account this week"


# -- reading a turn --------------------------------------------------------------------------


def _openai_turn() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "earlier message"},
        {"role": "assistant", "tool_calls": [{"id": "0", "function": {"name": "old_tool"}}]},
        {"role": "user", "content": MESSAGE},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "1",
                    "type": "function",
                    "function": {"name": "find_tools", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "1", "content": '{"tools": [{"name": "create_task"}]}'},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "2", "function": {"name": "create_task", "arguments": "{}"}},
                {"id": "3", "function": {"name": "find_records", "arguments": "{}"}},
            ],
        },
    ]


def test_called_tools_are_read_from_the_current_turn_in_every_shape() -> None:
    assert called_tool_names(_openai_turn()) == ["create_task", "find_records"]
    responses = [
        {"role": "user", "content": [{"type": "input_text", "text": MESSAGE}]},
        {"type": "function_call", "name": "add_comment", "call_id": "a", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": "ok"},
    ]
    assert called_tool_names(responses) == ["add_comment"]
    anthropic = [
        {"role": "user", "content": MESSAGE},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "send_email"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": ""}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "u", "name": "create_task"}]},
    ]
    assert called_tool_names(anthropic) == ["send_email", "create_task"]

    call = {"id": "l", "name": "delete_record", "args": {}}
    langchain = [HumanMessage(MESSAGE), AIMessage("", tool_calls=[call])]
    assert called_tool_names(langchain) == ["delete_record"]


def test_a_turn_splits_called_tools_into_hits_and_misses() -> None:
    catalog = crm_catalog()
    core = [t.name for t in catalog.core]
    bound = ["create_view", "create_record", "delete_record"]
    selection = Selection(
        catalog.subset([*core, *bound]),
        Mode.NARROWED,
        scores={"create_view": 0.8, "create_record": 0.9, "delete_record": 0.7},
    )
    transcript = [
        *_openai_turn()[:-1],
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "2", "function": {"name": "create_task"}},
                {"id": "3", "function": {"name": "create_record"}},
                {"id": "4", "function": {"name": core[0]}},
                {"id": "5", "function": {"name": "not_in_catalog"}},
            ],
        },
    ]
    vector = np.arange(4, dtype=np.float32)
    feedback = turn_feedback(
        catalog, selection, transcript, vector, model_id="m@4", corpus_hash="c", k=K
    )
    assert feedback.hits == ("create_record",)
    assert feedback.misses == ("create_task",)
    assert feedback.discovered == ("create_task",)
    assert feedback.find_tools_calls == 1
    assert feedback.bound == ("create_record", "create_view", "delete_record")
    assert feedback.core == tuple(core)
    assert feedback.text is None
    assert TurnFeedback.from_payload(feedback.to_payload()) == feedback
    # Called tool names alone are enough, too.
    by_name = turn_feedback(
        catalog, selection, ["create_task"], vector, model_id="m@4", corpus_hash="c", k=K
    )
    assert by_name.misses == ("create_task",)
    assert by_name.find_tools_calls == 0


# -- deciding promotions ---------------------------------------------------------------------


def _axis(i: int, dimension: int = 8) -> np.ndarray:
    vector = np.zeros(dimension, dtype=np.float32)
    vector[i] = 1.0
    return vector


def test_promotion_skips_ranked_duplicate_and_capped_vectors() -> None:
    space = VectorSpace([(f"t{i}", _axis(i)) for i in range(5)])
    policy = LearningPolicy(cap_per_tool=2, duplicate_similarity=0.95)
    near_t0 = _axis(0) + 0.1 * _axis(4)
    # t0 is the best tool for a vector next to it: already within the cut-off.
    assert space.decide("t0", near_t0, k=1, core=(), policy=policy) is Decision.RANKED
    # t1 is not: promoted, and from then on ranked first for it.
    assert space.decide("t1", near_t0, k=1, core=(), policy=policy) is Decision.PROMOTED
    assert space.rank_of("t1", near_t0) == 0
    assert space.decide("t2", near_t0, k=1, core=(), policy=policy) is Decision.PROMOTED
    # A nearly identical vector for t2 again: t2 is still behind t1, but it is a duplicate.
    twin = near_t0 + 0.001 * _axis(3)
    assert space.decide("t2", twin, k=1, core=(), policy=policy) is Decision.DUPLICATE
    assert space.decide("t2", _axis(6) + _axis(1), k=1, core=(), policy=policy) is (
        Decision.PROMOTED
    )
    assert space.learned_count("t2") == 2
    assert space.decide("t2", _axis(7) + _axis(3), k=1, core=(), policy=policy) is Decision.CAP
    assert space.decide("nope", near_t0, k=1, core=(), policy=policy) is Decision.UNKNOWN_TOOL
    # Core tools are bound anyway: they never count against the cut-off.
    fresh = VectorSpace([(f"t{i}", _axis(i)) for i in range(5)])
    assert fresh.rank_of("t3", _axis(0) + 0.5 * _axis(3)) == 1
    assert fresh.rank_of("t3", _axis(0) + 0.5 * _axis(3), exclude=["t0"]) == 0


def test_promotion_ranks_tools_by_the_embedders_tool_score() -> None:
    """Under a blended score a tool's example cannot carry it alone, and a learned vector near
    the message joins its examples (one beyond the gate does not): the decision sees the tool
    where the ranking statement puts it."""
    example = 0.6 * _axis(0) + 0.8 * _axis(3)
    documents = [("t0", _axis(0)), ("t1", _axis(1)), ("t1", example)]
    kinds = ["description", "description", "example"]
    blend = ToolScore("blend", 0.5, 2)
    assert VectorSpace(documents, kinds=kinds).rank_of("t1", _axis(0)) == 1
    assert VectorSpace(documents, kinds=kinds).best_scores(_axis(0))[1] == pytest.approx(0.6)
    space = VectorSpace(documents, kinds=kinds, score=blend)
    assert space.best_scores(_axis(0))[1] == pytest.approx(0.3)
    learned = VectorSpace(documents, [("t1", _axis(0)), ("t1", _axis(2))], kinds=kinds, score=blend)
    assert learned.best_scores(_axis(0))[1] == pytest.approx(0.5 * (1.0 + 0.6) / 2)
    assert learned.rank_of("t1", _axis(0)) == 1


def test_learned_keys_are_content_addresses() -> None:
    assert learned_key("m", _axis(1)) == learned_key("m", _axis(1).astype(np.float64))
    assert learned_key("m", _axis(1)) != learned_key("m", _axis(2))
    assert learned_key("m", _axis(1)) != learned_key("n", _axis(1))


# -- the whole path --------------------------------------------------------------------------


@pytest.fixture
async def indexed(database_url: str) -> AsyncIterator[VectorStore]:
    """A store with the CRM catalog published for the bundled model."""
    async with VectorStore.from_url(database_url) as store:
        async with ToolRetrievalClient(store=store, embedder=BundledE5Embedder()) as client:
            await client.index(crm_catalog())
        yield store


async def _last_candidate(client: ToolRetrievalClient, message: str) -> str:
    catalog = crm_catalog()
    ranking = await client.rank(catalog, message, k=len(catalog.candidates))
    return min(ranking.scores, key=lambda name: ranking.scores[name])


async def test_a_reported_miss_is_stored_learned_and_then_bound(
    indexed: VectorStore, redis_url: str, worker: Callable[..., Worker]
) -> None:
    catalog = crm_catalog()
    embedder = BundledE5Embedder()
    settings = Settings(redis_url=redis_url, learn=True)
    async with ToolRetrievalClient(
        store=indexed, embedder=embedder, settings=settings, k=K, time_budget=BUDGET
    ) as client:
        needed = await _last_candidate(client, MESSAGE)
        before = await client.select(catalog, MESSAGE)
        assert before.mode is Mode.NARROWED
        assert needed not in before.names
        transcript = [
            {"role": "user", "content": MESSAGE},
            {"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": needed}}]},
        ]
        assert await client.report_turn(catalog, before, transcript)
        await client.flush()

        run = worker(ctx={"store": indexed, "embedder": embedder})
        await run.main()
        assert run.jobs_complete == 1
        assert run.jobs_failed == 0

        after = await client.select(catalog, MESSAGE)
        assert needed in after.names
    # The HNSW statement (large catalogs) unions the learned layer in as well.
    async with (
        VectorStore(indexed.engine, exact_limit=1) as hnsw_store,
        ToolRetrievalClient(
            store=hnsw_store, embedder=embedder, k=K, time_budget=BUDGET
        ) as through_index,
    ):
        indexed_selection = await through_index.select(catalog, MESSAGE)
    assert indexed_selection.mode is Mode.NARROWED
    assert needed in indexed_selection.scores

    feedback = FeedbackStore(indexed)
    corpus = corpus_hash(catalog, embedder)
    assert await feedback.learned_counts(embedder.model_id, corpus) == {needed: 1}
    stats = await feedback.stats(embedder.model_id, corpus)
    assert stats.turns == 1
    (day,) = stats.days
    assert (day.misses, day.hits, day.turns_with_miss) == (1, 0, 1)
    (tool,) = [t for t in stats.tools if t.misses]
    assert tool.tool == needed
    assert tool.learned == 1
    assert tool.confused_with[0][0] in before.scores

    # Nothing the user wrote was stored (TOOLRET_FEEDBACK_TEXT is off).
    connection = await asyncpg.connect(_plain(indexed))
    try:
        assert await connection.fetchval("SELECT count(*) FROM toolret_feedback_turns") == 1
        assert (
            await connection.fetchval(
                "SELECT count(*) FROM toolret_feedback_turns WHERE text IS NOT NULL"
            )
            == 0
        )
        # The read-only role reads the learned layer and nothing else of feedback.
        await connection.execute(f"SET ROLE {READER_ROLE}")
        assert await connection.fetchval("SELECT count(*) FROM toolret_learned_vectors") == 1
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await connection.fetchval("SELECT count(*) FROM toolret_feedback_turns")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await connection.execute("DELETE FROM toolret_learned_vectors")
    finally:
        await connection.close()

    # Forgetting removes the learned vector, and the miss is never promoted again.
    assert await feedback.forget(embedder.model_id, needed) == 1
    assert await feedback.learned_counts(embedder.model_id, corpus) == {}
    report = await feedback.promote(embedder.model_id, corpus)
    assert report.considered == 0
    async with ToolRetrievalClient(
        store=indexed, embedder=embedder, k=K, time_budget=BUDGET
    ) as client:
        forgotten = await client.select(catalog, MESSAGE)
    assert forgotten.mode is Mode.NARROWED
    assert needed not in forgotten.names


def _plain(store: VectorStore) -> str:
    return store.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


# -- never in the request's way --------------------------------------------------------------


def _feedback(**overrides: Any) -> TurnFeedback:
    fields: dict[str, Any] = {
        "model_id": "m@4",
        "corpus_hash": "c",
        "k": K,
        "bound": ("create_record",),
        "core": ("find_records",),
        "hits": (),
        "misses": ("create_task",),
        "discovered": (),
        "find_tools_calls": 0,
        "vector": (1.0, 0.0, 0.0, 0.0),
    }
    return TurnFeedback(**{**fields, **overrides})


async def test_reports_are_dropped_and_counted_when_redis_is_down() -> None:
    sender = FeedbackSender("redis://127.0.0.1:1/0", buffer_size=1)
    try:
        assert sender.submit(_feedback())  # buffered: submit never waits on the network
        assert not sender.submit(_feedback())  # the buffer holds one
        assert sender.dropped["buffer_full"] == 1
        await sender.flush()
        assert sender.dropped["redis_unavailable"] == 1
        assert sender.sent == 0
    finally:
        await sender.aclose()
    assert not sender.submit(_feedback())
    assert sender.dropped["closed"] == 1


async def test_a_message_whose_vector_is_not_cached_is_not_embedded_again() -> None:
    catalog = crm_catalog()
    selection = Selection(catalog.subset(["create_record", "find_records"]), Mode.NARROWED)
    sender = FeedbackSender("redis://127.0.0.1:1/0")
    embedder = BundledE5Embedder()  # no query cache: nothing to reuse
    try:
        sent = sender.report(catalog, selection, ["create_task"], embedder=embedder, k=K)
    finally:
        await sender.aclose()
    assert not sent
    assert sender.dropped["no_vector"] == 1


async def test_feedback_is_collected_after_its_retention(store: VectorStore) -> None:
    feedback = FeedbackStore(store)
    await feedback.record(_feedback())
    assert await feedback.gc(timedelta(days=30)) == (0, 0)
    later = datetime.now(UTC) + timedelta(days=31)
    assert await feedback.gc(timedelta(days=30), now=later) == (1, 0)
    stats = await feedback.stats("m@4", "c")
    assert stats.turns == 0


async def test_text_is_kept_only_when_the_operator_opts_in(
    indexed: VectorStore,
    redis_url: str,
    worker: Callable[..., Worker],
    caplog: pytest.LogCaptureFixture,
) -> None:
    catalog = crm_catalog()
    embedder = BundledE5Embedder()
    secret = "Zainab's passport X1234567: remind me to renew it"
    caplog.set_level(logging.DEBUG)
    for keep in (False, True):
        settings = Settings(redis_url=redis_url, feedback_text=keep)
        async with ToolRetrievalClient(
            store=indexed, embedder=embedder, settings=settings, k=K, time_budget=BUDGET
        ) as client:
            selection = await client.select(catalog, secret)
            called = next(t.name for t in catalog.candidates if t.name not in selection.names)
            assert await client.report_turn(catalog, selection, [called], message=secret)
        run = worker(ctx={"store": indexed, "embedder": embedder})
        await run.main()
        assert run.jobs_failed == 0
    connection = await asyncpg.connect(_plain(indexed))
    try:
        texts = await connection.fetch("SELECT text FROM toolret_feedback_turns ORDER BY id")
    finally:
        await connection.close()
    assert [row[0] for row in texts] == [None, secret]
    for fragment in ("Zainab", "X1234567", secret):
        assert fragment not in caplog.text


def test_promotion_decides_with_learned_vectors_scored_as_the_statements_score_them() -> None:
    # A learned vector counts only within the cut-off, in the decision as in the ranking
    # statements; otherwise a vector the served ranking ignores would keep a tool "ranked"
    # and its real misses would never be learned.
    learned = _axis(2)
    space = VectorSpace([("t0", _axis(0)), ("t1", _axis(1))], [("t1", learned)])
    far = 0.8 * learned + 0.6 * _axis(0)  # cosine 0.8 to the learned vector, 0.6 to t0
    near = 0.95 * learned + np.sqrt(1 - 0.95**2) * _axis(0)
    assert space.learned_min_similarity == LEARNED_MIN_SIMILARITY
    assert space.rank_of("t1", far) == 1
    assert space.rank_of("t1", near) == 0
    loose = VectorSpace(
        [("t0", _axis(0)), ("t1", _axis(1))], [("t1", learned)], learned_min_similarity=0.75
    )
    assert loose.rank_of("t1", far) == 0
