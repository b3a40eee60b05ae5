"""How many prompt tokens tool definitions cost: what a selection sends against the full roster.

A tool is counted as the compact JSON of ``{"name", "description", "parameters"}``: the part of
a request that retrieval removes. Providers wrap tool definitions in a few tokens of their own
framing per tool, which is not counted; the figures are for comparing, not for billing.

Two counters:

- ``estimate`` (the default, always available): UTF-8 bytes divided by 4, rounded up, the
  usual rule of thumb. It errs high against o200k, and more on text in a non-Latin script,
  which has more bytes a token.
- ``o200k_base``, the tokenizer of OpenAI's current models, from the ``bpe-openai`` package,
  which ships its vocabulary (``tiktoken`` downloads its vocabularies at run time, so it is not
  used). Loading it takes seconds, so it is never loaded on the request path: call
  ``load_tokenizer()`` at start-up (``pip install 'toolret[tokens]'``). Anthropic publishes no
  offline tokenizer; for Claude the o200k count is an approximation (the API's token-counting
  endpoint is exact).
"""

from __future__ import annotations

import json
import math
import threading
import weakref
from collections.abc import Callable, Iterable
from functools import lru_cache

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.errors import ConfigurationError

__all__ = [
    "ESTIMATE",
    "estimate_tokens",
    "load_tokenizer",
    "reset_tokenizer",
    "roster_tokens",
    "schema_tokens",
    "tokenizer_name",
    "tool_json",
    "tool_tokens",
]

ESTIMATE = "estimate"
BYTES_PER_TOKEN = 4

_lock = threading.Lock()
_counter: Callable[[str], int] | None = None
_name = ESTIMATE
_rosters: weakref.WeakKeyDictionary[Catalog, tuple[str, int]] = weakref.WeakKeyDictionary()


def estimate_tokens(text: str) -> int:
    """The documented estimate: UTF-8 bytes / 4, rounded up."""
    return math.ceil(len(text.encode()) / BYTES_PER_TOKEN)


def load_tokenizer(name: str = "o200k_base") -> str:
    """Count with a real tokenizer from here on (blocking, for seconds); returns its name.

    Raises ``ConfigurationError`` when ``bpe-openai`` is not installed or has no such encoding.
    """
    global _counter, _name
    try:
        import bpe_openai
    except ImportError as error:
        raise ConfigurationError(
            "counting with a real tokenizer needs bpe-openai: pip install 'toolret[tokens]'"
        ) from error
    try:
        encoding = bpe_openai.get_encoding(name)
    except Exception as error:
        raise ConfigurationError(f"no tokenizer {name!r} in bpe-openai: {error}") from error
    with _lock:
        _counter = lambda text: len(encoding.encode(text))  # noqa: E731
        _name = name
        _tool_tokens.cache_clear()
    return name


def reset_tokenizer() -> None:
    """Go back to the estimate."""
    global _counter, _name
    with _lock:
        _counter, _name = None, ESTIMATE
        _tool_tokens.cache_clear()


def tokenizer_name() -> str:
    """``estimate`` or the name of the loaded tokenizer."""
    return _name


def tool_json(tool: Tool) -> str:
    """The compact JSON a tool is counted as: name, description and parameters."""
    definition = {
        "name": tool.name,
        "description": tool.description,
        "parameters": dict(tool.input_schema or {}),
    }
    return json.dumps(definition, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


_CACHED = 8192
_by_identity: dict[int, tuple[Tool, int, str, int]] = {}
"""The same counts by the tool object's identity: a look-up without hashing the tool's fields
(every selection counts the tools it sends). An entry holds its tool, so no other object can
take that id while it is there, and names its tokenizer."""


def tool_tokens(tool: Tool) -> int:
    """Tokens of one tool's definition (cached per tool and parameter schema)."""
    schema, name = id(tool.input_schema), _name
    hit = _by_identity.get(id(tool))
    if hit is not None and hit[0] is tool and hit[1] == schema and hit[2] == name:
        return hit[3]
    count = _tool_tokens(tool, schema)
    if len(_by_identity) >= _CACHED:
        _by_identity.clear()
    _by_identity[id(tool)] = (tool, schema, name, count)
    return count


@lru_cache(maxsize=8192)
def _tool_tokens(tool: Tool, schema: int) -> int:
    """Keyed on the schema's identity as well: tools compare equal whatever their parameters,
    so a cache keyed on the tool alone gave a changed schema its old count. The entry holds the
    tool, and so its schema, so no other schema can take that identity while it is cached."""
    text = tool_json(tool)
    counter = _counter
    return counter(text) if counter is not None else estimate_tokens(text)


def schema_tokens(tools: Iterable[Tool]) -> int:
    """Tokens of these tools' definitions."""
    return sum(tool_tokens(tool) for tool in tools)


def roster_tokens(catalog: Catalog) -> int:
    """Tokens of every definition in the catalog (cached per catalog and tokenizer)."""
    cached = _rosters.get(catalog)
    if cached is None or cached[0] != _name:
        cached = (_name, schema_tokens(catalog.tools))
        _rosters[catalog] = cached
    return cached[1]
