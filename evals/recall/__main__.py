"""``python -m evals.recall [DIR ...]``: recall on the roster's halves and fresh sets, then gate.

The one recall runner (``toolret.recall``, ``toolret recall DIR``) measures the roster's tuning
half, held-back half and three fresh held-back sets (``evals.data.fresh``, ``fresh2``, ``fresh3``,
reported beside the halves, never gated) as five benchmark sets, beside any benchmark folders
given, with both retrievers; then the gate (``evals.recall.gate``) judges the shipped
configuration on the held-back half. ``--no-held-back`` leaves every held-back set out (their
rows are not even printed, and the gate, which reads the held-back half, does not run): for runs
made while choosing, so nothing chosen is seen against them. Exits 1 when the gate fails or the
client's selections differ from the in-memory retriever's, 2 on a folder that cannot be measured.
"""

from evals.recall.roster_sets import measure

if __name__ == "__main__":
    raise SystemExit(measure())
