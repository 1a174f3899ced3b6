"""The interactive screen: prompt-toolkit ``prompt_async`` with the board as its message.

The board, the status bar and the completions are all drawn from
``self.screen``; a background task feeds table events into it and asks
prompt-toolkit to redraw, so the opponent's moves appear while the player is
typing without touching the input line. Entries are checked by a validator
before they are accepted: an illegal or mistyped move stays on the line
with the reason under it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable, Iterator

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.data_structures import Size
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import (
    FormattedText,
    OneStyleAndTextTuple,
    StyleAndTextTuples,
)
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.shortcuts import print_formatted_text
from prompt_toolkit.validation import ValidationError, Validator

from p2p66.engine import IllegalMoveError
from p2p66.engine.cards import Card
from p2p66.ui.board_session import EMPTY_LINE, board_rows, board_session, shown_fragments
from p2p66.ui.bots import BotMoveError, TableBot
from p2p66.ui.cards_text import TextStyle, speak
from p2p66.ui.clock import MoveClock
from p2p66.ui.entry import (
    AskHint,
    Help,
    Quit,
    Rejected,
    Repeat,
    ShowSheet,
    Submit,
    interpret,
    suggestions,
)
from p2p66.ui.explain import help_lines
from p2p66.ui.hint import NO_HINTS, hint_line
from p2p66.ui.narrate import Voice
from p2p66.ui.render import board_lines, like, plain, status_bar, ui_style, wrap
from p2p66.ui.scoresheet import sheet_lines
from p2p66.ui.screen import Screen, advance
from p2p66.ui.table import (
    HandOver,
    HandStarted,
    MatchOver,
    Notice,
    PeerError,
    Table,
    TableEvent,
)

KEEP_READING = "(Type your next move, or press Esc, to close this.)"
KEY_WORDS = {"x": "exchange", "c": "close", "d": "declare", "p": "pass"}
CONFIRMED = frozenset({"c"})  # closing the talon decides a hand: the word waits for Enter
ECHOED = (HandOver, MatchOver, Notice, PeerError)
LEAVE_WINDOW = 3.0  # seconds within which a second Ctrl-C leaves the match
FINISH_SECONDS = 2.0  # how long a closing table may take to send its last events
CLOCK_TICK = 1.0  # seconds between redraws of the move clock


class TerminalUI:
    """One player's screen at ``table``; ``run()`` plays until the match ends or they leave."""

    def __init__(
        self,
        table: Table,
        style: TextStyle,
        *,
        input: Input | None = None,
        output: Output | None = None,
        patch: bool = True,
        hint_bot: TableBot | None = None,
        clock: bool = False,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.table = table
        self.clock = MoveClock() if clock else None  # play --clock: your time, in the status bar
        self._now = now
        self.style = style
        self.hint_bot = hint_bot  # only in practice games: p2p66 play
        self.screen = Screen(Voice(table.seat, table.names, style))
        self._patch = patch
        self._sheet = ui_style(style.color)
        self._hints: set[asyncio.Task[None]] = set()
        self._panel: tuple[str, ...] = ()  # help or a warning, shown in the board until Enter/Esc
        self._depth = None if style.color else ColorDepth.MONOCHROME
        self.session = board_session(
            style,
            message=self._message,
            toolbar=lambda: self._shown(
                status_bar(self.screen, self._size().columns, self._clock_words())
            ),
            validator=_MoveValidator(self),
            key_bindings=self._bindings(),
            input=input,
            output=output,
            refresh_interval=CLOCK_TICK if clock else 0,  # the clock ticks on the status bar
            completer=_LegalMoves(self),
            complete_while_typing=True,
            mouse_support=True,  # a click on a card of the hand plays it
        )
        _keep_mouse_handlers(self.session, self._message)
        self.session.default_buffer.on_text_changed += lambda _buffer: self._show()

    @property
    def opponent(self) -> str:
        return self.screen.voice.opponent

    async def run(self) -> Screen:
        """Play until the match is over or the player leaves; returns the last screen."""
        pump = asyncio.create_task(self._pump())
        try:
            with self._patched():
                await self._prompt_loop()
        finally:
            for hint in self._hints:
                hint.cancel()
            await self.table.close()
            await _finish(pump)
        return self.screen

    @contextlib.contextmanager
    def _patched(self) -> Iterator[None]:
        if not self._patch:
            yield
            return
        with patch_stdout(raw=True):
            yield

    async def _prompt_loop(self) -> None:
        default = ""
        interrupted = -LEAVE_WINDOW
        while self.screen.match_over is None:
            try:
                text = await self.session.prompt_async(default=default)
            except EOFError:
                self._say("You leave the match.")
                return
            except KeyboardInterrupt:
                # Leaving cannot be undone (the other player is told at once), so a
                # stray Ctrl-C only warns; a second one soon after leaves.
                now = time.monotonic()
                if now - interrupted < LEAVE_WINDOW:
                    self._say("You leave the match.")
                    return
                interrupted = now
                self._show("Press Ctrl-C again to leave the match (or type q).")
                continue
            self._show()
            default = ""
            if self.screen.match_over is not None:
                return
            entry = interpret(self.screen.view, text, self.opponent)
            if isinstance(entry, Quit):
                self._say("You leave the match.")
                return
            if isinstance(entry, Help):
                self._show(*self.help_lines(entry.code))
            elif isinstance(entry, ShowSheet):
                self._show(*self._sheet_lines())
            elif isinstance(entry, AskHint):
                self._ask_hint()
            elif isinstance(entry, Repeat):
                self._show("The board above shows the whole position.")
            elif isinstance(entry, Rejected):
                self._show(f"Not accepted: {entry.reason}.")
                default = text
            else:
                default = await self._submit(entry, text)

    async def _submit(self, entry: Submit, text: str) -> str:
        """Hand the move to the table; on refusal keep the text for another try."""
        try:
            await self.table.submit(entry.code)
        except IllegalMoveError as exc:
            self._show(f"Not accepted: {exc.reason}.")
            return text
        return ""

    async def _pump(self) -> None:
        """Apply table events to the screen as they come, and redraw."""
        while True:
            event = await self.table.next_event()
            was_mine = self.screen.my_turn
            self.screen, sentences = advance(self.screen, event)
            self._time(event)
            if self.screen.my_turn and not was_mine:
                self.session.default_buffer.validation_error = None  # "wait" is stale now
            if isinstance(event, HandOver):
                # the result stays in view, with the sheet, until the player types or presses Esc
                result = sentences[0] if sentences else "The hand is over."
                self._panel = (result, *self._sheet_lines(), KEEP_READING)
            elif isinstance(event, HandStarted) and KEEP_READING not in self._panel:
                self._panel = ()  # help about the last hand is stale in the new one
            if isinstance(event, ECHOED):
                self._say(*sentences)
            self.session.app.invalidate()
            if isinstance(event, MatchOver):
                self._leave_prompt()
                return

    def _time(self, event: TableEvent) -> None:
        if self.clock is not None:
            self.clock = self.clock.after(event, self.screen, self._now())

    def _clock_words(self) -> list[str] | None:
        return None if self.clock is None else self.clock.wordings(self._now())

    def _leave_prompt(self) -> None:
        app = self.session.app
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result="")

    def help_lines(self, code: int | None) -> list[str]:
        return help_lines(self.screen.view, code, self.opponent, self.style)

    def _say(self, *lines: str) -> None:
        """Print above the prompt (or plainly when no prompt is showing), wrapped at words."""
        width = self.session.output.get_size().columns
        for line in lines:
            print_formatted_text(
                self._shown(wrap([("class:log", line)], width)),
                style=self._sheet,
                output=self.session.output,
                color_depth=self._depth,
            )

    def _message(self) -> FormattedText:
        size = self._size()
        fitted = board_lines(
            self.screen,
            self.style,
            width=size.columns,
            rows=board_rows(self.session),
            panel=self._panel,
            on_click=self._clicked,
        )
        return self._shown([*fitted, ("class:prompt", "> ")])

    def _clicked(self, card: Card) -> None:
        """A click on a card of the hand plays it, as if its code were typed and entered."""
        if not self.screen.my_turn:
            return
        buffer = self.session.default_buffer
        buffer.text = card.code.lower()
        buffer.validate_and_handle()

    def _ask_hint(self) -> None:
        """Show what the strong bot would play (worked out off the event loop)."""
        if self.hint_bot is None:
            self._show(NO_HINTS)
            return
        self._show("Hint: thinking...")
        self._hints.add(asyncio.get_running_loop().create_task(self._hint(self.hint_bot)))

    async def _hint(self, bot: TableBot) -> None:
        screen = self.screen
        try:
            line = await asyncio.to_thread(hint_line, screen, bot, self.style)
        except BotMoveError as exc:
            line = f"No hint: {exc}"
        if self.screen is screen or self.screen.view is screen.view:
            self._show(line)  # still the position the hint is about
        self._hints.discard(asyncio.current_task())

    def _sheet_lines(self) -> list[str]:
        return sheet_lines(self.screen.sheet, self.screen.voice)

    def _size(self) -> Size:
        return self.session.output.get_size()

    def _show(self, *lines: str) -> None:
        """Put ``lines`` in the board's panel (none: close it); the board stays in view."""
        self._panel = tuple(speak(line, self.style) for line in lines)
        self.session.app.invalidate()

    def _shown(self, fragments: Iterable[OneStyleAndTextTuple]) -> FormattedText:
        return shown_fragments(fragments, self.style)

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        empty = EMPTY_LINE

        def word(key: str) -> None:
            @kb.add(key, filter=empty)
            def _(event: KeyPressEvent) -> None:
                buffer = event.current_buffer
                buffer.text = KEY_WORDS[key]
                buffer.cursor_position = len(buffer.text)
                if key not in CONFIRMED:
                    buffer.validate_and_handle()

        for key in KEY_WORDS:
            word(key)

        @kb.add("m", filter=empty)
        def _marry(event: KeyPressEvent) -> None:
            event.current_buffer.insert_text("m ")  # as typed: "m kh", the help's own words
            event.current_buffer.start_completion(select_first=False)

        @kb.add("?")
        def _help(event: KeyPressEvent) -> None:
            typed = event.current_buffer.text.strip()
            entry = interpret(self.screen.view, f"{typed}?", self.opponent)
            if isinstance(entry, Help):
                self._show(*self.help_lines(entry.code))
            elif isinstance(entry, Rejected):
                self._show(f"{typed}: {entry.reason}.")

        @kb.add("escape", eager=True)
        def _close_panel(event: KeyPressEvent) -> None:
            self._show()

        @kb.add("h", filter=empty)
        def _hint(event: KeyPressEvent) -> None:
            self._ask_hint()

        @kb.add("s", filter=empty)
        def _score_sheet(event: KeyPressEvent) -> None:
            self._show(*self._sheet_lines())

        return kb


async def _finish(pump: asyncio.Task[None]) -> None:
    """Let the pump tell the last events (up to MatchOver) briefly, then stop it."""
    _done, pending = await asyncio.wait({pump}, timeout=FINISH_SECONDS)
    for task in pending:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


class _LegalMoves(Completer):
    """Completes only legal moves: card codes, numbers, marriages and move words."""

    def __init__(self, ui: TerminalUI) -> None:
        self.ui = ui

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        text = document.text_before_cursor
        for s in suggestions(self.ui.screen.view, text, self.ui.style):
            yield Completion(
                s.text, start_position=-len(text), display=s.display, display_meta=s.meta
            )


def _keep_mouse_handlers(session: PromptSession[str], message: Callable[[], FormattedText]) -> None:
    """Let the board above the input line keep its mouse handlers (a click plays a card).

    prompt-toolkit shows the lines of a multi-line prompt above the input in a
    window of their own, rebuilt character by character without the handlers.
    That window is found by its text function and given the lines as they are.
    """

    def before() -> StyleAndTextTuples:
        fragments = list(message())
        for i in range(len(fragments) - 1, -1, -1):
            text = fragments[i][1]
            if "\n" in text:
                head = text[: text.rindex("\n")]
                return [*fragments[:i], like(fragments[i], head)] if head else fragments[:i]
        return []

    for window in session.app.layout.find_all_windows():
        control = window.content
        text = getattr(control, "text", None)
        if (
            isinstance(control, FormattedTextControl)
            and "multiline_prompt" in getattr(text, "__qualname__", "")
            and ".before" in getattr(text, "__qualname__", "")
        ):
            control.text = before


class _MoveValidator(Validator):
    """Refuses what cannot be played now, with the reason; the text stays for editing."""

    def __init__(self, ui: TerminalUI) -> None:
        self.ui = ui

    def validate(self, document: Document) -> None:
        if self.ui.screen.match_over is not None:
            return
        entry = interpret(self.ui.screen.view, document.text, self.ui.opponent)
        if isinstance(entry, Rejected):
            clear = " (Ctrl-U clears the line)" if document.text.strip() else ""
            reason = speak(entry.reason, self.ui.style)
            # wrapped at words here: the toolbar itself would break it mid-word at the edge
            width = self.ui.session.output.get_size().columns
            message = plain(wrap([("", reason + clear)], width))
            raise ValidationError(cursor_position=len(document.text), message=message)
