"""Gemini embeddings through google-genai's async client.

Documents are embedded as ``RETRIEVAL_DOCUMENT`` and queries as ``RETRIEVAL_QUERY``, truncated
to ``dimension`` with ``output_dimensionality`` and re-normalized here (a truncated Gemini vector
is not unit length). Texts are cut to the model's 2,048-token input window first, estimated in
characters (``toolret.embedders._window.CHARS_PER_TOKEN``: no tokenizer is at hand, and counting
through the API would cost a request per text); queries to the shorter query window. Retries
on 408/429/5xx and on timeouts are the SDK's own (``HttpRetryOptions``, exponential backoff
with jitter); other 4xx fail at once. Every failure
is an ``EmbedderError`` that names the model and says what to check.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from toolret._extras import require
from toolret._profile import LEGACY_PROFILE, RetrievalProfile
from toolret._tool import Role
from toolret.embedders._base import Vector, Vectors, l2_normalize
from toolret.embedders._window import InputWindow
from toolret.errors import EmbedderError, EmbedderUnavailableError

if TYPE_CHECKING:
    from google.genai import types

__all__ = ["GeminiEmbedder"]

MAX_BATCH = 100
"""Gemini's limit on texts per ``batchEmbedContents`` request."""
RETRY_STATUSES = [408, 429, 500, 502, 503, 504]


class GeminiEmbedder:
    """Gemini embeddings (``gemini-embedding-001`` by default) at ``dimension`` dimensions.

    ``timeout`` bounds each HTTP attempt (seconds); a call makes at most ``max_retries + 1``
    attempts per batch of ``batch_size`` texts, waiting about ``backoff``, 2×, 4×… between them.
    Examples are embedded as documents, and documents written and scored as toolret always
    did (``LEGACY_PROFILE``): nobody has measured the alternatives against Gemini yet.
    """

    example_role: Role = "document"
    profile: RetrievalProfile = LEGACY_PROFILE
    input_window = InputWindow(tokens=2048)
    """gemini-embedding-001 reads at most 2,048 tokens; cut here in characters."""

    def __init__(
        self,
        api_key: str,
        model: str = "gemini-embedding-001",
        dimension: int = 768,
        *,
        base_url: str | None = None,
        timeout: float = 10.0,
        max_retries: int = 3,
        batch_size: int = MAX_BATCH,
        backoff: float = 0.5,
    ) -> None:
        self.model = model
        self.dimension = dimension
        self.model_id = f"{model}@{dimension}"
        if not api_key or not api_key.strip():
            raise EmbedderUnavailableError(
                "no Gemini API key: set GEMINI_API_KEY, or unset it to use the bundled model",
                model_id=self.model_id,
            )
        if dimension < 1 or not 1 <= batch_size <= MAX_BATCH or timeout <= 0 or max_retries < 0:
            raise ValueError(
                "need dimension >= 1, 1 <= batch_size <= 100, timeout > 0 and max_retries >= 0"
            )
        self.batch_size = batch_size
        self.attempts = max_retries + 1
        self._timeout = timeout
        # google-genai takes a third of a second to import: only deployments that use it pay.
        require("gemini", "google.genai", purpose="Gemini embeddings (GEMINI_API_KEY is set)")
        from google import genai
        from google.genai import types

        retry = types.HttpRetryOptions(
            attempts=self.attempts,
            initial_delay=backoff,
            jitter=backoff,
            http_status_codes=RETRY_STATUSES,
        )
        options = types.HttpOptions(
            base_url=base_url, timeout=max(1, round(timeout * 1000)), retry_options=retry
        )
        self._client = genai.Client(api_key=api_key, vertexai=False, http_options=options)
        self._closed = False

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return await self._embed(texts, "RETRIEVAL_DOCUMENT")

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return await self._embed(texts, "RETRIEVAL_QUERY")

    async def embed_query(self, text: str) -> Vector:
        vector: Vector = (await self._embed([text], "RETRIEVAL_QUERY"))[0]
        return vector

    async def aclose(self) -> None:
        """Close the client's connections; the embedder cannot be used afterwards."""
        if not self._closed:
            self._closed = True
            await self._client.aio.aclose()
            self._client.close()

    def __repr__(self) -> str:
        return f"GeminiEmbedder({self.model_id!r})"

    async def _embed(self, texts: Sequence[str], task_type: str) -> Vectors:
        if self._closed:
            raise self._error("used after aclose()")
        role: Role = "query" if task_type == "RETRIEVAL_QUERY" else "document"
        texts = [self.input_window.cut(text, role) for text in texts]
        batches = [
            list(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)
        ]
        vectors = [self._vectors(await self._request(batch, task_type), batch) for batch in batches]
        return np.concatenate(vectors) if vectors else np.empty((0, self.dimension), np.float32)

    async def _request(self, texts: list[str], task_type: str) -> types.EmbedContentResponse:
        from google.genai import errors, types

        config = types.EmbedContentConfig(task_type=task_type, output_dimensionality=self.dimension)
        contents: list[types.PartUnion] = [*texts]
        try:
            return await self._client.aio.models.embed_content(
                model=self.model, contents=contents, config=config
            )
        except errors.APIError as error:
            message = f"HTTP {error.code} {error.status or ''} {error.message or ''}".strip()
            raise self._error(f"Gemini answered {message}; {_hint(error.code)}") from error
        except ValueError as error:  # undecodable JSON, or a body that does not fit the schema
            raise self._error(f"malformed response: {error!r:.200}") from error
        except Exception as error:
            if _is_timeout(error):
                raise self._error(
                    f"no answer within {self._timeout:g}s in {self.attempts} attempts; "
                    "check the network or raise TOOLRET_GEMINI_TIMEOUT"
                ) from error
            raise self._error(
                f"cannot reach Gemini ({error!r}); check the network and TOOLRET_GEMINI_BASE_URL"
            ) from error

    def _vectors(self, response: types.EmbedContentResponse, texts: list[str]) -> Vectors:
        values = [embedding.values or [] for embedding in response.embeddings or []]
        if len(values) != len(texts):
            raise self._error(f"malformed response: {len(values)} vectors for {len(texts)} texts")
        if {len(v) for v in values} != {self.dimension}:
            raise self._error(
                f"got vectors of {sorted({len(v) for v in values})} dimensions, not "
                f"{self.dimension}; check that AI_EMBEDDINGS_MODEL supports that dimension"
            )
        array = np.asarray(values, dtype=np.float32)
        if not np.isfinite(array).all():
            raise self._error("malformed response: non-finite vector values")
        return l2_normalize(array)

    def _error(self, message: str) -> EmbedderError:
        return EmbedderError(f"{self.model_id}: {message}", model_id=self.model_id)


_HINTS = {
    401: "check GEMINI_API_KEY",
    403: "check GEMINI_API_KEY",
    404: "check AI_EMBEDDINGS_MODEL and TOOLRET_GEMINI_BASE_URL",
    429: "still rate limited after retrying; check the project's Gemini quota",
}


def _hint(code: int) -> str:
    if code == 408 or code >= 500:
        return "still failing after retrying; try again later"
    return _HINTS.get(code, "check AI_EMBEDDINGS_MODEL and TOOLRET_EMBEDDING_DIMENSION")


def _is_timeout(error: Exception) -> bool:
    """httpx and httpx2 raise ``TimeoutException`` on a timeout, aiohttp ``TimeoutError``."""
    return isinstance(error, TimeoutError) or any(
        cls.__name__ == "TimeoutException" for cls in type(error).__mro__
    )
