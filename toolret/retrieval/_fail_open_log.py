"""``FailOpenLog``: an outage is logged once per cause, not on every selection or search.

An outage that sends the full roster on every request is one warning when it starts (and one on
each change of cause) and one info line when selections narrow again. Each retriever keeps one
log for its selections and one for find_tools' searches (``FIND_TOOLS``).
"""

from __future__ import annotations

import logging

from toolret.retrieval._breaker import EmbedderDown, StoreDown

__all__ = ["FAIL_OPEN_LOG", "FIND_TOOLS_LOG", "FailOpenLog"]

log = logging.getLogger("toolret.selection")


class FailOpenLog:
    """Logs fail-open on ``toolret.selection`` once per change of reason (a ``Reason``), not
    per call; ``lines`` say what falls open, how long, and that it works again (``SELECTIONS``,
    ``FIND_TOOLS``).

    Three causes are logged elsewhere, and are debug lines here: ``not_indexed`` is a state of
    one catalog, which the client reports when it asks the worker to index it;
    ``schema_missing`` is logged once, with its fix, by the store; a dependency known to be
    down, by its breaker (``toolret.retrieval._breaker``).
    """

    QUIET = frozenset({"not_indexed", "schema_missing"})
    SELECTIONS = (
        "sending the full roster",
        "selections fall open for this reason until it changes or they narrow again",
        "selections narrow again",
    )
    FIND_TOOLS = (
        "find_tools cannot search",
        "it answers so for this reason until it changes or it searches again",
        "find_tools searches again",
    )

    def __init__(self, lines: tuple[str, str, str] = SELECTIONS) -> None:
        self.lines = lines
        self.reason: str | None = None

    def failed(self, reason: str, error: BaseException) -> None:
        quiet = reason in self.QUIET or isinstance(error, (EmbedderDown, StoreDown))
        if quiet or reason == self.reason:
            log.debug("toolret: falling open (%s): %r", reason, error)
            return
        self.reason = reason
        start, lasting, _ = self.lines
        log.warning(
            "toolret: %s (%s): %s; %s (logged then)", start, reason, _describe(error), lasting
        )

    def narrowed(self) -> None:
        if self.reason is not None:
            log.info("toolret: %s (after %s)", self.lines[2], self.reason)
            self.reason = None


FAIL_OPEN_LOG = FailOpenLog()
"""The fail-open log of selections made without a retriever's own."""
FIND_TOOLS_LOG = FailOpenLog(FailOpenLog.FIND_TOOLS)
"""The same for find_tools searches made without a retriever's own."""


def _describe(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
