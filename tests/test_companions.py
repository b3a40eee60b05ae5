"""Tools used together: counted from reported turns by the worker, read by the client, bound
within ``k`` beside the tools ranked first, offered by find_tools beside what is bound — and
never a reason to fail a selection. Real Postgres, Redis, worker and bundled model."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable

import asyncpg
import pytest
from arq.worker import Worker

from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder, InMemoryRetriever, Settings, answer_find_tools
from toolret.feedback._companion_store import CompanionStore, counted_rows
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._companions import (
    MAX_CALLED,
    MIN_STRENGTH,
    PRIOR,
    RETRY_SECONDS,
    CompanionCache,
    Companions,
)
from toolret.retrieval._selection import Mode
from toolret.store._migrate import downgrade_database
from toolret.store._vector_store import VectorStore

K = 6  # 9 candidates: the first 4 ranked, then 2 places companions may take
BUDGET = 30.0
MESSAGE = "Create a new contact for Dana Levi at Acme"
ELIGIBLE: Callable[[str], bool] = lambda name: name != "core"  # noqa: E731


# -- counting and choosing (pure) -------------------------------------------------------------


def test_strength_is_turns_together_over_the_anchors_turns_plus_a_prior() -> None:
    turns = [["a", "b"], ["a", "b"], ["a", "c"], ["a", "c"], *4 * [["a"]], ["b"], ["a", "d"]]
    companions = Companions.from_turns(turns, min_strength=0.0)
    assert dict(companions.of["a"]) == {
        "b": pytest.approx(2 / (9 + PRIOR), abs=1e-4),
        "c": pytest.approx(2 / (9 + PRIOR), abs=1e-4),
    }  # d was called with a once: an accident, not a pattern (MIN_TOGETHER)
    assert dict(companions.of["b"]) == {"a": pytest.approx(2 / (3 + PRIOR), abs=1e-4)}
    assert [name for name, _ in companions.of["a"]] == ["b", "c"]  # strongest first, then name
    assert set(Companions.from_turns(turns).of) == {"b", "c"}  # a's are weaker than MIN_STRENGTH
    assert 2 / (9 + PRIOR) < MIN_STRENGTH <= 2 / (3 + PRIOR)
    assert not Companions.from_turns([["a"], ["b"], ["a", "a"]])  # nothing called together
    # A turn counts its first MAX_CALLED distinct tools, each pair once, in one lock order.
    called = [f"t{i}" for i in range(MAX_CALLED + 3)]
    rows = counted_rows([*called, called[0]])
    assert len(rows) == MAX_CALLED + MAX_CALLED * (MAX_CALLED - 1) // 2
    assert rows == sorted(rows)
    assert all(a <= b for a, b in rows)
    assert ("t9", "t9") not in rows


def test_select_gives_its_last_places_to_the_first_tools_companions() -> None:
    ranked = [f"r{i}" for i in range(20)]
    companions = Companions.from_turns(
        2 * [["r0", "far"], ["r0", "far"], ["r0", "core"], ["r7", "other"], ["r1", "r9"]]
        + 2 * [["r0", "r2"]]
    )
    chosen, added = companions.in_select(ranked, 12, ELIGIBLE)
    assert len(chosen) == 12
    assert chosen[:8] == ranked[:8]
    # r0's companion (4 of its 8 turns: 4/10) first, then r1's (2/4, lent at 0.8), then r7's
    # (0.8 ** 7 / 2); r2 is already among the first eight; the core tool is never a companion.
    assert added == {"far": "r0", "r9": "r1", "other": "r7"}
    assert chosen[8:] == ["far", "r9", "other", "r8"]  # the place no companion took: ranked
    assert Companions().in_select(ranked, 12, ELIGIBLE) == (ranked[:12], {})
    assert companions.in_select(ranked, 2, ELIGIBLE) == (ranked[:2], {})  # k 2: no place


def test_find_tools_answers_give_their_last_places_to_companions_none_twice() -> None:
    companions = Companions.from_turns(
        2 * [["bound", "x"], ["a1", "y"], ["b1", "y"], ["b1", "z"]], min_strength=0.0
    )
    answers = [["a1", "a2", "a3", "a4", "a5"], ["b1", "b2", "b3", "b4", "b5"]]
    first, second = companions.in_answers(answers, 5, anchors=["bound"], skip={"bound"})
    assert first == ["a1", "a2", "a3", "x", "y"]
    assert second == ["b1", "b2", "b3", "z", "b4"]  # y went to the first capability
    assert companions.in_answers(answers, 5, skip={"x", "y", "z"}) == answers
    assert companions.in_answers(answers, 2) == answers  # limit 2: no place


# -- in the retrievers -------------------------------------------------------------------------


@pytest.fixture
async def ranked() -> list[str]:
    """The CRM catalog's candidates for ``MESSAGE``, best first (bundled model, hybrid)."""
    catalog = crm_catalog()
    async with InMemoryRetriever(BundledE5Embedder()) as retriever:
        await retriever.index(catalog)
        ranking = await retriever.rank(catalog, MESSAGE, k=9)
    candidates = [name for name in ranking.scores if not catalog[name].core]
    return sorted(candidates, key=lambda name: -ranking.scores[name])


async def test_the_in_memory_retriever_binds_a_ranked_tools_companion_within_k(
    ranked: list[str],
) -> None:
    catalog = crm_catalog()
    top, last = ranked[0], ranked[-1]
    companions = Companions.from_turns([[top, last], [top, last]])
    async with (
        InMemoryRetriever(BundledE5Embedder(), k=K) as plain,
        InMemoryRetriever(BundledE5Embedder(), k=K, companions=companions) as together,
    ):
        await plain.index(catalog)
        await together.index(catalog)
        before = await plain.select(catalog, MESSAGE)
        after = await together.select(catalog, MESSAGE)
        found = json.loads(
            await answer_find_tools(
                together, catalog, {"capabilities": ["export the list"]}, bound=[top]
            )
        )
    assert before.mode is after.mode is Mode.NARROWED
    assert last not in before.names
    assert last in after.names
    assert after.companions == {last: top}
    assert len(after.names) == len(before.names) == K + len(catalog.core)
    assert after.names == [name for name in catalog.names if name in after.names]  # catalog order
    assert last not in after.scores or after.scores[last] <= min(before.scores.values())
    assert last in [tool["name"] for tool in found["results"][0]["tools"]]


# -- the whole path: traffic, worker, store, a later selection ----------------------------------


@pytest.fixture
async def indexed(database_url: str) -> AsyncIterator[VectorStore]:
    async with VectorStore.from_url(database_url) as store:
        async with ToolRetrievalClient(store=store, embedder=BundledE5Embedder()) as client:
            await client.index(crm_catalog())
        yield store


async def test_a_reported_turn_teaches_a_later_selection_its_companion(
    indexed: VectorStore,
    redis_url: str,
    worker: Callable[..., Worker],
    ranked: list[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    catalog = crm_catalog()
    embedder = BundledE5Embedder()
    top, last = ranked[0], ranked[-1]
    secret = "Dana's card number is 4111 1111 1111 1111, file it on her contact"
    caplog.set_level(logging.DEBUG)
    settings = Settings(redis_url=redis_url)
    async with ToolRetrievalClient(
        store=indexed, embedder=embedder, settings=settings, k=K, time_budget=BUDGET
    ) as client:
        before = await client.select(catalog, MESSAGE)
        assert before.mode is Mode.NARROWED
        assert last not in before.names
        turn = await client.select(catalog, secret)
        transcript = [
            {"role": "user", "content": secret},
            {"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": top}}]},
            {"role": "tool", "tool_call_id": "1", "content": "ok"},
            {"role": "assistant", "tool_calls": [{"id": "2", "function": {"name": last}}]},
        ]
        assert await client.report_turn(catalog, turn, transcript)
        turn = await client.select(catalog, secret)  # the same pattern again: a pattern now
        assert await client.report_turn(catalog, turn, transcript)
        await client.flush()
    run = worker(ctx={"store": indexed, "embedder": embedder})
    await run.main()
    assert (run.jobs_complete, run.jobs_failed) == (2, 0)

    async with ToolRetrievalClient(
        store=indexed, embedder=embedder, k=K, time_budget=BUDGET
    ) as later:
        after = await later.select(catalog, MESSAGE)
    assert after.mode is Mode.NARROWED
    assert after.companions == {last: top}
    assert len(after.names) == len(before.names)

    # Names and counts only: the message is in no toolret table, nor in the log.
    connection = await asyncpg.connect(_plain(indexed))
    try:
        rows = await connection.fetch("SELECT tool_name, companion FROM toolret_companions")
        assert {name for row in rows for name in row} == {top, last}
        columns = await connection.fetch(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_name LIKE 'toolret%' AND data_type IN ('text', 'json', 'jsonb')"
        )
        for table, column in columns:
            hits = await connection.fetchval(
                f'SELECT count(*) FROM {table} WHERE "{column}"::text LIKE $1', "%4111%"
            )
            assert hits == 0, f"{table}.{column} holds the message"
    finally:
        await connection.close()
    assert "4111" not in caplog.text


async def test_turned_off_nothing_is_counted_and_nothing_is_read(
    indexed: VectorStore, redis_url: str, worker: Callable[..., Worker], ranked: list[str]
) -> None:
    catalog = crm_catalog()
    embedder = BundledE5Embedder()
    top, last = ranked[0], ranked[-1]
    off = Settings(redis_url=redis_url, companions=False)
    async with ToolRetrievalClient(
        store=indexed, embedder=embedder, settings=off, k=K, time_budget=BUDGET
    ) as client:
        turn = await client.select(catalog, MESSAGE)
        assert await client.report_turn(catalog, turn, [top, last], message=MESSAGE)
        assert not client.report_calls([top, last])
        await client.flush()
        run = worker(ctx={"store": indexed, "embedder": embedder})
        await run.main()
        assert run.jobs_failed == 0
        assert not await CompanionStore(indexed).companions(catalog.names)
        for _ in range(2):  # counted elsewhere: not read here
            await CompanionStore(indexed).record([top, last])
        assert last not in (await client.select(catalog, "another " + MESSAGE)).names


async def test_the_gateways_report_of_calls_is_counted(
    indexed: VectorStore, redis_url: str, worker: Callable[..., Worker]
) -> None:
    embedder = BundledE5Embedder()
    async with ToolRetrievalClient(
        store=indexed, embedder=embedder, settings=Settings(redis_url=redis_url)
    ) as client:
        assert client.report_calls(["create_task", "send_email", "create_task"])
        assert client.report_calls(["send_email", "create_task"])
        await client.flush()
    run = worker(ctx={"store": indexed, "embedder": embedder})
    await run.main()
    assert (run.jobs_complete, run.jobs_failed) == (2, 0)
    companions = await CompanionStore(indexed).companions(["create_task", "send_email", "x"])
    assert dict(companions.of["create_task"]) == {
        "send_email": pytest.approx(2 / (2 + PRIOR), abs=1e-4)
    }
    assert await CompanionStore(indexed).forget("send_email") == 2
    assert not await CompanionStore(indexed).companions(["create_task", "send_email"])


# -- never a reason to fail --------------------------------------------------------------------


async def test_a_database_without_the_table_still_narrows(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A database one migration behind (no ``toolret_companions``): selections narrow on the
    ranking alone, and the missing table is logged once."""
    caplog.set_level(logging.INFO, logger="toolret")
    catalog = crm_catalog()
    await asyncio.to_thread(downgrade_database, database_url, "0006")
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=K, time_budget=BUDGET
    ) as client:
        await client.index(catalog)
        first = await client.select(catalog, MESSAGE)
        second = await client.select(catalog, "and another contact for Omar")
    assert first.mode is second.mode is Mode.NARROWED
    assert first.reason is None
    assert first.companions == {}
    lines = [r for r in caplog.records if "ranking without tools used together" in r.getMessage()]
    assert [r.levelno for r in lines] == [logging.INFO]
    assert "toolret db upgrade" in lines[0].getMessage()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_stuck_read_of_the_counts_does_not_hold_the_selection(
    indexed: VectorStore, ranked: list[str]
) -> None:
    """Another session locks the table: the selection waits at most a quarter of its budget
    for the counts, then narrows on the ranking alone, within the budget."""
    catalog = crm_catalog()
    for _ in range(2):
        await CompanionStore(indexed).record([ranked[0], ranked[-1]])
    locker = await asyncpg.connect(_plain(indexed))
    try:
        await locker.execute("BEGIN; LOCK TABLE toolret_companions IN ACCESS EXCLUSIVE MODE")
        async with ToolRetrievalClient(
            store=indexed, embedder=BundledE5Embedder(), k=K, time_budget=4.0
        ) as client:
            await client.select(catalog, "warm the model up")
            selection = await client.select(catalog, MESSAGE)
    finally:
        await locker.close()
    assert selection.mode is Mode.NARROWED
    assert selection.companions == {}
    assert selection.elapsed_ms < 4000


async def test_a_failed_read_gives_none_logged_once_and_is_tried_again_later(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="toolret.selection")
    catalog = crm_catalog()
    now = [0.0]
    outcomes: list[Companions | Exception] = [OSError("down"), OSError("down")]
    outcomes.append(Companions.from_turns(2 * [["create_task", "send_email"]]))

    async def read(_: object) -> Companions:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    cache = CompanionCache(read, wait=5.0, clock=lambda: now[0])
    assert not await cache.get(catalog)
    assert not await cache.get(catalog)  # within RETRY_SECONDS: not read again
    now[0] += RETRY_SECONDS
    assert not await cache.get(catalog)
    now[0] += RETRY_SECONDS
    assert await cache.get(catalog)
    assert outcomes == []
    assert caplog.text.count("ranking without tools used together") == 1
    assert "tools used together are read again" in caplog.text


async def test_companions_at_hand_are_what_a_read_would_return_until_they_expire() -> None:
    """``fresh`` (what a selection uses without spawning a read) answers exactly when ``get``
    would answer without reading, with what it would return."""
    catalog = crm_catalog()
    now = [0.0]
    counts = Companions.from_turns(2 * [["create_task", "send_email"]])
    reads: list[object] = []

    async def read(_: object) -> Companions:
        reads.append(_)
        return counts

    cache = CompanionCache(read, wait=5.0, refresh=60.0, clock=lambda: now[0])
    assert cache.fresh(catalog) is None  # never read
    assert await cache.get(catalog) is counts
    assert cache.fresh(catalog) is counts
    now[0] += 59.0
    assert cache.fresh(catalog) is counts
    assert len(reads) == 1
    now[0] += 1.0
    assert cache.fresh(catalog) is None  # expired: the next get reads again
    assert await cache.get(catalog) is counts
    assert len(reads) == 2


def _plain(store: VectorStore) -> str:
    return store.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


async def test_the_client_and_the_in_memory_retriever_bind_the_same_companions(
    indexed: VectorStore, ranked: list[str]
) -> None:
    """The same counts, read from the store by the client and given to the in-memory retriever,
    give the same selections and the same find_tools answers."""
    catalog = crm_catalog()
    turns = [[ranked[0], ranked[-1]], [ranked[1], ranked[-2]], [ranked[0], ranked[-1]]]
    for turn in [*turns, [ranked[1], ranked[-2]]]:
        await CompanionStore(indexed).record(turn)
    counts = await CompanionStore(indexed).companions(catalog.names)
    expected = Companions.from_turns([*turns, [ranked[1], ranked[-2]]])
    assert {tool: [name for name, _ in listed] for tool, listed in counts.of.items()} == {
        tool: [name for name, _ in listed] for tool, listed in expected.of.items()
    }
    messages = [MESSAGE, "file a note on the Acme deal", "export every contact to a file"]
    async with (
        ToolRetrievalClient(
            store=indexed, embedder=BundledE5Embedder(), k=K, time_budget=BUDGET
        ) as client,
        InMemoryRetriever(BundledE5Embedder(), k=K, companions=counts) as memory,
    ):
        await memory.index(catalog)
        bound_together = 0
        for message in messages:
            through_store = await client.select(catalog, message)
            in_memory = await memory.select(catalog, message)
            assert through_store.names == in_memory.names
            assert through_store.companions == in_memory.companions
            bound_together += len(in_memory.companions)
        assert bound_together
        asked = {"capabilities": ["export the list", "write a note"]}
        found = [
            json.loads(await answer_find_tools(finder, catalog, asked, bound=[ranked[0]]))
            for finder in (client, memory)
        ]
    assert found[0] == found[1]
