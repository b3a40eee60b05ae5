"""``python -m evals.recall [DIR ...]``: recall on the roster's two halves, then the CI gate.

The one recall runner (``toolret.recall``, ``toolret recall DIR``) measures the roster's tuning
half and held-back half as two benchmark sets, beside any benchmark folders given, with both
retrievers; then the gate (``evals.recall.gate``) judges the shipped configuration on the
held-back half. ``--no-held-back`` leaves the held-back half out (its rows are not even
printed, and the gate, which reads it, does not run): for runs made while choosing, so nothing
chosen is seen against it. Exits 1 when the gate fails or the client's selections differ from
the in-memory retriever's, 2 on a folder that cannot be measured.
"""

from evals.recall.roster_sets import measure

if __name__ == "__main__":
    raise SystemExit(measure())
