"""The 44-tool CRM roster the evals measure; it lives in the package (``toolret.demo_roster``).

Re-exported here so the eval harness and anything written against ``evals.roster`` keep working.
"""

from toolret.demo_roster import (
    CORE,
    EVAL_MIN_DESCRIPTION_LENGTH,
    TOOLS,
    build_catalog,
    catalog,
    catalog_without_examples,
)

__all__ = [
    "CORE",
    "EVAL_MIN_DESCRIPTION_LENGTH",
    "TOOLS",
    "build_catalog",
    "catalog",
    "catalog_without_examples",
]
