"""``make bench``: every benchmark, one after the other, in one run.

- ``evals.perf.select``: the request path — select() latency and throughput at 44 to 100,000
  tools in the table, against exact numpy cosine and BM25 measured in the same run; the
  database step against a bare ``SELECT 1``; indexed recall against exact; example vectors.
- ``evals.perf.fleet``: a 527-tool MCP-like fleet — select() in dense and hybrid mode against
  the query embedding plus the ranking statement, measured in one run; what ranking a
  message's clauses would add.
- ``evals.perf.reindex``: reindexing 44 and 1,000 tools with the bundled model, and the cost
  of a one-description change.
- ``evals.perf.faults``: the fault matrix — each fault produced for real (Postgres stopped and
  restarted, a stuck query, an exhausted pool, an unmigrated database, Redis down, a worker
  killed mid-reindex, a stale embedded server) → mode, reason, worst latency.
- ``evals.perf.load``: a long message (100 to 64,000 characters) uncut and cut to the window; a
  query during an indexing run; select() at concurrency 24 against the bare embedder's
  single-thread rate, per OpenMP wait policy and thread count.
- ``evals.perf.http``: ``POST /v1/select`` on ``toolret serve`` against ``client.select`` in
  process: p50 latency, an HTTP round trip, throughput at 24 callers, CPU per selection.

Each writes its numbers to ``evals/out/`` as JSON and prints a table. Compare ratios measured in
one run, not absolute times: the machines are noisy.
"""

from __future__ import annotations

import sys

from evals.perf import faults, fleet, http, load, reindex, select


def main() -> int:
    """Run every benchmark with its default sizes."""
    status = select.main([])
    status = fleet.main([]) or status
    sys.argv = sys.argv[:1]
    reindex.main()
    status = faults.main([]) or status
    status = load.main([]) or status
    return http.main([]) or status


if __name__ == "__main__":
    raise SystemExit(main())
