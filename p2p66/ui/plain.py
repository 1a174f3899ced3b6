"""``--plain``: the match as plain lines, one sentence each, for screen readers and pipes.

No cursor movement, no colour, no redraw: events are told as they happen,
and when it is the player's turn the situation is summed up in a few short
lines ending with the legal moves. Input is read only on the player's turn,
so moves piped in ahead are used in order.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import sys
import threading
import time
from collections.abc import Callable
from typing import Protocol

from p2p66.engine import IllegalMoveError, PlayerView
from p2p66.ui.bots import BotMoveError, TableBot
from p2p66.ui.cards_text import (
    TextStyle,
    ascii_only,
    card_text,
    cards_text,
    display_order,
    speak,
    suit_name,
)
from p2p66.ui.clock import MoveClock
from p2p66.ui.entry import AskHint, Help, Quit, Rejected, Repeat, ShowSheet, interpret, suggestions
from p2p66.ui.explain import help_lines
from p2p66.ui.hint import NO_HINTS, hint_line
from p2p66.ui.narrate import Voice
from p2p66.ui.render import plain, talon_fragments, tricks_text, turn_line
from p2p66.ui.scoresheet import sheet_lines
from p2p66.ui.screen import Screen, advance
from p2p66.ui.table import MatchOver, MovePlayed, Table, TableEvent

FINISH_SECONDS = 2.0  # how long a closing table may take to send its last events


class LineSource(Protocol):
    async def readline(self) -> str | None:
        """The next line without its newline, or None at end of input."""
        ...


class StdinLines:
    """Lines of ``sys.stdin`` read by a daemon thread, so waiting never blocks the loop."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        threading.Thread(target=self._read, name="p2p66-stdin", daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, line.rstrip("\r\n"))
        self._loop.call_soon_threadsafe(self._queue.put_nowait, None)

    async def readline(self) -> str | None:
        return await self._queue.get()


async def read_line(timeout: float | None) -> str | None:
    """One line of ``sys.stdin`` (``None`` at end of input or after ``timeout`` s).

    A daemon thread reads it, so a player who never answers cannot keep the
    process from exiting.
    """
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str | None] = loop.create_future()

    def deliver(text: str | None) -> None:
        if not answer.done():
            answer.set_result(text)

    def read() -> None:
        line = sys.stdin.readline()
        with contextlib.suppress(RuntimeError):  # the loop may be gone: nobody waits any more
            loop.call_soon_threadsafe(deliver, line.rstrip("\r\n") if line else None)

    threading.Thread(target=read, name="p2p66-stdin-line", daemon=True).start()
    try:
        return await asyncio.wait_for(answer, timeout)
    except TimeoutError:
        return None


class PlainUI:
    """Tells ``table``'s events through ``write`` and reads moves from ``lines``."""

    def __init__(
        self,
        table: Table,
        style: TextStyle,
        lines: LineSource,
        write: Callable[[str], None],
        hint_bot: TableBot | None = None,
        *,
        clock: bool = False,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.table = table
        self.style = style
        self.clock = MoveClock() if clock else None  # play --clock: each move's time, said
        self._now = now
        self.hint_bot = hint_bot  # only in practice games: p2p66 play
        self.lines = lines
        self.write: Callable[[str], None] = (
            (lambda text: write(ascii_only(text))) if style.ascii else write
        )
        self.screen = Screen(Voice(table.seat, table.names, style))
        self._told: PlayerView | None = None  # the position last summed up
        self._sent: PlayerView | None = None  # the position a move was submitted from
        self._ahead: collections.deque[str] = collections.deque()  # typed before our turn

    @property
    def opponent(self) -> str:
        return self.screen.voice.opponent

    async def run(self) -> Screen:
        """Play until the match is over, the player leaves or the input ends."""
        try:
            await self._loop()
        finally:
            await self.table.close()
            await self._drain()
        return self.screen

    async def _drain(self) -> None:
        """Tell what the closed table still says, up to MatchOver, for a short while."""
        with contextlib.suppress(TimeoutError):
            while self.screen.match_over is None:
                self._tell(await asyncio.wait_for(self.table.next_event(), FINISH_SECONDS))

    async def _loop(self) -> None:
        events: asyncio.Task[TableEvent] = asyncio.create_task(self.table.next_event())
        reading: asyncio.Task[str | None] | None = None
        try:
            while True:
                if not events.done():
                    await asyncio.sleep(0)  # lets an event already queued arrive
                if events.done():  # tell what happened before summing up the position
                    if self._tell(events.result()):
                        return
                    events = asyncio.create_task(self.table.next_event())
                    continue
                if self._ahead and self._ready():
                    if not await self._handle(self._ahead.popleft()):
                        self.write("You leave the match.")
                        return
                    continue
                if reading is None and self._ready():
                    reading = asyncio.create_task(self.lines.readline())
                waiting = {events} if reading is None else {events, reading}
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if events in done:
                    if self._tell(events.result()):
                        return
                    events = asyncio.create_task(self.table.next_event())
                if reading is not None and reading in done:
                    line = reading.result()
                    reading = None
                    if line is None:
                        self.write("Input ended: you leave the match.")
                        return
                    if not self.screen.my_turn and self.screen.match_over is None:
                        self._ahead.append(line)  # the turn passed meanwhile: keep it for ours
                        continue
                    if not await self._handle(line):
                        self.write("You leave the match.")
                        return
        finally:
            for task in (events, reading):
                if task is not None:
                    task.cancel()

    def _ready(self) -> bool:
        """True when a line should be read: our turn, in a position not yet moved from."""
        view = self.screen.view
        # Compared by value: a table may send a position again as a new object.
        if not self.screen.my_turn or view is None or view == self._sent:
            return False
        if view != self._told:
            self._told = view
            for line in situation(self.screen, view, self.style):
                self.write(line)
        return True

    def _tell(self, event: TableEvent) -> bool:
        """Apply and tell one event; True when the match is over."""
        self.screen, sentences = advance(self.screen, event)
        for sentence in sentences:
            self.write(sentence)
        if self.clock is not None:
            self.clock = self.clock.after(event, self.screen, self._now())
            if isinstance(event, MovePlayed) and event.seat == self.screen.voice.seat:
                self.write(self.clock.sentence())
        return isinstance(event, MatchOver)

    async def _handle(self, line: str) -> bool:
        """Act on one line; False when the player leaves."""
        entry = interpret(self.screen.view, line, self.opponent)
        if isinstance(entry, Quit):
            return False
        if isinstance(entry, Help):
            for text in self._help(entry.code):
                self.write(speak(text, self.style))
            self._retry()
        elif isinstance(entry, AskHint):
            if self.hint_bot is None:
                self.write(NO_HINTS)
            else:
                try:
                    line = await asyncio.to_thread(
                        hint_line, self.screen, self.hint_bot, self.style
                    )
                except BotMoveError as exc:
                    line = f"No hint: {exc}"
                self.write(line)
            self._retry()
        elif isinstance(entry, Repeat):
            view = self.screen.view
            if view is not None:
                for text in situation(self.screen, view, self.style):
                    self.write(text)
            self._retry()
        elif isinstance(entry, ShowSheet):
            for text in sheet_lines(self.screen.sheet, self.screen.voice):
                self.write(text)
            self._retry()
        elif isinstance(entry, Rejected):
            self.write(f"Not accepted: {speak(entry.reason, self.style)}.")
            self._retry()
        else:
            try:
                await self.table.submit(entry.code)
                self._sent = self.screen.view
            except IllegalMoveError as exc:
                self.write(f"Not accepted: {speak(exc.reason, self.style)}.")
                self._retry()
        return True

    def _retry(self) -> None:
        """Ask again for the same turn (the situation is told once per new position)."""
        if self.screen.my_turn:
            self.write("Your move?")

    def _help(self, code: int | None) -> list[str]:
        return help_lines(self.screen.view, code, self.opponent, self.style)


def situation(screen: Screen, view: PlayerView, style: TextStyle) -> list[str]:
    """What a player needs to choose a move, in a few sentences."""
    opponent = screen.voice.opponent
    order = display_order(view.hand, view.trump_suit)
    hand = ", ".join(f"{i + 1} {card_text(c, style)}" for i, c in enumerate(order))
    talon = plain(talon_fragments(view, opponent, style))
    legal = suggestions(view, "", style)
    return [
        f"Trumps are {suit_name(view.trump_suit)}; talon: {talon}.",
        f"Your hand: {hand}.",
        f"You have {view.my_points} card points and {tricks_text(view.tricks_won[view.seat])}"
        + (f", plus {view.my_held_points} held" if view.my_held_points else "")
        + f"; {opponent} has shown {cards_text(view.opponent_shown, style)}.",
        *turn_sentences(turn_line(screen, style)),
        "Legal moves: " + ", ".join(_spoken_move(s.text, style) for s in legal) + ".",
    ]


def turn_sentences(line: str) -> list[str]:
    """The turn line as whole sentences: what to do, then the keys ("Keys: c close, ? help.")."""
    what, *keys = line.split(" · ")
    sentences = [what if what.endswith((".", "?", ")")) else what + "."]
    if keys:
        sentences.append("Keys: " + ", ".join(keys) + ".")
    return sentences


def _spoken_move(text: str, style: TextStyle) -> str:
    """A legal move as the board writes it, still typeable: "10♣", "m K♥", "close"."""
    return speak(text.replace("marry:", "m "), style)
