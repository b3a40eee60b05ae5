"""A message's two encoder passes, started together: the sparse one beside the dense one.

Both passes go to the model's thread at once, the dense one first. With one model thread they
run one after the other as before, and the sparse gate's language identification runs on the
event loop while the dense pass does; with two (``TOOLRET_MODEL_THREADS=2``) the passes
themselves overlap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["together"]

A = TypeVar("A")
B = TypeVar("B")


async def together(first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """``first`` and ``second`` run at once, ``first`` started first; if either fails (or the
    caller is cancelled) the other is cancelled and the failure raised, as if run in turn."""
    tasks = (asyncio.ensure_future(first), asyncio.ensure_future(second))
    try:
        return await tasks[0], await tasks[1]
    except BaseException:
        for task in tasks:
            if task.done():
                if not task.cancelled():
                    task.exception()  # retrieved: the failure raised here is the one that counts
            else:
                task.cancel()
        raise
