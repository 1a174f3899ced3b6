"""The full screen of a table of three or four: the board redrawn live above one input line.

A prompt-toolkit session stays up the whole match, on any ``SeatModel``. At
a local table a driver task plays the bots one move at a time (``delay``
seconds apart, a finished trick held a little longer) and redraws, so the
player watches each card land. Keys on an empty line: ``s`` the score
sheet, ``l`` the tricks of the hand, ``h`` a hint, ``?`` help, Esc closes a
panel. A hand's result, with the sheet, stays in view until Enter deals the
next hand. At a network seat the others' moves come by themselves
(``on_change`` redraws), the next hand is dealt without waiting for Enter,
and its result stays until the first move of the next hand (or Esc).
"""

from __future__ import annotations

import asyncio
import contextlib

from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import FormattedText, StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output
from prompt_toolkit.validation import ValidationError, Validator

from p2p66.engine.table import BiddingHand
from p2p66.ui.board_session import EMPTY_LINE, board_rows, board_session, shown_fragments
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.multi.hint import hint_line
from p2p66.ui.multi.render import board_lines, status_text
from p2p66.ui.multi.screens import (
    HELP_WORDS,
    HINT_WORDS,
    LEAVE,
    SHEET_WORDS,
    TRICK_WORDS,
    help_lines,
    refusal,
    result_lines,
    score_lines,
    tricks_lines,
)
from p2p66.ui.multi.seat import SeatModel

TRICK_HOLD = 2.5  # a finished trick stays this many bot delays before the next card
LINK_TICK = 1.0  # seconds between redraws at a network seat (a quiet link's seconds)


class MultiTerminal:
    """One player's full screen at a local table; ``run()`` plays until the end or leaving."""

    def __init__(
        self,
        table: SeatModel,
        style: TextStyle,
        *,
        delay: float = 0.0,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.table = table
        self.style = style
        self.delay = delay
        self.panel: tuple[str, ...] = ()
        self.panel_head = 1  # the panel's lines that stay however short the screen
        self._result: tuple[str, ...] = ()  # the panel of the last hand's result
        self._wake = asyncio.Event()
        self._hints: set[asyncio.Task[None]] = set()
        self.session = board_session(
            style,
            message=self._message,
            toolbar=lambda: self._shown(
                [("class:status", status_text(self.table, self._columns()))]
            ),
            validator=_Check(self),
            key_bindings=self._bindings(),
            input=input,
            output=output,
            refresh_interval=LINK_TICK if table.link_text() else 0,  # "quiet 12 s" counts up
        )
        table.on_change = self._changed

    async def run(self) -> SeatModel:
        driver = asyncio.create_task(self._drive())
        try:
            await self._prompt_loop()
        finally:
            self.table.on_change = None
            driver.cancel()
            for hint in self._hints:
                hint.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await driver
        return self.table

    async def _prompt_loop(self) -> None:
        table = self.table
        while True:
            try:
                text = await self.session.prompt_async()
            except (EOFError, KeyboardInterrupt):
                table.say("You leave the match.")
                return
            entry = text.strip()
            if entry.lower() in LEAVE or table.over is not None:
                if table.over is None:
                    table.say("You leave the match.")
                return
            if self._word(entry.lower()):
                continue
            if table.hand_over:
                if table.deals_on_enter:
                    table.next_hand()
                    self.show()
            elif entry or table.default_move() is not None:
                table.submit(entry)
                self.panel = ()
                self._moved()
            self._wake.set()

    def _word(self, word: str) -> bool:
        """A word that shows something rather than playing (help, sheet, tricks, hint)."""
        if word in HELP_WORDS:
            self.show(*help_lines(self.table))
        elif word in SHEET_WORDS:
            self.show(*score_lines(self.table, self._columns() - 1), head=2)
        elif word in TRICK_WORDS:
            self.show(*tricks_lines(self.table))
        elif word in HINT_WORDS:
            self._ask_hint()
        else:
            return False
        return True

    async def _drive(self) -> None:
        """Play the bots' moves one by one, redrawing after each, until it is your turn."""
        table = self.table
        while table.over is None:
            hand = table.hand
            move = await asyncio.to_thread(table.next_move)
            if move is None or table.hand is not hand:
                self._wake.clear()
                if table.hand is hand and table.next_move() is None:
                    await self._wake.wait()
                continue
            if self.delay:
                await asyncio.sleep(self.delay * (TRICK_HOLD if self._trick_just_won() else 1))
            if table.hand is hand:
                table.apply(*move)
                self._moved()
        self._wake.clear()

    def _changed(self) -> None:
        """The table changed by itself (a network seat's record came): redraw, wake the driver."""
        self._moved()
        self._wake.set()

    def _trick_just_won(self) -> bool:
        """A trick was completed by the last move: hold it so the player sees all of it."""
        hand = self.table.hand
        if isinstance(hand, BiddingHand):
            return bool(hand.tricks_log) and not hand.trick
        return hand is not None and hand.state.tricks_played > 0 and hand.state.lead_card < 0

    def _moved(self) -> None:
        """After any move: a finished hand's result and sheet take the panel; redraw."""
        if self.table.my_turn or self.table.hand_over:
            self.session.default_buffer.validation_error = None  # "wait" is stale now
        if self.table.hand_over:  # (an early end at a network seat keeps the story)
            said = result_lines(self.table, self._columns() - 1)
            self.panel, self.panel_head = tuple(said), len(said) - len(self.table.match.results)
            self._result = self.panel
        elif self.panel and self.panel[0].startswith(("Moves you can make", "Hint")):
            self.panel = ()  # the legal moves and a hint are stale after a move
        elif self.panel and self.panel is self._result and self.table.result_stale():
            self.panel = ()  # a network table's next hand is under way
        self.session.app.invalidate()

    def show(self, *lines: str, head: int = 1) -> None:
        self.panel, self.panel_head = lines, head
        self.session.app.invalidate()

    def _ask_hint(self) -> None:
        table = self.table
        if not table.my_turn:  # said at once, and kept while the bots play on
            whose = "the hand is over" if table.hand_over else f"it is {table.waiting_for}'s turn"
            self.show(f"No hint: {whose}, not yours.")
            return
        self.show("Hint: thinking...")
        self._hints.add(asyncio.get_running_loop().create_task(self._hint()))

    async def _hint(self) -> None:
        hand = self.table.hand
        line = await asyncio.to_thread(hint_line, self.table)
        if self.table.hand is hand:
            self.show(line)
        self._hints.discard(asyncio.current_task())

    def _columns(self) -> int:
        return self.session.output.get_size().columns

    def _message(self) -> FormattedText:
        lines = board_lines(
            self.table,
            width=self._columns(),
            rows=board_rows(self.session),
            panel=self.panel,
            panel_head=self.panel_head,
        )
        return self._shown([*lines, ("class:prompt", "> ")])

    def _shown(self, fragments: StyleAndTextTuples) -> FormattedText:
        return shown_fragments(fragments, self.style)

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        empty = EMPTY_LINE

        def word(key: str) -> None:
            @kb.add(key, filter=empty)
            def _(event: KeyPressEvent) -> None:
                self._word(key)

        for key in ("s", "l", "h", "?"):
            word(key)

        @kb.add("escape", eager=True)
        def _close(event: KeyPressEvent) -> None:
            table = self.table
            if not ((table.deals_on_enter and table.hand_over) or table.over is not None):
                self.show()

        return kb


class _Check(Validator):
    def __init__(self, ui: MultiTerminal) -> None:
        self.ui = ui

    def validate(self, document: Document) -> None:
        table = self.ui.table
        entry = document.text.strip().lower()
        if table.hand_over or table.over is not None or entry in LEAVE:
            return
        if not table.my_turn and entry not in HELP_WORDS | SHEET_WORDS | TRICK_WORDS | HINT_WORDS:
            raise ValidationError(len(document.text), f"wait: {table.waiting_for} to play")
        reason = refusal(table, document.text)
        if reason is not None:
            raise ValidationError(len(document.text), f"{reason} (Ctrl-U clears the line)")


def run_terminal(
    table: SeatModel,
    *,
    style: TextStyle | None = None,
    delay: float = 0.0,
    input: Input | None = None,
    output: Output | None = None,
) -> SeatModel:
    """The full screen, to the end of the match or until the player leaves."""
    ui = MultiTerminal(table, style or table.style, delay=delay, input=input, output=output)
    return asyncio.run(ui.run())
