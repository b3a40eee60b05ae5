"""Measurements from a checkout: recall on the roster (``evals.recall``), latency (``evals.perf``),
and the studies behind single choices (``evals.studies``); the roster's cases in ``evals.data``.

``toolret.demo.roster`` (in the package) is the demo and eval catalog; ``python -m evals.recall``
(``toolret recall``, ``make eval``) measures recall on its two halves with the one recall
runner, ``toolret.recall``.
"""
