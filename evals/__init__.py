"""Retrieval evals: the 44-tool CRM roster, multilingual cases, the runner and its report.

``evals.roster.catalog`` (kept in the package as ``toolret.demo_roster``) is the demo and eval
catalog; ``python -m evals.runner`` (or ``toolret eval``) measures recall and narrowing per
language, mode and embedder.
"""
