"""The pgvector store: what toolret keeps in Postgres, and how it reads and writes it.

- ``pool``: the base every store class stands on — the connection pool, transactions, advisory
  locks, and the mapping of driver errors to ``StoreError``;
- ``read`` (the request path: rank, ping), ``write`` (the worker: write, lock, publish),
  ``ops`` (the operator: garbage collection, status), combined in ``vector_store.VectorStore``;
- ``sql``: the ranking statements; ``corpus_sql``: the maintenance statements;
  ``companion_sql``: the counts of tools used together; ``types``: the values they return;
- ``schema``: the tables and index DDL; ``migrate``: Alembic upgrade, downgrade, revision;
- ``embedded``: the embedded PostgreSQL server the CLI and ``make demo`` start.
"""
