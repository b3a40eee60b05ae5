"""Recall on the roster: its halves as benchmark sets (``roster_sets``, ``python -m evals.recall``),
the CI gate (``gate``) and the derivation of its thresholds (``calibrate``)."""
