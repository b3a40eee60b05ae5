"""Tools used together, in Postgres: ``toolret_companions`` (created by the migration 0007).

One row per tool, ``companion = tool_name``: the turns the model called it in; and one per pair
of tools called in the same turn, ``tool_name < companion``: the turns it called both. Tool
names and counts only: no turn, no catalog, no model, no message, no time but the row's last
update. Keyed by tool name alone, so a tool's companions follow it through description edits,
new models and catalogs that grow (a gateway's fleet); two catalogs that give one name to
different tools share its counts (MCP fleets name tools ``server__tool``, which keeps them apart).

Counts decay: a turn counts ``0.5 ** (its age / HALF_LIFE_DAYS)``, so what users do now outweighs
what they did months ago. The worker folds the decay into a row's count whenever it adds a turn
(``UPSERT``); readers apply what accrued since (``COUNTS``); the maintenance cron deletes rows
worth less than ``GC_BELOW`` turns. The worker writes (``toolret.feedback._companion_store``);
the request path reads (``toolret.store._read.StoreReads.companion_counts``).
"""

from __future__ import annotations

__all__ = ["COUNTS", "FORGET", "GC", "GC_BELOW", "HALF_LIFE_DAYS", "HAS_TABLE", "UPSERT"]

HALF_LIFE_DAYS = 30.0
"""A turn a month old counts half: a choice (no data with dates was at hand to measure it)."""
GC_BELOW = 0.1
"""Rows worth less than this many turns are deleted: one turn unrepeated for about 100 days."""

_HALF_LIFE_SECONDS = HALF_LIFE_DAYS * 86400.0


def _decayed(row: str) -> str:
    """A row's count decayed to now."""
    age = f"extract(epoch FROM (now() - {row}.updated_at))"
    return f"{row}.turns * power(0.5, greatest({age}, 0) / {_HALF_LIFE_SECONDS!r})"


HAS_TABLE = "SELECT to_regclass('toolret_companions') IS NOT NULL"
"""Whether the database has the table (it is one migration newer than the ranking's)."""

COUNTS = f"""
SELECT c.tool_name, c.companion, {_decayed("c")} AS turns
FROM toolret_companions c
WHERE c.tool_name = ANY ($1::text[]) AND c.companion = ANY ($1::text[])
"""
"""Every count among the tools named (``$1``), decayed to now (the request path's read)."""

UPSERT = f"""
INSERT INTO toolret_companions AS c (tool_name, companion, turns, updated_at)
SELECT a, b, 1, now() FROM unnest(CAST(:tools AS text[]), CAST(:companions AS text[])) AS u(a, b)
ON CONFLICT (tool_name, companion) DO UPDATE
SET turns = {_decayed("c")} + 1, updated_at = now()
"""
"""Add one turn to each (tool, companion) row named, creating rows as needed."""

GC = f"""
DELETE FROM toolret_companions c
WHERE c.turns * power(0.5, greatest(extract(epoch FROM
      (coalesce(CAST(:now AS timestamptz), now()) - c.updated_at)), 0) / {_HALF_LIFE_SECONDS!r})
      < {GC_BELOW!r}
"""
"""Delete rows worth less than ``GC_BELOW`` turns at ``:now`` (None: now)."""

FORGET = "DELETE FROM toolret_companions WHERE tool_name = :tool OR companion = :tool"
"""Delete every count of one tool: its own and its pairs."""
