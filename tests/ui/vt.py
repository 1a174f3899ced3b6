"""A VT100 terminal for UI tests: a real prompt-toolkit session draws into ``pyte``.

The tests read the rows back, as a player would see them; the terminal
answers prompt-toolkit's cursor-position queries as a real one does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pyte
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput
from prompt_toolkit.output.vt100 import Vt100_Output

CURSOR_QUERY = "\x1b[6n"  # prompt-toolkit asks where the cursor is to know the rows below


class Terminal:
    """A VT100 terminal of a fixed size that remembers what is on screen."""

    def __init__(self, columns: int, rows: int) -> None:
        self.size = Size(rows=rows, columns=columns)
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.Stream(self.screen)
        self.encoding = "utf-8"
        self.keyboard: PipeInput | None = None  # where a real terminal answers queries

    def write(self, data: str) -> int:
        for n, piece in enumerate(data.split(CURSOR_QUERY)):
            if n and self.keyboard is not None:  # answer as a terminal does: row;column
                cursor = self.screen.cursor
                self.keyboard.send_text(f"\x1b[{cursor.y + 1};{cursor.x + 1}R")
            self.stream.feed(piece)
        return len(data)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise OSError("no file descriptor")

    def rows(self) -> list[str]:
        return [row.rstrip() for row in self.screen.display]

    def output(self) -> Vt100_Output:
        return Vt100_Output(self, lambda: self.size, term="xterm")  # type: ignore[arg-type]


async def until(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait for ``condition`` (polling the loop), or fail saying what never happened."""

    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(wait(), timeout)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None
