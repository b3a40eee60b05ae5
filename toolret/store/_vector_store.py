"""``VectorStore``: the reader, the writer and the operator over one pool.

Content-addressed vectors, atomically published corpora and the ranking query over one Postgres
database with pgvector. The parts follow the line the database roles draw: ``read`` (what the
read-only application role may do), ``write`` (the worker) and ``ops`` (the operator); the
pool, its transactions and its error mapping are in ``pool``; a sparse head's vectors are
written by ``sparse_write`` and read with the ranking (``sparse_read``); the description
vectors the client centres dense scores with are read by ``centring_read``.
"""

from __future__ import annotations

from toolret.store._centring_read import StoreCentringReads
from toolret.store._ops import StoreOperations
from toolret.store._read import StoreReads
from toolret.store._sparse_write import StoreSparseWrites
from toolret.store._write import StoreWrites

__all__ = ["VectorStore"]


class VectorStore(StoreReads, StoreCentringReads, StoreWrites, StoreSparseWrites, StoreOperations):
    """Vectors, corpora and the ranking query over one Postgres database with pgvector.

    Create it with ``VectorStore.from_url(url)`` (it then owns its engine) or around an
    ``AsyncEngine`` you manage. ``statement_timeout`` (seconds) bounds every request-path
    statement on the server; maintenance statements run without it. Catalogs of up to
    ``exact_limit`` candidate documents are ranked exactly; larger ones through HNSW with
    ``ef_search`` candidates per scan. Every operation raises ``StoreError``
    (``NotIndexedError`` when a catalog has nothing published, ``SchemaMissingError`` when the
    database is not migrated, ``TimeoutError`` on a statement timeout); the client turns them
    into the full roster.
    """
