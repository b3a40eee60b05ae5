"""A local HTTP server speaking three model wire formats, strict as the real APIs, for the SDKs.

``POST /v1/messages`` (Anthropic Messages, JSON or a server-sent event stream when the request
says ``"stream": true``), ``POST /v1/responses`` (OpenAI Responses) and
``POST /v1/chat/completions`` (OpenAI Chat Completions, which LangChain's ``ChatOpenAI`` uses).

Every request is recorded. Before answering, the server checks the request against the rules
the provider documents (``tests/support/llm_rules.py``): one that breaks a rule gets the provider's
400
body with its message, is listed in ``rejections``, and consumes no scripted answer. Answers
are scripted per endpoint with ``reply(path, body)`` and consumed in order (an endpoint with
nothing scripted answers 500, so an unplanned call fails loudly). The bodies are built by the
helpers below in each API's response shape, so the SDKs parse them into their own types.

The server keeps what the rules need from its own answers: the signatures of the thinking blocks
it sent (a thinking block passed back must carry one), and which output items followed a
reasoning item (they must be passed back with it).

A test in another language drives it over HTTP (``CONTROL``): ``POST /_fake/reply`` with
``{"path", ...}`` scripts an answer built by the helpers below (``content`` and ``stop_reason``
for Messages, ``output`` for Responses, ``content`` and ``tool_calls`` for Chat Completions),
and ``GET /_fake/requests`` lists what was sent and refused.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import defaultdict, deque
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.llm_rules import chat_violation, messages_violation, responses_violation
from tests.support.loopback import LoopbackServer

__all__ = [
    "CHAT",
    "CONTROL",
    "MESSAGES",
    "RESPONSES",
    "FakeLLM",
    "Recorded",
    "anthropic_message",
    "chat_completion",
    "responses_response",
]

MESSAGES = "/v1/messages"
RESPONSES = "/v1/responses"
CHAT = "/v1/chat/completions"
CONTROL = "/_fake/"


@dataclass(frozen=True)
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeLLM(LoopbackServer):
    """``with FakeLLM() as server:`` listens on 127.0.0.1, on an ephemeral port."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.rejections: list[tuple[str, str]] = []
        self._replies: defaultdict[str, deque[Any]] = defaultdict(deque)
        self._signatures: set[str] = set()
        self._reasoning_of: dict[str, str] = {}
        self._counter = itertools.count(1)
        self._lock = threading.Lock()
        super().__init__(_handler_for(self))

    def reply(self, path: str, body: dict[str, Any]) -> None:
        """Answer the next accepted request to ``path`` with ``body``."""
        with self._lock:
            self._replies[path].append(body)

    def bodies(self, path: str) -> list[dict[str, Any]]:
        """The request bodies sent to ``path``, in order (refused ones included)."""
        return [r.body for r in self.requests if r.path == path]

    def answer(self, recorded: Recorded) -> tuple[int, Any]:
        """The status and body for one request: the provider's 400 if it breaks a rule, else
        the next scripted answer."""
        with self._lock:
            refusal = self._violation(recorded)
            if refusal is not None:
                self.rejections.append((recorded.path, refusal))
                return 400, _error_body(recorded.path, refusal)
            queue = self._replies[recorded.path]
            if not queue:
                return 500, {"error": {"message": f"nothing scripted for {recorded.path}"}}
            return 200, self._remember(recorded.path, queue.popleft())

    def _violation(self, recorded: Recorded) -> str | None:
        headers = {key.lower(): value for key, value in recorded.headers.items()}
        if recorded.path == MESSAGES:
            return messages_violation(recorded.body, headers, self._signatures)
        if recorded.path == RESPONSES:
            return responses_violation(recorded.body, self._reasoning_of)
        if recorded.path == CHAT:
            return chat_violation(recorded.body)
        return None

    def _remember(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """Sign thinking blocks, and note which output items a reasoning item precedes."""
        if path == MESSAGES:
            for block in body.get("content", []):
                if block.get("type") == "thinking":
                    block.setdefault("signature", f"sig_{next(self._counter)}")
                    self._signatures.add(block["signature"])
        if path == RESPONSES:
            reasoning: str | None = None
            for item in body.get("output", []):
                if item.get("type") == "reasoning":
                    reasoning = item["id"]
                elif reasoning is not None and item.get("id"):
                    self._reasoning_of[item["id"]] = reasoning
        return body


def _error_body(path: str, message: str) -> dict[str, Any]:
    """The provider's error body for a refused request."""
    if path == MESSAGES:
        return {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": message},
            "request_id": "req_fake",
        }
    return {"error": {"message": message, "type": "invalid_request_error", "param": None}}


def _handler_for(server: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            path = self.path.split("?", 1)[0]
            body = json.loads(raw) if raw else {}
            if path == f"{CONTROL}reply":
                server.reply(body["path"], _scripted(body))
                self._send(200, "application/json", "{}")
                return
            recorded = Recorded(path, dict(self.headers.items()), body)
            server.requests.append(recorded)
            status, answer = server.answer(recorded)
            if status == 200 and body.get("stream") and path == MESSAGES:
                self._send(status, "text/event-stream", "".join(_message_events(answer)))
                return
            self._send(status, "application/json", json.dumps(answer))

        def do_GET(self) -> None:
            if self.path.split("?", 1)[0] != f"{CONTROL}requests":
                self._send(404, "application/json", "{}")
                return
            sent = [{"path": r.path, "body": r.body} for r in server.requests]
            rejected = [{"path": path, "message": message} for path, message in server.rejections]
            answer = {"requests": sent, "rejections": rejected}
            self._send(200, "application/json", json.dumps(answer))

        def _send(self, status: int, kind: str, text: str) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def _scripted(request: dict[str, Any]) -> dict[str, Any]:
    """The answer a control request scripts, built by the helper of its endpoint."""
    path = request["path"]
    if path == MESSAGES:
        return anthropic_message(request["content"], request.get("stop_reason", "end_turn"))
    if path == RESPONSES:
        return responses_response(request["output"])
    return chat_completion(request.get("content"), request.get("tool_calls"))


def _message_events(message: dict[str, Any]) -> Iterator[str]:
    """A Messages API reply as the stream the API sends: ``message_start``, each content block
    as start / deltas / stop, ``message_delta`` with the stop reason, ``message_stop``."""

    def event(kind: str, data: dict[str, Any]) -> str:
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"

    opening = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    yield event("message_start", {"message": opening})
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        if kind == "text":
            opening_block, deltas = (
                {**block, "text": ""},
                [{"type": "text_delta", "text": block["text"]}],
            )
        elif kind == "thinking":
            opening_block, deltas = (
                {**block, "thinking": "", "signature": ""},
                [
                    {"type": "thinking_delta", "thinking": block["thinking"]},
                    {"type": "signature_delta", "signature": block["signature"]},
                ],
            )
        else:
            opening_block, deltas = (
                {**block, "input": {}},
                [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}],
            )
        yield event("content_block_start", {"index": index, "content_block": opening_block})
        for delta in deltas:
            yield event("content_block_delta", {"index": index, "delta": delta})
        yield event("content_block_stop", {"index": index})
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    yield event("message_delta", {"delta": stop, "usage": {"output_tokens": 5}})
    yield event("message_stop", {})


def anthropic_message(
    content: list[dict[str, Any]], stop_reason: str = "end_turn"
) -> dict[str, Any]:
    """A Messages API response with these content blocks (a thinking block without a
    ``signature`` is signed by the server when it is sent)."""
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


_COMPLETIONS = itertools.count(1)


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
        "id": f"chatcmpl-{next(_COMPLETIONS)}",  # unique, as the API's (LangGraph merges by id)
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
