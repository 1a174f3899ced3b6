"""The first of two waits: a thing waited for, or what makes it moot.

A seat waits for a person's move while a record may end the match, for a
record while the person may leave, for a change of the table while a line
may be typed. Each is this race: ``before(awaitable, stop)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def before(awaitable: Awaitable[T], stop: Awaitable[object]) -> tuple[T] | None:
    """``(result,)`` of ``awaitable``, or None if ``stop`` completes first (then
    ``awaitable`` is cancelled); whichever is left running is cancelled."""
    task = asyncio.ensure_future(awaitable)
    stopping = asyncio.ensure_future(stop)
    try:
        await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in (task, stopping):
            if not pending.done():
                pending.cancel()
    if task.done() and not task.cancelled():
        return (task.result(),)
    return None
