"""The gateway's warnings, said once per start per cause: the fleet's catalog warnings, and
any other cause a caller names (``SaidOnce.first``).

The gateway builds its catalog again whenever a server lists: while it starts, once per server
(each a partial catalog), and later whenever a server's tools change. The catalog would log its
summary of thin descriptions and refused schemas each time its set of warnings differs, so a
start said the same thin tool three or four times. ``SaidOnce`` keeps the catalog quiet while it
builds and logs only the warnings this gateway has not said yet (a tool, and what is wrong with
it), in the catalog's own words (``log_warnings``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator

from toolret._catalog import Catalog
from toolret._warnings import log_warnings

__all__ = ["SaidOnce"]


class SaidOnce:
    """Builds catalogs, logging each of their warnings once; tells whether a cause is new."""

    def __init__(self) -> None:
        self._said: set[tuple[str, str]] = set()

    def first(self, cause: str) -> bool:
        """Whether ``cause`` is said for the first time (and remember it said)."""
        new = ("", cause) not in self._said
        self._said.add(("", cause))
        return new

    def build(self, build: Callable[[], Catalog]) -> Catalog:
        """``build()``'s catalog, its warnings not said before logged."""
        with _quiet(logging.getLogger("toolret.catalog")):
            catalog = build()
        fresh = [w for w in catalog.warnings if (w.tool, w.kind) not in self._said]
        if fresh:
            self._said.update((w.tool, w.kind) for w in fresh)
            log_warnings(fresh, list(catalog))
        return catalog


@contextlib.contextmanager
def _quiet(logger: logging.Logger) -> Iterator[None]:
    """Drop ``logger``'s records while the block runs (synchronous: no other task logs then)."""

    def drop(record: logging.LogRecord) -> bool:
        return False

    logger.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)
