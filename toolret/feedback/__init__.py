"""Feedback and learning: what a turn called against what it bound, and what the worker learns.

- ``signals``: a turn's hits and misses, read off its transcript (``TurnFeedback``);
- ``sender``: the client's bounded buffer that drains feedback into the worker's queue;
- ``store``: the worker's writes and the operator's reads of feedback in Postgres;
- ``learning``: which misses become learned example vectors;
- ``companion_store``: the counts of tools called together, which the worker writes.
"""
