"""An upstream's health: a ping on an interval, and requests that end when the connection does.

A server can stop answering without its connection ending: a process stopped (``SIGSTOP``),
stuck, or swapped out keeps its pipes and sockets open, so nothing the transport sees tells
the gateway. ``ping_until_silent`` pings the server every ``HEALTH[0]`` seconds (``ping``, or
``server/discover`` on the 2026 protocol, which has no ping); a ping with no
answer within ``HEALTH[1]`` seconds reports the server silent, and the upstream marks it down
and ends the connection. ``unless_ended`` runs one request (a tool call, a resource read, a
prompt) until it is answered or the connection ends, whichever comes first, so a call waiting on
a frozen server is answered with an error once the ping catches it, not when the server wakes.
Together: a frozen server is marked unavailable, and every call to it answered, within
``HEALTH[0] + HEALTH[1]`` seconds (15 s; docs/gateway.md, "Ready on first use"; measured in
docs/decisions.md, "The gateway's ping").
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import mcp

__all__ = ["HEALTH", "ConnectionEnded", "ping_until_silent", "unless_ended"]

HEALTH = (10.0, 5.0)
"""Seconds between pings of a connected server, and how long it has to answer one."""

_T = TypeVar("_T")


class ConnectionEnded(Exception):
    """The connection a request was waiting on ended before the answer; ``str()`` says why."""


async def ping_until_silent(
    client: mcp.Client, health: tuple[float, float], silent: Callable[[str], Awaitable[None]]
) -> None:
    """Ping through ``client`` every ``health[0]`` seconds until one ping goes unanswered for
    ``health[1]`` seconds; then await ``silent(why)`` and return. An error answer is an answer;
    a connection that fails is left to the transport to report."""
    from mcp.shared.exceptions import MCPError
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    version = client.protocol_version
    modern = version in MODERN_PROTOCOL_VERSIONS  # ping left the protocol in 2026: discover
    every, within = health
    while True:
        await asyncio.sleep(every)  # the interval between pings, not a synchronisation
        try:
            async with asyncio.timeout(within):
                if modern:
                    await client.session.send_discover(version)
                else:
                    await client.session.send_ping()
        except TimeoutError:
            await silent(f"no answer to a ping within {within:g} s: the server is frozen or stuck")
            return
        except MCPError:
            continue
        except Exception:  # the connection failed: its end is noticed where it ends
            return


async def unless_ended(
    request: Awaitable[_T], ended: asyncio.Future[str] | None, pending: set[asyncio.Task[_T]]
) -> _T:
    """``request``'s answer, or ``ConnectionEnded`` saying why as soon as ``ended`` resolves
    first. The request is then cancelled and kept in ``pending`` until it has unwound (its
    cancellation may wait on the server that stopped answering); cancelling the caller cancels
    it too, which cancels the call on the server."""
    task = asyncio.ensure_future(request)
    if ended is None:
        return await task
    waits: set[asyncio.Future[Any]] = {task, ended}
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        _abandon(task, pending)
        raise
    if task.done():
        return task.result()
    _abandon(task, pending)
    raise ConnectionEnded(ended.result())


def _abandon(task: asyncio.Task[_T], pending: set[asyncio.Task[_T]]) -> None:
    task.cancel()
    pending.add(task)
    task.add_done_callback(pending.discard)
