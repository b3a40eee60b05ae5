"""Alembic migrations against the embedded Postgres: up, down, up again; the read-only role."""

from __future__ import annotations

import asyncio
import json

import asyncpg
import numpy as np
import pytest
from typer.testing import CliRunner, Result

from tests.support.fixtures_pg import PgServer, migrate
from tests.support.service_catalog import registration
from toolret.cli._app import app
from toolret.service._catalogs import content_hash, from_stored, stored_text
from toolret.service._models import CatalogRegistration
from toolret.store._migrate import database_revision, downgrade_database
from toolret.store._schema import READER_ROLE, VERSION_TABLE
from toolret.store._types import VectorRow, asyncpg_url
from toolret.store._vector_store import VectorStore

READABLE = {
    "toolret_vectors",
    "toolret_corpora",
    "toolret_corpus_documents",
    "toolret_learned_vectors",
    "toolret_catalogs",
    "toolret_summary_vectors",
    "toolret_corpus_summaries",
    "toolret_companions",
    "toolret_sparse_vectors",
    "toolret_corpus_vectors",
}
COPIES = {"toolret_corpus_vectors"}  # 0010
SPARSE = {"toolret_sparse_vectors"}  # 0008
COMPANIONS = {"toolret_companions"}  # 0007
SUMMARIES = {"toolret_summary_vectors", "toolret_corpus_summaries"}  # 0005
CATALOGS = {"toolret_catalogs"}  # 0004
TABLES = READABLE | {
    "toolret_pending_vectors",
    "toolret_feedback_turns",
    "toolret_feedback_events",
}
HEAD = "0010"


def _dbname(url: str) -> str:
    return url.split("/")[3].split("?")[0]


def _tables(pg_server: PgServer, dbname: str) -> set[str]:
    rows = pg_server.execute(
        "SELECT relname FROM pg_class WHERE relname LIKE 'toolret%' AND relkind = 'r'", dbname
    )
    return {row[0] for row in rows}


def test_upgrade_creates_tables_extension_role_and_disables_rls(
    pg_server: PgServer, empty_database_url: str
) -> None:
    dbname = _dbname(empty_database_url)
    migrate(empty_database_url)

    assert _tables(pg_server, dbname) == TABLES | {VERSION_TABLE}
    assert pg_server.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'", dbname)
    rls = pg_server.execute(
        "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
        "WHERE relname LIKE 'toolret_%' AND relkind = 'r' AND relname <> 'toolret_alembic_version'",
        dbname,
    )
    assert {row[0] for row in rls} == TABLES
    assert all(not row[1] and not row[2] for row in rls)
    role = pg_server.execute(
        f"SELECT rolcanlogin FROM pg_roles WHERE rolname = '{READER_ROLE}'", dbname
    )
    assert role == [(False,)]
    grants = pg_server.execute(
        "SELECT table_name, privilege_type FROM information_schema.role_table_grants "
        f"WHERE grantee = '{READER_ROLE}'",
        dbname,
    )
    assert set(grants) == {(table, "SELECT") for table in READABLE}
    writer = pg_server.execute(
        "SELECT table_name, privilege_type FROM information_schema.role_table_grants "
        "WHERE grantee = 'toolret_catalog_writer'",
        dbname,
    )  # 0004: what a toolret serve that registers catalogs needs, and nothing more
    assert set(writer) == {
        ("toolret_catalogs", privilege) for privilege in ("SELECT", "INSERT", "UPDATE", "DELETE")
    }
    columns = pg_server.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'toolret_vectors'",
        dbname,
    )
    assert "tenant_id" not in {row[0] for row in columns}
    indexes = pg_server.execute(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'toolret_corpus_documents'", dbname
    )
    assert "toolret_corpus_documents_tool" in {row[0] for row in indexes}  # 0003, blended score
    assert "toolret_vectors_doc_key_hash" in _indexes(pg_server, dbname)  # 0005, key look-ups
    assert "sparse" in _columns(pg_server, dbname, "toolret_corpora")  # 0008, sparse heads


def _columns(pg_server: PgServer, dbname: str, table: str) -> set[str]:
    rows = pg_server.execute(
        f"SELECT column_name FROM information_schema.columns WHERE table_name = '{table}'", dbname
    )
    return {row[0] for row in rows}


def _indexes(pg_server: PgServer, dbname: str) -> set[str]:
    rows = pg_server.execute(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'toolret_vectors'", dbname
    )
    return {row[0] for row in rows}


def test_downgrade_removes_everything_and_upgrade_works_again(
    pg_server: PgServer, empty_database_url: str
) -> None:
    dbname = _dbname(empty_database_url)
    migrate(empty_database_url)
    downgrade_database(empty_database_url)

    assert _tables(pg_server, dbname) == {VERSION_TABLE}
    assert not pg_server.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'", dbname)
    assert pg_server.execute(f"SELECT count(*) FROM {VERSION_TABLE}", dbname) == [(0,)]

    migrate(empty_database_url)
    assert _tables(pg_server, dbname) == TABLES | {VERSION_TABLE}
    assert pg_server.execute(f"SELECT version_num FROM {VERSION_TABLE}", dbname) == [(HEAD,)]


def _sparse_storage(pg_server: PgServer, dbname: str) -> str:
    rows = pg_server.execute(
        "SELECT attstorage FROM pg_attribute "
        "WHERE attrelid = 'toolret_sparse_vectors'::regclass AND attname = 'sparse'",
        dbname,
    )
    value = rows[0][0]
    return value.decode() if isinstance(value, bytes) else str(value)


def _source_type(pg_server: PgServer, dbname: str) -> str:
    rows = pg_server.execute(
        "SELECT data_type FROM information_schema.columns "
        "WHERE table_name = 'toolret_catalogs' AND column_name = 'source'",
        dbname,
    )
    return str(rows[0][0])


def test_catalogs_stored_as_jsonb_become_json_hashed_on_their_stored_text(
    pg_server: PgServer, empty_database_url: str
) -> None:
    """A row written by 0005 (jsonb, a hash of another text) is kept as the text jsonb gives
    it, and hashed as the service hashes what it stores, so every process builds the same tools
    from it and a registration sent again as written replaces it."""
    dbname = _dbname(empty_database_url)
    migrate(empty_database_url)
    assert _toolret("db", "downgrade", "0005", "--url", empty_database_url).exit_code == 0
    source = json.dumps(registration())
    pg_server.execute(
        "INSERT INTO toolret_catalogs (name, format, source, content_hash) "
        f"VALUES ('crm', 'openai', '{source.replace(chr(39), chr(39) * 2)}'::jsonb, 'old')",
        dbname,
    )
    assert _toolret("db", "upgrade", "--url", empty_database_url).exit_code == 0

    assert _source_type(pg_server, dbname) == "json"
    [(text, digest)] = pg_server.execute(
        "SELECT source::text, content_hash FROM toolret_catalogs", dbname
    )
    assert digest == content_hash(text)
    assert from_stored(text).names == from_stored(text).names
    assert len(from_stored(text)) == 20
    assert content_hash(stored_text(CatalogRegistration.model_validate(registration()))) != digest


def _toolret(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), terminal_width=200)


def test_db_downgrade_goes_one_step_back_by_default_then_to_a_named_revision(
    pg_server: PgServer, empty_database_url: str
) -> None:
    dbname = _dbname(empty_database_url)
    url = ["--url", empty_database_url]
    assert _toolret("db", "upgrade", *url).exit_code == 0
    assert database_revision(empty_database_url) == HEAD

    copies = _toolret("db", "downgrade", *url)
    assert copies.exit_code == 0, copies.output
    assert copies.output == "database downgraded from 0010 to 0009\n"
    assert _tables(pg_server, dbname) == (TABLES - COPIES) | {VERSION_TABLE}
    assert "copied" not in _columns(pg_server, dbname, "toolret_corpora")

    inline = _toolret("db", "downgrade", *url)
    assert inline.exit_code == 0, inline.output
    assert inline.output == "database downgraded from 0009 to 0008\n"
    assert _sparse_storage(pg_server, dbname) == "e"

    sparse = _toolret("db", "downgrade", *url)
    assert sparse.exit_code == 0, sparse.output
    assert sparse.output == "database downgraded from 0008 to 0007\n"
    assert _tables(pg_server, dbname) == (TABLES - COPIES - SPARSE) | {VERSION_TABLE}
    assert "sparse" not in _columns(pg_server, dbname, "toolret_corpora")

    together = _toolret("db", "downgrade", *url)
    assert together.exit_code == 0, together.output
    assert together.output == "database downgraded from 0007 to 0006\n"
    assert _tables(pg_server, dbname) == (TABLES - COPIES - SPARSE - COMPANIONS) | {VERSION_TABLE}

    as_written = _toolret("db", "downgrade", *url)
    assert as_written.exit_code == 0, as_written.output
    assert as_written.output == "database downgraded from 0006 to 0005\n"
    assert _source_type(pg_server, dbname) == "jsonb"

    summaries = _toolret("db", "downgrade", *url)
    assert summaries.exit_code == 0, summaries.output
    assert summaries.output == "database downgraded from 0005 to 0004\n"
    before_0006 = TABLES - COPIES - SPARSE - COMPANIONS - SUMMARIES
    assert _tables(pg_server, dbname) == before_0006 | {VERSION_TABLE}
    assert "toolret_vectors_doc_key_hash" not in _indexes(pg_server, dbname)

    stepped = _toolret("db", "downgrade", *url)
    assert stepped.exit_code == 0, stepped.output
    assert stepped.output == "database downgraded from 0004 to 0003\n"
    before_0004 = before_0006 - CATALOGS
    assert _tables(pg_server, dbname) == before_0004 | {VERSION_TABLE}

    stepped = _toolret("db", "downgrade", *url)
    assert stepped.output == "database downgraded from 0003 to 0002\n"
    # 0003 adds an index only
    assert _tables(pg_server, dbname) == before_0004 | {VERSION_TABLE}

    second = _toolret("db", "downgrade", *url)
    assert second.output == "database downgraded from 0002 to 0001\n"
    assert _tables(pg_server, dbname) == {
        "toolret_vectors",
        "toolret_pending_vectors",
        "toolret_corpora",
        "toolret_corpus_documents",
        VERSION_TABLE,
    }

    assert _toolret("db", "upgrade", *url).exit_code == 0
    back = _toolret("db", "downgrade", "-10", *url)  # a negative step, not an option
    assert back.output == "database downgraded from 0010 to base (no toolret tables)\n"
    assert _tables(pg_server, dbname) == {VERSION_TABLE}
    assert database_revision(empty_database_url) is None

    nothing = _toolret("db", "downgrade", *url)
    assert nothing.exit_code == 0
    assert nothing.output == "the database has no toolret schema: nothing to downgrade\n"

    assert _toolret("db", "upgrade", *url).exit_code == 0
    named = _toolret("db", "downgrade", "0001", *url)
    assert named.output == "database downgraded from 0010 to 0001\n"


@pytest.mark.parametrize("revision", ["0011", "head", "-0", "--bogus"])
def test_db_downgrade_to_an_unknown_revision_is_one_line_naming_the_known_ones(
    empty_database_url: str, revision: str
) -> None:
    migrate(empty_database_url)
    result = _toolret("db", "downgrade", revision, "--url", empty_database_url)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [
        f"error: toolret has no schema revision {revision!r}: give one of 0001, 0002, 0003, "
        "0004, 0005, 0006, 0007, 0008, 0009, 0010, base (remove toolret's tables), or -N (N steps "
        "back)"
    ]
    assert database_revision(empty_database_url) == HEAD


def test_db_downgrade_past_the_base_is_one_line(empty_database_url: str) -> None:
    migrate(empty_database_url)
    result = _toolret("db", "downgrade", "-11", "--url", empty_database_url)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: downgrading")
    assert "-11" in lines[0]
    assert database_revision(empty_database_url) == HEAD


def test_upgrade_twice_is_a_no_op(pg_server: PgServer, empty_database_url: str) -> None:
    migrate(empty_database_url)
    migrate(empty_database_url)
    dbname = _dbname(empty_database_url)
    assert pg_server.execute(f"SELECT version_num FROM {VERSION_TABLE}", dbname) == [(HEAD,)]


async def test_reader_role_can_select_and_cannot_write(database_url: str) -> None:
    async with VectorStore.from_url(database_url) as store:
        row = VectorRow("a" * 64, "t", "document", "description", "text", np.ones(3, np.float32))
        assert await store.write("m@3", [row]) == 1
        assert await store.publish("m@3", "corpus", [("t", "a" * 64)])

    connection = await asyncpg.connect(database_url)
    try:
        await connection.execute(f"SET ROLE {READER_ROLE}")
        assert await connection.fetchval("SELECT count(*) FROM toolret_vectors") == 1
        assert await connection.fetchval("SELECT count(*) FROM toolret_corpora") == 1
        assert await connection.fetchval("SELECT count(*) FROM toolret_corpus_documents") == 1
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await connection.execute(
                "INSERT INTO toolret_corpora (model_id, corpus_hash, documents) "
                "VALUES ('m', 'c', 0)"
            )
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await connection.execute("DELETE FROM toolret_vectors")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await connection.execute("UPDATE toolret_vectors SET published_at = now()")
    finally:
        await connection.close()


def test_database_urls_are_driven_through_asyncpg() -> None:
    assert asyncpg_url("postgres://u:p@h:5/db") == "postgresql+asyncpg://u:p@h:5/db"
    assert (
        asyncpg_url("postgresql+psycopg://u@h/db?sslmode=require")
        == "postgresql+asyncpg://u@h/db?ssl=require"
    )


async def test_a_corpus_indexed_before_0008_gains_sparse_vectors_on_its_next_run(
    pg_server: PgServer, empty_database_url: str
) -> None:
    """At 0007 a corpus is indexed (dense only); 0008 gives it an empty list of sparse heads;
    the next indexing run with the bundled model's head writes every document's sparse vector
    and lists the head, without re-embedding anything."""
    from tests.support.embedders import SparseCountingEmbedder
    from tests.support.tools import crm_catalog
    from toolret.indexing._run import index_catalog

    dbname = _dbname(empty_database_url)
    await asyncio.to_thread(migrate, empty_database_url)
    embedder = SparseCountingEmbedder()
    catalog = crm_catalog()
    store = VectorStore.from_url(empty_database_url)
    try:
        before = await index_catalog(store, embedder.inner_without_head(), catalog)
        assert before.published
        # as if indexed at 0007 (this toolret publishes what 0010 added): back, then up again
        await asyncio.to_thread(downgrade_database, empty_database_url, "0007")
        await asyncio.to_thread(migrate, empty_database_url)
        assert pg_server.execute("SELECT sparse FROM toolret_corpora", dbname) == [([],)]
        after = await index_catalog(store, embedder, catalog)
    finally:
        await store.aclose()
    assert (after.embedded, after.sparse_encoded) == (0, after.documents)
    head = embedder.sparse_head.key(embedder.profile.sparse_latents)
    assert pg_server.execute("SELECT sparse FROM toolret_corpora", dbname) == [([head],)]
    [(count,)] = pg_server.execute("SELECT count(*) FROM toolret_sparse_vectors", dbname)
    assert count == after.documents


async def test_sparse_vectors_written_before_0009_move_into_their_rows(
    pg_server: PgServer, empty_database_url: str
) -> None:
    """At 0008 a vector of 512 latents goes to TOAST; 0009 rewrites it into its row, unchanged."""
    from toolret.embedders._sparse import SparseVector

    dbname = _dbname(empty_database_url)
    await asyncio.to_thread(migrate, empty_database_url)
    await asyncio.to_thread(downgrade_database, empty_database_url, "0008")
    rng = np.random.default_rng(8)
    indices = rng.choice(16384, size=512, replace=False)
    vector = SparseVector.of(indices, rng.random(512), 16384)
    store = VectorStore.from_url(empty_database_url)
    try:
        assert await store.write_sparse("m", "h@16384/512", [("key", vector)]) == 1
    finally:
        await store.aclose()
    chunks = "SELECT count(*) FROM pg_toast.pg_toast_{oid}"
    oid = pg_server.execute("SELECT 'toolret_sparse_vectors'::regclass::oid", dbname)[0][0]
    assert pg_server.execute(chunks.format(oid=oid), dbname)[0][0] > 0
    stored = pg_server.execute("SELECT sparse::text FROM toolret_sparse_vectors", dbname)
    await asyncio.to_thread(migrate, empty_database_url)
    assert pg_server.execute(chunks.format(oid=oid), dbname) == [(0,)]
    assert pg_server.execute("SELECT sparse::text FROM toolret_sparse_vectors", dbname) == stored
    assert _sparse_storage(pg_server, dbname) == "m"


async def test_a_small_corpus_published_before_0010_is_copied_by_it_and_ranks_the_same(
    pg_server: PgServer, empty_database_url: str
) -> None:
    """A small corpus and a larger one published, a third only registered, at 0009 (published
    at the head, then 0010 undone: its copies dropped); 0010 copies the small published one's
    vectors (as publishing now does) and marks it, and it ranks as by probes (the statement's
    other branch, what it ran before); the others keep being ranked by probes."""
    from tests.support.fixtures_pg import publish_random, synthetic_catalog, write_vectors
    from toolret.store._sql import COPY_LIMIT, CatalogQuery

    dbname = _dbname(empty_database_url)
    await asyncio.to_thread(migrate, empty_database_url)
    small = synthetic_catalog(30, examples=2, core=1)
    large = synthetic_catalog(COPY_LIMIT + 1, prefix="large")
    pending = synthetic_catalog(5, prefix="pending")
    rng = np.random.default_rng(40)
    probes = rng.standard_normal((3, 384)).astype(np.float32)
    query = CatalogQuery.build(small, "m@384", "query")
    store = VectorStore.from_url(empty_database_url)
    try:
        await publish_random(store, small, "m@384", rng)
        await publish_random(store, large, "m@384", rng)
        vectors = {doc.key: probes[0] for _, doc in pending.documents("query")}
        await write_vectors(store, pending, "m@384", vectors)
        pairs = [(name, doc.key) for name, doc in pending.documents("query")]
        await store.register("m@384", pending.corpus_hash("m@384", "query"), pairs)
        await asyncio.to_thread(downgrade_database, empty_database_url, "0009")
        await store.aclose()  # its connections' prepared statements name the dropped table
        store = VectorStore.from_url(empty_database_url)
        await asyncio.to_thread(migrate, empty_database_url)
        after = [await store.rank(query, probe, limit=12) for probe in probes]
        copied = pg_server.execute(
            "SELECT c.corpus_hash, c.copied, count(v.corpus_id) FROM toolret_corpora c "
            "LEFT JOIN toolret_corpus_vectors v ON v.corpus_id = c.id GROUP BY c.id",
            dbname,
        )
        pg_server.execute("UPDATE toolret_corpora SET copied = false", dbname)
        probed = [await store.rank(query, probe, limit=12) for probe in probes]
    finally:
        await store.aclose()
    assert [r.scores for r in after] == [r.scores for r in probed]
    assert all(r.published for r in after)
    assert set(copied) == {
        (query.corpus_hash, True, len(small.documents("query"))),
        (large.corpus_hash("m@384", "query"), False, 0),
        (pending.corpus_hash("m@384", "query"), False, 0),
    }
