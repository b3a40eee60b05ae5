"""A local HTTP server speaking the Gemini wire format, for the real google-genai client.

It answers ``POST /{version}/models/{model}:batchEmbedContents`` (and ``:embedContent``) with
deterministic vectors: a hashed bag of words, deliberately *not* unit length, so texts that share
words get similar vectors and the client's normalisation is observable. Every request is recorded.
Faults are scripted per request: ``fail_next(2, 429)`` answers the next two requests with 429,
``stall_next()`` holds the next request open without answering, ``reply_next(body)`` sends a raw
body (malformed responses). ``wait_for_connections(0)`` blocks until the client has hung up.

``:generateContent`` answers with the model turns scripted by ``reply_content(parts)``, in
order; with none scripted it answers as a model that follows toolret's example-suggestion
prompt: for the ``TOOLS:`` and ``LANGUAGES:`` lines of the prompt it returns JSON
``{tool: {language: [...]}}`` with ``PER_TOOL:`` requests each. A request that breaks a
documented function-calling rule (``tests/support/llm_rules.py``) gets the API's 400.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.llm_rules import gemini_violation
from tests.support.loopback import LoopbackServer

__all__ = ["FakeGemini", "RecordedRequest", "bag_of_words"]

DEFAULT_DIMENSION = 3072
STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
_PATH = re.compile(r"^/(?P<version>[^/]+)/models/(?P<model>[^:/]+):(?P<method>\w+)$")


def bag_of_words(text: str, dimension: int) -> list[float]:
    """A deterministic, unnormalised embedding: each word adds 3.0 to its hashed coordinate."""
    vector = [0.0] * dimension
    for word in re.findall(r"\w+", text.casefold()):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        vector[int.from_bytes(digest, "big") % dimension] += 3.0
    return vector


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def endpoint(self) -> str:
        """``batchEmbedContents`` or ``embedContent``."""
        return self.path.rsplit(":", 1)[-1]

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The per-text requests (one for ``embedContent``)."""
        if self.endpoint == "embedContent":
            return [self.body]
        items: list[dict[str, Any]] = self.body.get("requests", [])
        return items

    @property
    def texts(self) -> list[str]:
        return ["".join(p.get("text", "") for p in r["content"]["parts"]) for r in self.requests]

    @property
    def task_types(self) -> set[str | None]:
        return {r.get("taskType") for r in self.requests}

    @property
    def dimensions(self) -> set[int | None]:
        return {r.get("outputDimensionality") for r in self.requests}


@dataclass
class _Script:
    """Scripted answers for the next requests, consumed one per request."""

    actions: deque[tuple[str, Any]] = field(default_factory=deque)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def push(self, count: int, action: tuple[str, Any]) -> None:
        with self.lock:
            self.actions.extend([action] * count)

    def pop(self) -> tuple[str, Any] | None:
        with self.lock:
            return self.actions.popleft() if self.actions else None


class FakeGemini(LoopbackServer):
    """The fake server; ``with FakeGemini() as server:`` listens on 127.0.0.1, ephemeral port."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.rejections: list[str] = []
        self._contents: deque[list[dict[str, Any]]] = deque()
        self._script = _Script()
        self._release = threading.Event()
        self._connections = 0
        self._connections_changed = threading.Condition()
        super().__init__(_handler_for(self))

    def fail_next(self, count: int, status: int, message: str = "scripted failure") -> None:
        """Answer the next ``count`` requests with ``status`` and a Google-style error body."""
        self._script.push(count, ("status", (status, message)))

    def stall_next(self, count: int = 1) -> None:
        """Hold the next ``count`` requests open, unanswered, until the server stops."""
        self._script.push(count, ("stall", None))

    def reply_content(self, parts: list[dict[str, Any]]) -> None:
        """Answer the next ``generateContent`` with a model turn of these parts (wire shape:
        ``{"text": ...}``, ``{"functionCall": {"name", "args"}}``)."""
        with self._script.lock:
            self._contents.append(parts)

    def reply_next(self, body: Any, count: int = 1, status: int = 200) -> None:
        """Answer the next ``count`` requests with ``body`` (JSON-encoded unless ``bytes``)."""
        self._script.push(count, ("raw", (status, body)))

    @property
    def open_connections(self) -> int:
        """TCP connections currently open from clients (keep-alive connections count)."""
        with self._connections_changed:
            return self._connections

    def wait_for_connections(self, count: int, timeout: float = 5.0) -> bool:
        """Block until exactly ``count`` connections are open; False if ``timeout`` passes first."""
        with self._connections_changed:
            return self._connections_changed.wait_for(lambda: self._connections == count, timeout)

    def count_connection(self, delta: int) -> None:
        with self._connections_changed:
            self._connections += delta
            self._connections_changed.notify_all()

    def release_all(self) -> None:
        self._release.set()

    def answer(self, recorded: RecordedRequest, method: str) -> tuple[int, Any]:
        """The status and body for one request: scripted, else vectors for its texts."""
        action = self._script.pop()
        if action is not None:
            kind, arg = action
            if kind == "stall":
                self._release.wait()
                return 503, {"error": {"code": 503, "message": "released", "status": "UNAVAILABLE"}}
            if kind == "raw":
                return arg  # type: ignore[no-any-return]
            status, message = arg
            status_name = STATUS_NAMES.get(status, "UNKNOWN")
            return status, {"error": {"code": status, "message": message, "status": status_name}}
        if method == "generateContent":
            refusal = gemini_violation(recorded.body)
            if refusal is not None:
                self.rejections.append(refusal)
                return 400, {
                    "error": {"code": 400, "message": refusal, "status": STATUS_NAMES[400]}
                }
            with self._script.lock:
                parts = self._contents.popleft() if self._contents else None
            if parts is not None:
                content = {"role": "model", "parts": parts}
                return 200, {"candidates": [{"content": content, "finishReason": "STOP"}]}
            return 200, _generated(recorded.body)
        embeddings = [
            {"values": bag_of_words(text, request.get("outputDimensionality") or DEFAULT_DIMENSION)}
            for text, request in zip(recorded.texts, recorded.requests, strict=True)
        ]
        if method == "embedContent":
            return 200, {"embedding": embeddings[0]}
        return 200, {"embeddings": embeddings}


def _generated(body: dict[str, Any]) -> dict[str, Any]:
    """A generateContent response suggesting requests for the tools the prompt lists."""
    prompt = "".join(
        part.get("text", "") for content in body.get("contents", []) for part in content["parts"]
    )

    def listed(label: str) -> list[str]:
        line = next((ln for ln in prompt.splitlines() if ln.startswith(label)), label)
        return [item.strip() for item in line[len(label) :].split(",") if item.strip()]

    count = int((listed("PER_TOOL:") or ["2"])[0])
    answer = {
        tool: {
            lang: [f"{lang} request {i} for {tool.replace('_', ' ')}" for i in range(count)]
            for lang in listed("LANGUAGES:")
        }
        for tool in listed("TOOLS:")
    }
    text = json.dumps(answer, ensure_ascii=False)
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
        ]
    }


def _handler_for(server: FakeGemini) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            server.count_connection(+1)

        def finish(self) -> None:
            server.count_connection(-1)
            super().finish()

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            match = _PATH.match(self.path.split("?", 1)[0])
            body = json.loads(raw) if raw else {}
            recorded = RecordedRequest("POST", self.path, dict(self.headers.items()), body)
            server.requests.append(recorded)
            known = {"batchEmbedContents", "embedContent", "generateContent"}
            if match is None or match["method"] not in known:
                self._send(404, {"error": {"code": 404, "message": "no such method"}})
                return
            self._send(*server.answer(recorded, match["method"]))

        def _send(self, status: int, body: Any) -> None:
            payload = body if isinstance(body, bytes) else json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a stalled request after its timeout)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the recorded requests are the log."""

    return Handler
