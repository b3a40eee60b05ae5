"""What the caller got wrong, inside a hook that must not fail: logged once, handed to ``on_error``.

A framework hook (LangChain's middleware, PydanticAI's capability, the Agents SDK's hooks, the
per-round hook) sends every tool whenever it cannot select, so that the turn finishes. An outage
is the service's business: it falls open with its reason and the retriever logs it. A mistake
of the caller is not an outage, and must not look like one: a retriever used after ``aclose()``,
or tools that make no catalog (two with one name, a name the model APIs refuse). ``CallerErrors``
logs each distinct mistake once, at ERROR, with its fix, and hands every occurrence to the
caller's ``on_error`` (a callback that raises is logged, never lets the turn fail).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from toolret.errors import ToolretError

__all__ = ["CallerErrors", "OnError"]

log = logging.getLogger("toolret.selection")

OnError = Callable[[ToolretError], object]
"""Called with what the caller got wrong (a ``ToolretError``), each time a hook meets it."""


class CallerErrors:
    """The caller's mistakes a hook meets: each logged once, each handed to ``on_error``."""

    def __init__(self, on_error: OnError | None = None) -> None:
        self.on_error = on_error
        self._logged: set[tuple[type[BaseException], str]] = set()

    def report(self, error: ToolretError) -> None:
        """Log ``error`` (once per type and message) and hand it to ``on_error``."""
        key = (type(error), str(error))
        if key not in self._logged:
            self._logged.add(key)
            log.error("toolret: sending every tool: %s: %s", type(error).__name__, error)
        if self.on_error is None:
            return
        try:
            self.on_error(error)
        except Exception as failure:  # the callback must not fail the turn either
            log.warning("toolret: on_error raised %r", failure)
