"""Optional dependencies: what each extra brings, and the error that says which to install.

``pip install toolret`` carries what ``toolret demo`` needs from an empty directory with no key
and no database: the bundled model, the embedded Postgres, the client and the CLI. What an
agent service only sometimes needs is an extra:

- ``toolret[gemini]``: Gemini embeddings (google-genai), used when ``GEMINI_API_KEY`` is set;
- ``toolret[openai]``: the OpenAI SDK and OpenAI's tokenizer (bpe-openai), for OpenAI, Azure
  OpenAI and OpenAI-compatible embeddings (``TOOLRET_EMBEDDER=openai`` or ``azure``) and the
  OpenAI integration;
- ``toolret[worker]``: the arq worker, and asking it to reindex through Redis (``REDIS_URL``);
- ``toolret[mcp]``: the MCP SDK, for an application that lists a live server's tools
  (``catalog_from_mcp`` reads its results, or raw ``tools/list`` JSON, without importing it).
"""

from __future__ import annotations

import importlib.util

from toolret.errors import ConfigurationError

__all__ = ["missing", "require"]


def require(extra: str, *modules: str, purpose: str) -> None:
    """Raise ``ConfigurationError`` naming ``toolret[extra]`` unless every module is installed."""
    absent = missing(*modules)
    if absent:
        raise ConfigurationError(
            f"{purpose} needs {', '.join(absent)}, which this install lacks: "
            f"pip install 'toolret[{extra}]'"
        )


def missing(*modules: str) -> list[str]:
    """The modules of ``modules`` this install lacks."""
    return [name for name in modules if not _installed(name)]


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent package (``google`` of ``google.genai``) is absent
        return False
