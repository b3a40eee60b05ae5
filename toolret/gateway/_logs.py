"""Upstream servers' log messages (``notifications/message``) on the gateway's own log.

Each message is one line on the ``toolret.gateway.upstream`` logger, at the Python level of
its MCP level (``notice`` is ``INFO``; ``critical``, ``alert`` and ``emergency`` are
``CRITICAL``), naming its server: ``toolret gateway: fs [error] (its logger): the text``.
``toolret gateway`` logs to stderr at ``WARNING``, so warnings and errors show by default.
They are not forwarded to the gateway's clients: the gateway holds one connection to each
server for all of them, so a message belongs to no one client. A server of the 2026 protocol
sends messages only for requests that ask for them; the gateway asks for ``OPT_IN`` and up.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from mcp import types
    from mcp.client.session import LoggingFnT

__all__ = ["OPT_IN", "log_to_stderr"]

OPT_IN: Final = "info"
"""The least MCP level asked of a server of the 2026 protocol (its ``logLevel`` opt-in)."""
LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}

log = logging.getLogger("toolret.gateway.upstream")


def log_to_stderr(server: str) -> LoggingFnT:
    """A logging callback for ``server``'s connection: each message on the gateway's log."""

    async def logged(params: types.LoggingMessageNotificationParams) -> None:
        data = params.data
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        origin = f" ({params.logger})" if params.logger else ""
        level = LEVELS.get(params.level, logging.WARNING)
        log.log(level, "toolret gateway: %s [%s]%s: %s", server, params.level, origin, text)

    return logged
