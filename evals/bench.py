"""``make bench``: every benchmark, one after the other, in one run.

- ``evals.bench_select``: the request path — select() latency and throughput at 44 to 100,000
  tools in the table, against exact numpy cosine and BM25 measured in the same run; the
  database step against a bare ``SELECT 1``; indexed recall against exact; example vectors.
- ``evals.bench_reindex``: reindexing 44 and 1,000 tools with the bundled model, and the cost
  of a one-description change.
- ``evals.bench_faults``: the fault matrix — each fault produced for real (Postgres stopped and
  restarted, a stuck query, an exhausted pool, an unmigrated database, Redis down, a worker
  killed mid-reindex, a stale embedded server) → mode, reason, worst latency.

Each writes its numbers to ``evals/out/`` as JSON and prints a table. Compare ratios measured in
one run, not absolute times: the machines are noisy.
"""

from __future__ import annotations

import sys

from evals import bench_faults, bench_reindex, bench_select


def main() -> int:
    """Run every benchmark with its default sizes."""
    status = bench_select.main([])
    sys.argv = sys.argv[:1]
    bench_reindex.main()
    return status or bench_faults.main([])


if __name__ == "__main__":
    raise SystemExit(main())
