"""Gemini embeddings through google-genai (placeholder: being written)."""

from __future__ import annotations

from collections.abc import Sequence

from toolret.embedders.base import Vector, Vectors
from toolret.tool import Role

__all__ = ["GeminiEmbedder"]


class GeminiEmbedder:
    """Gemini ``gemini-embedding-001``."""

    example_role: Role = "document"

    def __init__(
        self,
        api_key: str,
        model: str = "gemini-embedding-001",
        dimension: int = 768,
        *,
        base_url: str | None = None,
        timeout: float = 10.0,
        max_retries: int = 3,
        batch_size: int = 100,
    ) -> None:
        self.model = model
        self.dimension = dimension
        self.model_id = f"{model}@{dimension}"

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        raise NotImplementedError

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        raise NotImplementedError

    async def embed_query(self, text: str) -> Vector:
        raise NotImplementedError

    async def aclose(self) -> None:
        return None
