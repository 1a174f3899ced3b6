"""A seat's wish to leave a table match, so that its play loop resigns for it.

Leaving a table must be a signed resignation that every seat records (the
match then ends for all at once, and the replay says who left), not a
silent link that the others wait out for the grace period. The screens
(``q``), the leaving signals (SIGTERM, SIGHUP) and tests call
``Leaving.leave``; ``tablenet.play_seat`` races each of its waits (the
person's choice, the next record) against it with ``unless_leaving`` and
then signs the resignation itself, in chain order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TypeVar

from p2p66.ui.race import before

T = TypeVar("T")


@dataclass(eq=False)
class Leaving:
    """Set once, with the reason the resignation carries (``the program was stopped``)."""

    reason: str | None = None
    _set: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    def leave(self, reason: str) -> None:
        """Ask to leave (the first reason given is the one signed)."""
        if self.reason is None:
            self.reason = reason
            self._set.set()

    async def wait(self) -> str:
        await self._set.wait()
        assert self.reason is not None
        return self.reason


class Left(Exception):
    """The seat asked to leave while ``unless_leaving`` waited."""


async def unless_leaving(awaitable: Awaitable[T], leaving: Leaving | None) -> T:
    """``awaitable``'s result; ``Left`` (and it is cancelled) if the seat leaves first."""
    if leaving is None:
        return await awaitable
    if leaving.reason is not None:
        asyncio.ensure_future(awaitable).cancel()
        raise Left
    done = await before(awaitable, leaving.wait())
    if done is None:
        raise Left
    return done[0]
