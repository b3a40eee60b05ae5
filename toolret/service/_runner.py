"""Running the service under uvicorn: where it may listen, what it says at start, how it stops.

Without tokens nothing is authenticated, so the service listens on a loopback address only and
says so; a non-loopback address without tokens is refused. uvicorn handles SIGTERM and SIGINT:
it stops accepting, lets in-flight requests finish, then the lifespan flushes queued feedback
and reindex requests (``toolret.service._app``) before the process exits.
"""

from __future__ import annotations

import ipaddress
import logging
import signal
import sys
from types import FrameType

from toolret._extras import require
from toolret.errors import ConfigurationError
from toolret.service._auth import TokenTable
from toolret.service._settings import ServiceSettings

__all__ = ["check_address", "exit_cleanly", "is_loopback", "run", "startup_notice"]

log = logging.getLogger("toolret.serve")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (``127.0.0.0/8``, ``::1``) or ``localhost``."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_address(settings: ServiceSettings) -> None:
    """Refuse a non-loopback address when no token is configured."""
    if not settings.tokens and not is_loopback(settings.host):
        raise ConfigurationError(
            f"no tokens are configured (TOOLRET_SERVE_TOKENS), so toolret serve listens on a "
            f"loopback address only, not {settings.host}: configure tokens to listen there"
        )


def startup_notice(settings: ServiceSettings) -> str:
    """The line printed at start: where it listens, and who may call it."""
    where = f"http://{settings.host}:{settings.port}"
    if not settings.tokens:
        return (
            f"toolret serve on {where}: no tokens configured (TOOLRET_SERVE_TOKENS), so it "
            "listens on localhost only and any local caller may use every catalog"
        )
    count = len(TokenTable(settings.tokens))
    return f"toolret serve on {where}: {count} token{'s' if count != 1 else ''} configured"


def run(settings: ServiceSettings, *, database_url: str | None = None) -> None:
    """Serve until SIGTERM or SIGINT (blocking)."""
    require("serve", "uvicorn", "starlette", purpose="toolret serve")
    import uvicorn

    from toolret.service._app import create_app
    from toolret.service._metrics import install_prometheus

    check_address(settings)
    app = create_app(settings, database_url=database_url, metrics=install_prometheus())
    # uvicorn drains on SIGTERM, runs the lifespan's shutdown, then raises the signal again
    # for the handler it found: make that handler a clean exit (status 0).
    signal.signal(signal.SIGTERM, exit_cleanly)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=int(settings.drain_seconds) or None,
    )


def exit_cleanly(signum: int, frame: FrameType | None) -> None:
    """A SIGTERM handler for after uvicorn's graceful stop: exit with status 0."""
    sys.exit(0)
