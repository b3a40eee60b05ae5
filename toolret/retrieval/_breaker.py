"""Circuit breakers: a dependency known to be down is not waited on again.

One ``Breaker`` per dependency — an embedding model (by ``model_id``), a database (by URL) —
per event loop (a process runs one), shared by every retriever, selection and find_tools in it.
The pattern is resilience4j's and Envoy's: named states, one place that changes them
(``Breaker._change``), one probe at a time, every change counted and logged once.

    closed ──a call fails, or a budget runs out waiting on it──▶ open
    open ──a caller asks, a probe is due──▶ half_open (one probe in the background)
    half_open ──the probe answers──▶ closed;  ──it fails──▶ open (the backoff doubles)

Callers ask one question, ``allow`` (may I try?), through ``waiting_on`` around each call to the
dependency: while it is open the call fails at once (``EmbedderDown``: ``embedder_unavailable``;
``StoreDown``: ``store_error``), so a turn pays the budget at most once. The caller's request is
never the probe: the probe runs beside it, and the first success closes the breaker, with no
restart. A budget that runs out (``within_budget``, the request path's one timeout) counts
against each dependency still being waited on when it did.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from enum import StrEnum
from typing import Literal, TypeVar

from opentelemetry import metrics

from toolret.errors import (
    EmbedderError,
    EmbedderUnavailableError,
    StoreUnavailableError,
    ToolretError,
)
from toolret.indexing._backoff import Backoff

__all__ = [
    "PROBE_BACKOFF",
    "PROBE_TIMEOUT",
    "Breaker",
    "Dependency",
    "EmbedderDown",
    "State",
    "StoreDown",
    "breaker_for",
    "waiting_on",
    "within_budget",
]

log = logging.getLogger("toolret.selection")

Dependency = Literal["embedder", "store"]
Probe = Callable[[], Awaitable[object]]
T = TypeVar("T")

PROBE_BACKOFF = (0.5, 4.0)
"""Seconds between probes of a dependency found down, doubling from the first figure up to the
second (the first probe goes at once): a probe is one query embedding or ``SELECT 1``, and a
dependency back is narrowing again within seconds."""
PROBE_TIMEOUT = 10.0
"""Seconds a probe may take: longer than any budget, so a slow dependency that does answer
closes the breaker, and bounded, so a hung one does not hold the probe forever."""
_KEY = "probe"


class State(StrEnum):
    """A breaker's state."""

    CLOSED = "closed"
    """Calls go through."""
    OPEN = "open"
    """Calls fail at once; a probe is due after a backoff."""
    HALF_OPEN = "half_open"
    """One probe is in flight; calls still fail at once."""


class EmbedderDown(EmbedderUnavailableError):
    """The embedder's breaker is open: not called (``embedder_unavailable``)."""


class StoreDown(StoreUnavailableError):
    """The database's breaker is open: not called (``store_error``)."""


_meter = metrics.get_meter("toolret")
_changes = _meter.create_counter(
    "toolret.breaker.changes",
    unit="{change}",
    description="Changes of state of a dependency's breaker (embedder, store), by new state",
)
_open = _meter.create_up_down_counter(
    "toolret.breaker.open",
    unit="{breaker}",
    description="Breakers not closed (open or probing), by dependency",
)
_refused = _meter.create_counter(
    "toolret.breaker.refused",
    unit="{call}",
    description="Calls refused at once because their dependency is known to be down",
)


class Breaker:
    """The breaker of one dependency (``dependency``: ``embedder`` or ``store``; ``name``: the
    model id or the database). ``backoff`` spaces the probes (``PROBE_BACKOFF`` by default).
    Used by one event loop."""

    def __init__(
        self,
        dependency: Dependency,
        name: str,
        *,
        backoff: Backoff | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.dependency = dependency
        self.name = name
        self.state = State.CLOSED
        self.error: BaseException | None = None
        """The failure that opened the breaker (None while closed)."""
        self._clock = clock
        self._backoff = backoff or Backoff(*PROBE_BACKOFF, clock=clock)
        self._opened = clock()
        self._probe: asyncio.Task[None] | None = None
        self._closed = asyncio.Event()
        self._closed.set()

    def allow(self, probe: Probe) -> bool:
        """May I try? Yes while closed. Otherwise no; and when a probe is due and none is in
        flight, ``probe()`` starts in the background."""
        if self.state is State.CLOSED:
            return True
        if not self._probing() and self._backoff.due(_KEY):
            self.watch(probe())
        _refused.add(1, {"toolret.dependency": self.dependency})
        return False

    def failed(self, error: BaseException) -> None:
        """A call to the dependency failed, or a budget ran out waiting on it: open."""
        if self.state is State.CLOSED:
            self._backoff.reset(_KEY)  # the next caller starts the first probe
            self._change(State.OPEN, error)

    def watch(
        self, attempt: Awaitable[object], *, timeout: float | None = PROBE_TIMEOUT
    ) -> asyncio.Task[None]:
        """Run ``attempt`` (a probe, or a warm-up) in the background, within ``timeout``
        seconds: its success closes the breaker, its failure opens it. While it runs no other
        probe starts; an open breaker is half-open meanwhile."""
        task = asyncio.ensure_future(self._attempt(attempt, timeout))
        if not self._probing():
            self._probe = task
            if self.state is State.OPEN:
                self._change(State.HALF_OPEN, self.error)
        return task

    async def wait_closed(self) -> None:
        """Return once the breaker is closed (at once if it is)."""
        await self._closed.wait()

    def refusal(self) -> ToolretError:
        """The error a call refused by this breaker raises, naming the dependency and why."""
        down = f"down for {self._clock() - self._opened:.1f} s ({_describe(self.error)})"
        if self.dependency == "embedder":
            return EmbedderDown(
                f"the embedder {self.name} is {down}; probing it in the background",
                model_id=self.name,
            )
        return StoreDown(f"the database {self.name} is {down}; probing it in the background")

    async def _attempt(self, attempt: Awaitable[object], seconds: float | None) -> None:
        try:
            async with asyncio.timeout(seconds):
                await attempt
        except asyncio.CancelledError:
            if self._forget_probe() and self.state is State.HALF_OPEN:
                self._change(State.OPEN, self.error)  # the next caller starts another
            raise
        except Exception as error:
            if self._forget_probe() and self.state is State.HALF_OPEN:
                self._change(State.OPEN, error)
            else:
                self.failed(error)
        else:
            self._forget_probe()
            if self.state is not State.CLOSED:
                self._backoff.reset(_KEY)
                self._change(State.CLOSED, None)

    def _forget_probe(self) -> bool:
        """Whether the attempt ending now was the probe (then none is in flight any more)."""
        if self._probe is not asyncio.current_task():
            return False
        self._probe = None
        return True

    def _probing(self) -> bool:
        probe = self._probe
        if probe is None:
            return False
        if probe.done() or probe.get_loop().is_closed():
            self._probe = None
            return False
        return True

    def _change(self, state: State, error: BaseException | None) -> None:
        """The one place a breaker's state changes: counted, and logged once."""
        previous, now = self.state, self._clock()
        self.state, self.error = state, error
        if state is State.CLOSED:
            self._closed.set()
        else:
            self._closed.clear()
        attributes = {"toolret.dependency": self.dependency, "toolret.state": state.value}
        _changes.add(1, attributes)
        if previous is State.CLOSED:
            self._opened = now
            _open.add(1, {"toolret.dependency": self.dependency})
        elif state is State.CLOSED:
            _open.add(-1, {"toolret.dependency": self.dependency})
        what = f"the {'embedder' if self.dependency == 'embedder' else 'database'} {self.name}"
        if state is State.OPEN and previous is State.CLOSED:
            reason = "embedder_unavailable" if self.dependency == "embedder" else "store_error"
            log.warning(
                "toolret: %s is down (%s); selections and find_tools fall open at once (%s) "
                "while it is probed in the background",
                what,
                _describe(error),
                reason,
            )
        elif state is State.CLOSED:
            log.info("toolret: %s answers again, after %.1f s down", what, now - self._opened)
        else:
            log.debug("toolret: %s %s (%s)", what, state.value, _describe(error))

    def __repr__(self) -> str:
        return f"<Breaker {self.dependency} {self.name} {self.state.value}>"


def _describe(error: BaseException | None) -> str:
    if error is None:
        return "no error"
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


_BREAKERS: dict[asyncio.AbstractEventLoop, dict[tuple[str, str], Breaker]] = {}


def breaker_for(dependency: Dependency, name: str) -> Breaker:
    """The running event loop's breaker of a dependency, created closed on first use."""
    loop = asyncio.get_running_loop()
    breakers = _BREAKERS.get(loop)
    if breakers is None:
        for closed in [other for other in _BREAKERS if other.is_closed()]:
            del _BREAKERS[closed]
        breakers = _BREAKERS[loop] = {}
    breaker = breakers.get((dependency, name))
    if breaker is None:
        breaker = breakers[(dependency, name)] = Breaker(dependency, name)
    return breaker


_waited: ContextVar[list[Breaker] | None] = ContextVar("toolret_waited_on", default=None)


def _counts(breaker: Breaker, error: BaseException) -> bool:
    """Whether ``error`` says the dependency is down, rather than that one request failed: any
    embedder failure; the database unreachable (a statement timeout, a taken pool or a catalog
    not indexed are not)."""
    if breaker.dependency == "embedder":
        return isinstance(error, (EmbedderError, TimeoutError))
    return isinstance(error, StoreUnavailableError)


@contextmanager
def waiting_on(breaker: Breaker, probe: Probe) -> Iterator[None]:
    """Around one call to a dependency: raises ``breaker.refusal()`` at once while it is known
    down; reports a failure that says it is down; and marks it waited on, so that a budget
    running out meanwhile (``within_budget``) counts against it."""
    if not breaker.allow(probe):
        raise breaker.refusal()
    waited = _waited.get()
    if waited is not None:
        waited.append(breaker)
    try:
        yield
    except Exception as error:
        if _counts(breaker, error):
            breaker.failed(error)
        if waited is not None:
            waited.remove(breaker)
        raise
    else:
        if waited is not None:
            waited.remove(breaker)


async def within_budget(call: Callable[[], Awaitable[T]], budget: float) -> T:
    """``await call()`` within ``budget`` seconds; when they run out (``TimeoutError``), each
    dependency it was still waiting on (``waiting_on``) is counted as failed."""
    waited: list[Breaker] = []
    token = _waited.set(waited)
    scope = asyncio.timeout(budget)
    try:
        async with scope:
            return await call()
    except TimeoutError as error:
        late = list(dict.fromkeys(waited))
        if not late or not scope.expired():  # a timeout of its own (a statement's): not ours
            raise
        names = " and ".join(f"the {b.dependency} {b.name}" for b in late)
        timeout = TimeoutError(f"no answer from {names} within the {budget:g} s budget")
        for breaker in late:
            breaker.failed(timeout)
        raise timeout from error
    finally:
        _waited.reset(token)
