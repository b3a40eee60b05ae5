"""Recall on the roster: its halves as benchmark sets (``roster``, ``python -m evals.recall``),
the CI gate (``gate``) and the derivation of its thresholds (``calibrate``)."""
