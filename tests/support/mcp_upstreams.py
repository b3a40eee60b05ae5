"""Two real MCP servers (the SDK's ``MCPServer``) for the gateway to stand in front of.

- ``alpha``, a calendar, served in the test's process over streamable HTTP. Its tool list can
  change while it runs (``add_reschedule``), which it announces on the subscription bus it was
  built with.
- ``beta``, a mailbox, run as its own process over stdio (``python -m tests.support.mcp_upstreams
  beta``), so a test can kill or stop it: it writes its process id to ``$PIDFILE`` before
  serving; with ``$PORT`` it serves streamable HTTP on that port instead. ``alpha`` runs the
  same way, for a test that needs it as a process.
- ``noisy``, a disk monitor whose tool logs an error (``notifications/message``), run the same
  way.
- ``patient``, whose ``wait`` answers after the seconds it is given (reporting progress as it
  starts, so a test knows the call is pending), and whose ``peek`` has a thin description.
- ``gated``, a low-level server with one thin tool whose first ``tools/list`` waits until the
  file ``$GATE`` exists: a server that lists when the test says so.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp import types
from mcp.server import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged
from pydantic import Field

__all__ = [
    "add_reschedule",
    "alpha_server",
    "beta_server",
    "gated_server",
    "noisy_server",
    "patient_server",
]

Text = Annotated[str, Field(description="Free text")]


def alpha_server(bus: InMemorySubscriptionBus) -> MCPServer:
    """The calendar: three tools, one more after ``add_reschedule``."""
    server = MCPServer("alpha", subscriptions=bus, log_level="WARNING")

    @server.tool(description="List the events in the user's calendar between two dates.")
    def list_events(start: Text, end: Text) -> str:
        return f"no events between {start} and {end}"

    @server.tool(description="Create a calendar event with a title, a start time and guests.")
    def create_event(title: Text, start: Text, guests: list[str] | None = None) -> str:
        return f"created {title} at {start}"

    @server.tool(description="Cancel a calendar event and tell its guests that it is off.")
    def cancel_event(event_id: Text) -> str:
        return f"cancelled {event_id}"

    return server


async def add_reschedule(server: MCPServer, bus: InMemorySubscriptionBus) -> None:
    """Add a tool to the calendar and announce the change to its listeners."""

    def reschedule_event(event_id: Text, new_start: Text) -> str:
        return f"moved {event_id} to {new_start}"

    server.add_tool(
        reschedule_event,
        description="Move an existing calendar event to another day or time; guests are told.",
    )
    await bus.publish(ToolsListChanged())


def beta_server() -> MCPServer:
    """The mailbox: two tools."""
    server = MCPServer("beta", log_level="WARNING")

    @server.tool(description="Send an email message to one or more recipients with a subject.")
    def send_email(to: list[str], subject: Text, body: Text) -> str:
        return f"sent {subject!r} to {', '.join(to)}"

    @server.tool(description="Search the mailbox for messages matching words, a sender or dates.")
    def search_mail(query: Text) -> str:
        return f"no mail matches {query}"

    return server


def noisy_server() -> MCPServer:
    """The disk monitor: one tool, which logs an error as it answers."""
    server = MCPServer("noisy", log_level="WARNING")

    @server.tool(description="Check how full the disks are and warn about any that is nearly full.")
    async def check_disks(ctx: Context) -> str:
        await ctx.error("the disk /srv is 97% full")
        return "one disk is nearly full"

    return server


def patient_server() -> MCPServer:
    """A server whose call stays pending as long as a test wants."""
    server = MCPServer("patient", log_level="WARNING")

    @server.tool(description="Wait the given number of seconds, then answer that it waited.")
    async def wait(seconds: float, ctx: Context) -> str:
        await ctx.report_progress(0, seconds, "started")
        await anyio.sleep(seconds)  # the tool's own work: taking its time
        return f"waited {seconds:g} s"

    @server.tool(description="Peek.")
    def peek() -> str:
        return "nothing"

    return server


def gated_server() -> Server[Any]:
    """One thin tool, listed once the file ``$GATE`` exists."""
    gate = Path(os.environ["GATE"])

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        while not await anyio.Path(gate).exists():  # noqa: ASYNC110 - another process's file
            await anyio.sleep(0.05)  # polling a file the test creates
        tool = types.Tool(name="poke", description="Poke.", input_schema={"type": "object"})
        return types.ListToolsResult(tools=[tool])

    return Server("gated", on_list_tools=list_tools)


SERVERS: dict[str, Callable[[], Any]] = {
    "alpha": lambda: alpha_server(InMemorySubscriptionBus()),
    "beta": beta_server,
    "noisy": noisy_server,
    "patient": patient_server,
    "gated": gated_server,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in SERVERS:
        raise SystemExit(f"usage: python -m tests.support.mcp_upstreams {'|'.join(SERVERS)}")
    if os.environ.get("PIDFILE"):
        with open(os.environ["PIDFILE"], "w", encoding="utf-8") as file:
            file.write(str(os.getpid()))
    chosen = SERVERS[sys.argv[1]]()
    if isinstance(chosen, Server):
        from mcp.server.stdio import stdio_server

        async def serve_stdio(server: Server[Any]) -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(serve_stdio, chosen)
    elif os.environ.get("PORT"):
        chosen.run("streamable-http", port=int(os.environ["PORT"]))
    else:
        chosen.run("stdio")
