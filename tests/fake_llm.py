"""A local HTTP server speaking three model wire formats, for the real SDKs.

``POST /v1/messages`` (Anthropic Messages), ``POST /v1/responses`` (OpenAI Responses) and
``POST /v1/chat/completions`` (OpenAI Chat Completions, which LangChain's ``ChatOpenAI`` uses).
Each request's JSON body is recorded; each answer is scripted per endpoint with ``reply(path,
body)`` and consumed in order (an endpoint with nothing scripted answers 500, so a test that
makes an unplanned call fails loudly). The bodies are built by the helpers below in each API's
response shape, so the SDKs parse them into their own types.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FakeLLM",
    "Recorded",
    "anthropic_message",
    "chat_completion",
    "responses_response",
]

MESSAGES = "/v1/messages"
RESPONSES = "/v1/responses"
CHAT = "/v1/chat/completions"


@dataclass(frozen=True)
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeLLM:
    """``with FakeLLM() as server:`` listens on 127.0.0.1, on an ephemeral port."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._replies: defaultdict[str, deque[Any]] = defaultdict(deque)
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def reply(self, path: str, body: dict[str, Any]) -> None:
        """Answer the next request to ``path`` with ``body``."""
        with self._lock:
            self._replies[path].append(body)

    def bodies(self, path: str) -> list[dict[str, Any]]:
        """The request bodies sent to ``path``, in order."""
        return [r.body for r in self.requests if r.path == path]

    def answer(self, path: str) -> tuple[int, Any]:
        with self._lock:
            queue = self._replies[path]
            if not queue:
                return 500, {"error": {"message": f"nothing scripted for {path}"}}
            return 200, queue.popleft()

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


def _handler_for(server: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            path = self.path.split("?", 1)[0]
            body = json.loads(raw) if raw else {}
            server.requests.append(Recorded(path, dict(self.headers.items()), body))
            status, answer = server.answer(path)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def anthropic_message(
    content: list[dict[str, Any]], stop_reason: str = "end_turn"
) -> dict[str, Any]:
    """A Messages API response with these content blocks."""
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": "claude-fake",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def responses_response(output: list[dict[str, Any]]) -> dict[str, Any]:
    """A Responses API response with these output items."""
    return {
        "id": "resp_fake",
        "object": "response",
        "created_at": 0,
        "model": "gpt-fake",
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def chat_completion(
    content: str | None = None, tool_calls: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A Chat Completions response: text, or tool calls ``[{"id", "name", "arguments"}]``."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
            }
            for call in tool_calls
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-fake",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
