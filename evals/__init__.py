"""Retrieval evals: the 44-tool CRM roster, multilingual cases, the runner and its report.

``toolret.demo.roster.catalog`` (kept in the package as ``toolret.demo.roster``) is the demo and
eval catalog; ``python -m evals.recall.runner`` (or ``toolret eval``) measures recall and narrowing
per language, mode and embedder.
"""
