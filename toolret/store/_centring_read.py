"""The description vectors a published corpus holds, for centring dense scores per description
language (``toolret.retrieval._centring``): read once per corpus by the client."""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from toolret.embedders._base import Vector
from toolret.store._pool import StorePool

__all__ = ["DESCRIPTION_VECTORS", "StoreCentringReads"]

DESCRIPTION_VECTORS = """
SELECT d.doc_key, v.embedding
FROM toolret_corpora c
JOIN toolret_corpus_documents d ON d.corpus_id = c.id
JOIN toolret_vectors v ON v.model_id = c.model_id AND v.doc_key = d.doc_key
WHERE c.model_id = $1 AND c.corpus_hash = $2 AND c.published_at IS NOT NULL
  AND d.doc_key = ANY ($3::text[])
"""
"""The named documents' vectors in a published corpus (none while it is not published)."""


class StoreCentringReads(StorePool):
    """``description_vectors``: what the client centres dense scores with."""

    async def description_vectors(
        self, model_id: str, corpus_hash: str, keys: Collection[str]
    ) -> dict[str, Vector]:
        """The vectors of ``keys`` (document keys) in the published corpus ``corpus_hash``, by
        key; empty while that corpus is not published."""
        async with self._connection("reading description vectors") as connection:
            rows = await connection.fetch(DESCRIPTION_VECTORS, model_id, corpus_hash, sorted(keys))
        return {row["doc_key"]: _vector(row["embedding"]) for row in rows}


def _vector(value: object) -> Vector:
    """A stored ``vector`` as float32 (pgvector's codec returns an array or a ``Vector``)."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy is not None else value, dtype=np.float32)
