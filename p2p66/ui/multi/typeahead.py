"""A ``--plain`` network seat's input, read all the time, so that ``q`` works at any moment.

At a network table the others play at their own pace: a person who types
``q`` while waiting must be heard then (the seat resigns at once), not when
its turn comes. A line typed while it is not our turn is answered at once
("not your turn"), except from a pipe: piped lines are moves written ahead,
kept in order for our turn (and once one is kept, nothing after it is read
before then, so a ``q`` at the end of a script still comes last).
"""

from __future__ import annotations

import asyncio
import collections

from p2p66.ui.multi.screens import LEAVE
from p2p66.ui.plain import LineSource


def leaves(line: str | None) -> bool:
    """The end of input, or a word that leaves the match."""
    return line is None or line.strip().lower() in LEAVE


class TypeAhead:
    """``on_turn`` for the seat's question, ``while_waiting`` for the time between."""

    def __init__(self, source: LineSource, *, interactive: bool) -> None:
        self.source = source
        self.interactive = interactive
        self._kept: collections.deque[str | None] = collections.deque()

    async def on_turn(self) -> str | None:
        """The next line in order (a kept one first)."""
        if self._kept:
            return self._kept.popleft()
        return await self.source.readline()

    async def while_waiting(self) -> str | None:
        """The next line that needs an answer before our turn: a leaving word (or the end
        of input), or on a terminal any other line (to be told it is not our turn). Piped
        lines are kept for our turn; from the first one kept this waits for ever."""
        while not self._kept:
            line = await self.source.readline()
            if leaves(line) or self.interactive:
                return line
            self._kept.append(line)
        await asyncio.Event().wait()  # cancelled when our turn comes
        return None
