"""An upstream's child process over stdio, reporting how it ended.

The SDK's ``stdio_client`` keeps the process to itself, so a server that exits (at once, on a
bad argument, or later) was reported as a bare "Connection closed". ``child_process`` is the same
transport (newline-delimited JSON-RPC on stdin and stdout, the process in a session of its own,
stopped as the MCP lifecycle says: stdin closed, then the process group terminated) that also
keeps the process: when its output ends, ``ended`` says ``its process exited with status 3``
(or ``killed by SIGKILL``) and quotes the last lines it wrote to stderr (``(its last stderr
lines: …)``), which only the gateway's log and token holders see. Its stderr still
reaches the gateway's own, line by line as it comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys
from collections import deque
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from toolret.gateway._noticing import end

if TYPE_CHECKING:
    from anyio.abc import Process
    from mcp import StdioServerParameters
    from mcp.client._transport import TransportStreams

__all__ = ["child_process"]

TAIL_LINES = 3
"""How many of its last stderr lines a process that exited is reported with."""
STOP_SECONDS = 2.0
"""How long a process has to exit after its stdin closes, and again after SIGTERM."""


@contextlib.asynccontextmanager
async def child_process(
    params: StdioServerParameters, ended: asyncio.Future[str]
) -> AsyncIterator[TransportStreams]:
    """Start the server ``params`` names; its message streams while it runs. When its output
    ends, ``ended`` is resolved with how the process ended and its last stderr lines."""
    import anyio
    import mcp_types
    from anyio.streams.text import TextReceiveStream
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage

    process = await anyio.open_process(
        [params.command, *params.args],
        env=get_default_environment() | (params.env or {}),
        cwd=params.cwd,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_stdout() -> None:
        assert process.stdout is not None
        async with to_session:
            buffer = ""
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for chunk in TextReceiveStream(process.stdout, errors="replace"):
                    *lines, buffer = (buffer + chunk).split("\n")
                    for line in filter(str.strip, lines):
                        try:
                            message = mcp_types.jsonrpc_message_adapter.validate_json(line)
                        except ValueError as error:
                            await to_session.send(error)
                        else:
                            await to_session.send(SessionMessage(message))
            end(ended, await _how_it_ended(process, tail))

    async def read_stderr() -> None:
        assert process.stderr is not None
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async for chunk in TextReceiveStream(process.stderr, errors="replace"):
                sys.stderr.write(chunk)
                sys.stderr.flush()
                tail.extend(line for line in chunk.splitlines() if line.strip())

    async def write_stdin() -> None:
        assert process.stdin is not None
        async with from_session:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for message in from_session:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(f"{text}\n".encode())

    async with anyio.create_task_group() as group:
        group.start_soon(read_stdout)
        group.start_soon(read_stderr)
        group.start_soon(write_stdin)
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process)
                for stream in (from_server, to_server):
                    await stream.aclose()
            group.cancel_scope.cancel()


async def _how_it_ended(process: Process, tail: deque[str]) -> str:
    """How the process ended (waiting a little for its status), with its last stderr lines."""
    code = await _exit_code(process, STOP_SECONDS)
    if code is None:
        how = "its output ended (its process exited)"
    elif code < 0:
        how = f"its process exited (killed by {_signal_name(-code)})"
    else:
        how = f"its process exited with status {code}"
    await asyncio.sleep(0)  # let the stderr reader take what the process wrote last
    if not tail:
        return how
    said = " | ".join(line.strip()[:200] for line in tail)
    return f"{how} (its last stderr lines: {said})"


async def _exit_code(process: Process, within: float) -> int | None:
    """The process's exit code once it has exited, or None after ``within`` seconds. (Its
    wait also waits for its pipes to close, which a child it left running may hold: bounded.)"""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            await process.wait()
    return process.returncode


async def _stop(process: Process) -> None:
    """Close its stdin and give it ``STOP_SECONDS`` to exit; then terminate its group."""
    from mcp.os.posix.utilities import terminate_posix_process_tree

    if process.stdin is not None:
        with contextlib.suppress(Exception):
            await process.stdin.aclose()
    if await _exit_code(process, STOP_SECONDS) is None:
        await terminate_posix_process_tree(process, STOP_SECONDS)
        await _exit_code(process, STOP_SECONDS)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            with contextlib.suppress(Exception):
                await pipe.aclose()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
