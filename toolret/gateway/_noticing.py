"""How the gateway notices that an upstream's connection ended, when it ends.

The end of a stdio server's output (its process exited), and a refused or broken HTTP
connection on any request the SDK's client makes (calls, listings, the stream a server of the
older protocol pushes notifications on), resolve the connection's ``ended`` future with why;
``until_ended`` then ends whatever was waiting on the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    import httpx2
    from mcp.client._transport import Transport, TransportStreams

__all__ = ["Ended", "Watched", "describe", "end", "noticing_transport", "until_ended"]


async def until_ended(watch: Awaitable[None], ended: asyncio.Future[str]) -> None:
    """Run ``watch`` until it raises or the connection's transport ends, which raises
    ``Ended`` saying how it ended."""
    task = asyncio.ensure_future(watch)
    waits: set[asyncio.Future[Any]] = {task, ended}
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.done() and not task.cancelled():
        task.result()  # its failure, if it failed
    raise Ended(ended.result() if ended.done() else "the connection ended")


class Ended(ConnectionError):
    """The connection ended; ``str()`` says how, in words a reader of ``/readyz`` follows."""


class Watched:
    """A client transport whose read side resolves ``ended`` when the server's stream ends
    (EOF on stdio: the process exited), so the loss is noticed at once."""

    def __init__(self, inner: Transport, ended: asyncio.Future[str]) -> None:
        self._inner = inner
        self._ended = ended

    async def __aenter__(self) -> TransportStreams:
        read, write = await self._inner.__aenter__()
        return _EndNoticing(read, self._ended), write

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        return await self._inner.__aexit__(*exc_info)


class _EndNoticing:
    """A read stream that resolves ``ended`` when it ends."""

    def __init__(self, inner: Any, ended: asyncio.Future[str]) -> None:
        self._inner = inner
        self._ended = ended

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        import anyio

        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            end(self._ended, "the server's output ended (its process exited)")
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


def noticing_transport(ended: asyncio.Future[str], url: str | None) -> httpx2.AsyncBaseTransport:
    """An HTTP transport that resolves ``ended`` when a request cannot connect to the server
    (a server gone, seen on the next call, listing or reconnect of its notification stream), and
    when a response it is reading breaks off (a server killed while it streams: a pending
    call's answer, the 2026 protocol's change stream)."""
    import httpx2

    class Breaking(httpx2.AsyncByteStream):
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        async def __aiter__(self) -> AsyncIterator[bytes]:
            try:
                async for chunk in self.inner:
                    yield chunk
            except (httpx2.ReadError, httpx2.RemoteProtocolError):
                end(ended, f"the connection to {url} was lost")
                raise

        async def aclose(self) -> None:
            await self.inner.aclose()

    class Noticing(httpx2.AsyncHTTPTransport):
        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            try:
                response = await super().handle_async_request(request)
            except httpx2.ConnectError as error:
                end(ended, describe(error, url))
                raise
            response.stream = Breaking(response.stream)
            return response

    return Noticing()


def end(ended: asyncio.Future[str], why: str) -> None:
    if not ended.done():
        ended.set_result(why)


def describe(error: BaseException, url: str | None = None) -> str:
    """A (possibly grouped) failure of the connection to ``url`` (None: a process) in plain
    words: ``cannot connect to URL (…)``, ``the connection to URL was lost``; else its
    innermost message."""
    import httpx2
    from mcp.client.subscriptions import SubscriptionLost

    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip()
    if isinstance(error, Ended):
        return text
    if url is not None and isinstance(error, httpx2.ConnectError):
        return f"cannot connect to {url} ({text or type(error).__name__})"
    if url is not None and isinstance(error, SubscriptionLost | httpx2.TransportError):
        return f"the connection to {url} was lost"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
