"""Feedback signals: what a turn needed against what its selection bound.

After a turn, the transcript says which tools the model called. A called tool that the selection
bound is a *hit*; one it did not bind (the model found it through find_tools, or a provider's
deferred loading) is a *miss*: the opening message needed that tool and retrieval did not rank
it. ``turn_feedback`` turns (catalog, selection, transcript, query vector) into a
``TurnFeedback``, a pure function of its inputs; ``toolret.feedback._sender`` sends it to the
worker, which stores it (``toolret.feedback._store``) and, opted in, learns from it
(``toolret.feedback._learning``).

What travels and is stored: the query vector the client already computed for the message (never
re-embedded), tool names, ``k`` and a count of find_tools calls. The message text only when the
operator opts in (``TOOLRET_FEEDBACK_TEXT=1``); never in spans or logs. Unless the application
turned them off (``companions``), the worker also counts the called tools as used together
(``toolret.feedback._companion_store``): names only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from toolret._catalog import Catalog
from toolret.adapters._mcp import mcp_origin
from toolret.embedders._base import Vector
from toolret.retrieval._find_tools import FIND_TOOLS_NAME, discovered_tool_names
from toolret.retrieval._selection import Selection
from toolret.retrieval._transcript import ToolCall, current_turn, tool_calls

__all__ = [
    "HIT",
    "MISS",
    "TurnFeedback",
    "called_tool_names",
    "find_tools_call_count",
    "turn_feedback",
]

HIT = "hit"
MISS = "miss"


@dataclass(frozen=True)
class TurnFeedback:
    """One narrowed turn, as the worker stores it.

    ``bound`` are the non-core tools the selection bound, best first; ``hits`` and ``misses``
    the non-core tools the model called that were and were not bound; ``discovered`` what
    find_tools returned in the turn. ``vector`` is the message's query embedding.
    ``companions``: count the called tools as used together.
    """

    model_id: str
    corpus_hash: str
    k: int
    bound: tuple[str, ...]
    core: tuple[str, ...]
    hits: tuple[str, ...]
    misses: tuple[str, ...]
    discovered: tuple[str, ...]
    find_tools_calls: int
    vector: tuple[float, ...]
    learn: bool = False
    text: str | None = None
    companions: bool = True

    @property
    def called(self) -> tuple[str, ...]:
        """The non-core tools the model called: hits, then misses."""
        return (*self.hits, *self.misses)

    def to_payload(self) -> dict[str, Any]:
        """A JSON-able dict (the arq job's argument)."""
        return {
            "model_id": self.model_id,
            "corpus_hash": self.corpus_hash,
            "k": self.k,
            "bound": list(self.bound),
            "core": list(self.core),
            "hits": list(self.hits),
            "misses": list(self.misses),
            "discovered": list(self.discovered),
            "find_tools_calls": self.find_tools_calls,
            "vector": list(self.vector),
            "learn": self.learn,
            "text": self.text,
            "companions": self.companions,
        }

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> TurnFeedback:
        """The inverse of ``to_payload``; raises ``KeyError``/``TypeError`` on a bad payload."""
        text = payload.get("text")
        return cls(
            model_id=str(payload["model_id"]),
            corpus_hash=str(payload["corpus_hash"]),
            k=int(payload["k"]),
            bound=tuple(map(str, payload["bound"])),
            core=tuple(map(str, payload.get("core", ()))),
            hits=tuple(map(str, payload["hits"])),
            misses=tuple(map(str, payload["misses"])),
            discovered=tuple(map(str, payload["discovered"])),
            find_tools_calls=int(payload["find_tools_calls"]),
            vector=tuple(float(x) for x in payload["vector"]),
            learn=bool(payload.get("learn", False)),
            text=None if text is None else str(text),
            companions=bool(payload.get("companions", True)),
        )

    @property
    def embedding(self) -> Vector:
        """The query vector as float32."""
        return np.asarray(self.vector, dtype=np.float32)


def turn_feedback(
    catalog: Catalog,
    selection: Selection,
    transcript: Sequence[Any] | Iterable[str],
    vector: Vector,
    *,
    model_id: str,
    corpus_hash: str,
    k: int,
    learn: bool = False,
    text: str | None = None,
    companions: bool = True,
) -> TurnFeedback:
    """The feedback of one narrowed turn.

    ``transcript`` is the turn's messages (OpenAI Chat/Responses, Anthropic, LangChain) or simply
    the names of the tools the model called. Core tools, find_tools itself and names the catalog
    does not know are left out: they say nothing about ranking.
    """
    items = list(transcript)
    if all(isinstance(item, str) for item in items):
        called = list(dict.fromkeys(str(item) for item in items))
        discovered: list[str] = []
        finds = 0
    else:
        called = called_tool_names(items, catalog)
        discovered = discovered_tool_names(items)
        finds = find_tools_call_count(items)
    bound_set = set(selection.names)
    candidates = [name for name in called if name in catalog and not catalog[name].core]
    ranked = sorted(
        (name for name in bound_set if name in catalog and not catalog[name].core),
        key=lambda name: (-selection.scores.get(name, float("-inf")), catalog.position(name)),
    )
    return TurnFeedback(
        model_id=model_id,
        corpus_hash=corpus_hash,
        k=k,
        bound=tuple(ranked),
        core=tuple(tool.name for tool in catalog.core),
        hits=tuple(name for name in candidates if name in bound_set),
        misses=tuple(name for name in candidates if name not in bound_set),
        discovered=tuple(name for name in discovered if name in catalog),
        find_tools_calls=finds,
        vector=tuple(float(x) for x in np.asarray(vector, dtype=np.float32)),
        learn=learn,
        text=text,
        companions=companions,
    )


def called_tool_names(messages: Iterable[Any], catalog: Catalog | None = None) -> list[str]:
    """The tools the model called in the current turn (after the last human message), in order,
    without duplicates; find_tools itself excluded. Any transcript ``toolret.retrieval._transcript``
    reads; anything malformed is skipped. With ``catalog``, a call an OpenAI Responses
    namespace names (an MCP server's tool, called by its own name) is the catalog's
    ``server__tool``."""
    names = (_catalog_name(call, catalog) for call in tool_calls(current_turn(messages)))
    return list(dict.fromkeys(name for name in names if name != FIND_TOOLS_NAME))


def _catalog_name(call: ToolCall, catalog: Catalog | None) -> str:
    if catalog is None or call.namespace is None or call.name in catalog:
        return call.name
    for tool in catalog.tools:
        origin = mcp_origin(tool)
        if (
            origin is not None
            and origin[1] == call.name
            and _namespace(origin[0]) == call.namespace
        ):
            return tool.name
    return call.name


def _namespace(server: str) -> str:
    """A server's name as a Responses namespace (``toolret.integrations.openai.namespace_of``)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", server)


def find_tools_call_count(messages: Iterable[Any]) -> int:
    """How many times the model called find_tools in the current turn."""
    return sum(call.name == FIND_TOOLS_NAME for call in tool_calls(current_turn(messages)))
