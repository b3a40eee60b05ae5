"""A local HTTP server on a free loopback port, served from its own thread: what the fake
provider servers (OpenAI, Gemini, the LLM APIs) share."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

__all__ = ["LoopbackServer"]


class LoopbackServer:
    """Serves ``handler`` on ``127.0.0.1`` from ``start()`` (or ``with``) until ``stop()``.

    A subclass that holds requests back releases them in ``release_all`` (called first by
    ``stop``), so stopping never waits on a request the test left held.
    """

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def release_all(self) -> None:
        """Let every held request go on (nothing to release here)."""

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release_all()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
