"""A local HTTP server speaking OpenAI's embeddings API, for the real openai client's faults.

It answers ``POST /v1/embeddings`` (OpenAI, any compatible server) and
``POST /openai/deployments/{deployment}/embeddings?api-version=…`` (Azure OpenAI) with
deterministic vectors (``vector_of``: a bag of words plus one constant coordinate, deliberately
not unit length), base64-encoded when the request asks for it, as OpenAI does, and as float
lists otherwise. Every request is recorded. ``hold()`` keeps every request waiting until
``release()``, counting how many wait at once (``wait_in_flight``, ``max_in_flight``). Faults are
scripted per request, consumed in order:

- ``fail_next(count, status, headers=)``: an OpenAI error body, with headers (``Retry-After``);
- ``stall_next(count)``: the status line and headers, then a body that never comes;
- ``reply_next(body, count, status=)``: a raw body (``bytes``) or JSON;
- ``resize_next(size)``: vectors of another size than asked for;
- ``floats_next()``: float lists even where base64 was asked for.

``GET /v1/models`` lists ``models`` (none by default); ``GET /v1/model/info`` answers, as a
LiteLLM proxy does, what each alias in ``routes`` routes to, and 404 while ``routes`` is empty.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

from tests.support.fake_gemini import bag_of_words
from tests.support.loopback import LoopbackServer

__all__ = ["FakeOpenAI", "Recorded", "vector_of"]

DEFAULT_DIMENSION = 64


def vector_of(text: str, dimension: int) -> list[float]:
    """The server's vector for ``text``: ``bag_of_words`` plus 1 in the first coordinate, so
    that a text without words has a direction too."""
    vector = bag_of_words(text, dimension)
    vector[0] += 1.0
    return vector


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it, and when."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float = field(default_factory=time.monotonic)

    @property
    def texts(self) -> list[str]:
        value = self.body.get("input")
        return [value] if isinstance(value, str) else list(value or [])

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.path).query)


class FakeOpenAI(LoopbackServer):
    """The fake server; ``with FakeOpenAI() as server:`` listens on 127.0.0.1, ephemeral port
    (an OpenAI client's ``base_url`` is ``server.url + "/v1"``).

    ``dimension`` is the size of the vectors it answers when a request asks for none.
    """

    def __init__(self, dimension: int = DEFAULT_DIMENSION) -> None:
        self.dimension = dimension
        self.models: list[str] = []
        self.routes: dict[str, str] = {}
        self.requests: list[Recorded] = []
        self._script: deque[tuple[str, Any]] = deque()
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._holding = threading.Event()
        self._held = threading.Event()
        self._in_flight = 0
        self.max_in_flight = 0
        self._flight = threading.Condition()
        super().__init__(_handler_for(self))

    def _push(self, count: int, action: tuple[str, Any]) -> None:
        with self._lock:
            self._script.extend([action] * count)

    def fail_next(
        self, count: int, status: int, *, headers: dict[str, str] | None = None, message: str = ""
    ) -> None:
        """Answer the next ``count`` requests with ``status``, an OpenAI error body and
        ``headers``."""
        self._push(count, ("status", (status, headers or {}, message or f"scripted {status}")))

    def stall_next(self, count: int = 1) -> None:
        """Send the next ``count`` answers' status line and headers, then hold the body until
        the server stops."""
        self._push(count, ("stall", None))

    def reply_next(self, body: Any, count: int = 1, status: int = 200) -> None:
        """Answer the next ``count`` requests with ``body`` (JSON-encoded unless ``bytes``)."""
        self._push(count, ("raw", (status, body)))

    def resize_next(self, size: int, count: int = 1) -> None:
        """Answer the next ``count`` requests with vectors of ``size`` dimensions."""
        self._push(count, ("resize", size))

    def floats_next(self, count: int = 1) -> None:
        """Answer the next ``count`` requests with float lists, whatever they asked for."""
        self._push(count, ("floats", None))

    def hold(self) -> None:
        """Keep every request waiting, before it is answered, until ``release()``."""
        self._held.clear()
        self._holding.set()

    def release(self) -> None:
        """Let held requests (and later ones) through."""
        self._holding.clear()
        self._held.set()

    def wait_in_flight(self, count: int, timeout: float = 30.0) -> bool:
        """Block until ``count`` requests are held at once; False if ``timeout`` passes first."""
        with self._flight:
            return self._flight.wait_for(lambda: self._in_flight >= count, timeout)

    def enter(self) -> None:
        """A request arrives: counted, and held while the server holds."""
        with self._flight:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            self._flight.notify_all()
        if self._holding.is_set():
            self._held.wait()

    def leave(self) -> None:
        with self._flight:
            self._in_flight -= 1

    def release_all(self) -> None:
        self._release.set()
        self.release()

    def answer(self, recorded: Recorded) -> tuple[str, Any]:
        """What to do for one request: ``("json", (status, headers, body))``, ``("raw", …)``
        or ``("stall", None)``."""
        with self._lock:
            action = self._script.popleft() if self._script else None
        size = recorded.body.get("dimensions") or self.dimension
        base64_ok = recorded.body.get("encoding_format") == "base64"
        if action is not None:
            kind, arg = action
            if kind == "stall":
                return "stall", None
            if kind == "raw":
                status, body = arg
                return "json", (status, {}, body)
            if kind == "status":
                status, headers, message = arg
                error = {"message": message, "type": "server_error", "code": None}
                return "json", (status, headers, {"error": error})
            if kind == "resize":
                size = arg
            if kind == "floats":
                base64_ok = False
        data = []
        for index, text in enumerate(recorded.texts):
            vector = np.asarray(vector_of(text, size), dtype="<f4")
            encoded: Any = (
                base64.b64encode(vector.tobytes()).decode() if base64_ok else vector.tolist()
            )
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        data.reverse()  # the API promises an index per item, not an order
        body = {
            "object": "list",
            "data": data,
            "model": recorded.body.get("model"),
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
        return "json", (200, {}, body)


def _handler_for(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path == "/v1/models":
                listed = [{"id": name, "object": "model"} for name in server.models]
                self._send(200, {}, {"object": "list", "data": listed})
            elif path == "/v1/model/info" and server.routes:
                routed = [
                    {"model_name": alias, "litellm_params": {"model": model}}
                    for alias, model in server.routes.items()
                ]
                self._send(200, {}, {"data": routed})
            else:
                self._send(404, {}, {"error": {"message": "unknown route", "type": "invalid"}})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            recorded = Recorded(self.path, dict(self.headers.items()), json.loads(raw or b"{}"))
            server.requests.append(recorded)
            server.enter()
            try:
                self._answer(recorded)
            finally:
                server.leave()

        def _answer(self, recorded: Recorded) -> None:
            path = urlsplit(self.path).path
            if not (path == "/v1/embeddings" or _azure(path)):
                self._send(404, {}, {"error": {"message": "unknown route", "type": "invalid"}})
                return
            kind, arg = server.answer(recorded)
            if kind == "stall":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1000")
                self.end_headers()
                self.wfile.write(b'{"object": "list", ')
                self.wfile.flush()
                server._release.wait()
                self.close_connection = True
                return
            self._send(*arg)

        def _send(self, status: int, headers: dict[str, str], body: Any) -> None:
            payload = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def _azure(path: str) -> bool:
    parts = path.strip("/").split("/")
    return len(parts) == 4 and parts[:2] == ["openai", "deployments"] and parts[3] == "embeddings"
