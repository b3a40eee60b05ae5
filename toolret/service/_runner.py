"""Running the service under uvicorn: where it may listen, what it says at start, how it stops.

Without tokens nothing is authenticated, so the service listens on a loopback address only and
says so; a non-loopback address without tokens is refused. The socket is bound before anything
is said or started, so a port in use is one line (``ConfigurationError``), not a notice followed
by a server's traceback. toolret's loggers write to stderr at ``TOOLRET_SERVE_LOG_LEVEL`` (info
by default: an outage, and the return to narrowing after it), unless the application configured
logging itself; other libraries' only from warning up. uvicorn handles SIGTERM and SIGINT:
it stops accepting, lets in-flight requests finish, then the lifespan flushes queued feedback
and reindex requests (``toolret.service._app``) before the process exits.
"""

from __future__ import annotations

import errno
import ipaddress
import logging
import signal
import socket
import sys
from types import FrameType

from toolret._extras import require
from toolret.errors import ConfigurationError
from toolret.service._auth import TokenTable
from toolret.service._settings import ServiceSettings

__all__ = [
    "bind",
    "check_address",
    "configure_logging",
    "exit_cleanly",
    "is_loopback",
    "run",
    "startup_notice",
]

BACKLOG = 2048
"""Connections the kernel queues before the server accepts them (uvicorn's default)."""

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


def bind(settings: ServiceSettings) -> socket.socket:
    """The listening socket at the settings' address; ``ConfigurationError`` in one line when
    the port is in use or the address cannot be had."""
    host = settings.host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, settings.port))
        sock.listen(BACKLOG)
    except OSError as error:
        sock.close()
        where = f"{settings.host}:{settings.port}"
        if error.errno == errno.EADDRINUSE:
            raise ConfigurationError(
                f"port {settings.port} is already in use on {settings.host}: stop what listens "
                "there, or give another port (--port, TOOLRET_SERVE_PORT)"
            ) from error
        raise ConfigurationError(f"cannot listen on {where}: {error.strerror or error}") from error
    sock.set_inheritable(True)
    return sock


def configure_logging(level: str, form: str = "%(levelname)s %(name)s: %(message)s") -> None:
    """toolret's log lines on stderr at ``level``, each as ``form`` says, unless the
    application has configured logging (a handler on the root or the ``toolret`` logger)."""
    ours = logging.getLogger("toolret")
    if ours.handlers or logging.getLogger().handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(form))
    ours.addHandler(handler)
    ours.setLevel(level.upper())


def run(
    settings: ServiceSettings,
    *,
    database_url: str | None = None,
    sock: socket.socket | None = None,
) -> None:
    """Serve until SIGTERM or SIGINT (blocking), on ``sock`` (else bound here: ``bind``)."""
    require("serve", "uvicorn", "starlette", purpose="toolret serve")
    import uvicorn

    from toolret.service._app import create_app
    from toolret.service._metrics import install_prometheus

    check_address(settings)
    sock = sock or bind(settings)
    app = create_app(settings, database_url=database_url, metrics=install_prometheus())
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=int(settings.drain_seconds) or None,
    )
    configure_logging(settings.log_level)
    # uvicorn drains on SIGTERM, runs the lifespan's shutdown, then raises the signal again
    # for the handler it found: make that handler a clean exit (status 0).
    signal.signal(signal.SIGTERM, exit_cleanly)
    uvicorn.Server(config).run(sockets=[sock])


def exit_cleanly(signum: int, frame: FrameType | None) -> None:
    """A SIGTERM handler for after uvicorn's graceful stop: exit with status 0."""
    sys.exit(0)
