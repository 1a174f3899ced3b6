"""The real prompt-toolkit screen at 80×24 and 60×20: what the player sees on the terminal.

The session writes VT100 to a ``pyte`` terminal of a fixed size, and the tests
read the rows back, as a player would see them.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from uikit import ASCII, choose, dealt, keystrokes
from vt import Terminal
from vt import until as _until

from p2p66.engine import HandResult, HowEnded, IllegalMoveError, preset, view_of
from p2p66.ui.bots import FirstLegalBot
from p2p66.ui.cards_text import TextStyle, display_order
from p2p66.ui.local_table import LocalTable
from p2p66.ui.narrate import Voice
from p2p66.ui.render import plain, status_bar, wrap
from p2p66.ui.scoresheet import SheetRow, sheet_lines
from p2p66.ui.screen import Screen
from p2p66.ui.table import ConnectionStatus, HandOver, HandStarted, MatchOver, TableEvent
from p2p66.ui.terminal import TerminalUI

SEED = 3
MATCH = preset("sixty-six")
LONG_LINE = "Expert Bot declares 66 truly and scores 3 game points (card points: 70 to 12)."


async def _play(ui: TerminalUI, pipe: PipeInput, moves: int) -> None:
    """Play ``moves`` of the player's own moves the way a player types them."""
    last = None
    for turn in range(moves):
        await _until(
            lambda seen=last: (  # type: ignore[misc]
                ui.screen.my_turn
                and ui.screen.view is not seen
                and not ui.session.default_buffer.text
            ),
            "the player's turn",
        )
        view = ui.screen.view
        assert view is not None
        pipe.send_text(keystrokes(view, choose(view), turn))
        last = view
    await _until(lambda: ui.screen.my_turn and ui.screen.view is not last, "the next turn")


def _turn_row(rows: list[str]) -> int:
    """The first row of the line just above the prompt: the line saying what to do next."""
    row = next(i for i, row in enumerate(rows) if row.startswith(">")) - 1
    while rows[row].startswith("    "):  # a wrapped line's continuation
        row -= 1
    return row


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("columns", "rows"), [(80, 24), (60, 20)])
def test_the_turn_line_help_and_status_fit_the_terminal(columns: int, rows: int) -> None:
    term = Terminal(columns, rows)

    async def main() -> list[list[str]]:
        shots: list[list[str]] = []
        with create_pipe_input() as pipe:
            term.keyboard = pipe
            table = LocalTable(MATCH, FirstLegalBot(), seed=SEED, names=("Ann", "Expert Bot"))
            ui = TerminalUI(
                table, TextStyle(color=False), input=pipe, output=term.output(), patch=False
            )
            run = asyncio.create_task(ui.run())
            await _play(ui, pipe, 3)
            # the log is full of long lines, as at the end of a hand
            ui.screen = replace(ui.screen, log=(LONG_LINE,) * 8)
            ui.session.app.invalidate()
            await asyncio.sleep(0.3)
            shots.append(term.rows())
            pipe.send_text("?")
            await _until(
                lambda: any("The talon is open" in r for r in term.rows()), "the help panel"
            )
            await asyncio.sleep(0.2)
            shots.append(term.rows())
            pipe.send_text("\x1b")
            await _until(
                lambda: not any("The talon is open" in r for r in term.rows()), "the panel to close"
            )
            await asyncio.sleep(0.2)
            shots.append(term.rows())
            pipe.send_text("q\r")
            await asyncio.wait_for(run, 10)
        return shots

    board, helped, closed = asyncio.run(main())
    for shot in (board, helped, closed):
        turn = _turn_row(shot)  # the line that says what to do next is on screen
        assert shot[turn].startswith((" Your lead", " Your turn", " You won the trick")), shot
        assert any(row.startswith(" Your hand") for row in shot)
        assert all(len(row) <= columns for row in shot)
        assert shot[-1].endswith(("your turn", "Expert Bot's turn", "their turn"))
    assert any("declares 66 truly" in row for row in board)  # the newest message shows
    assert any("The talon is open" in row for row in helped)  # help stays on screen, in the board
    assert not any("The talon is open" in row for row in closed)


def _their_turn() -> Screen:
    """Ann's screen while Expert Bot is to lead, over a link with a latency."""
    state = dealt()
    screen = Screen(
        Voice(1, ("Expert Bot", "Ann"), ASCII),
        view=view_of(state, 1),
        hand_number=1,
        connection=ConnectionStatus("connected", 12.0),
    )
    assert not screen.my_turn
    return screen


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_the_status_bar_fits_any_width_and_keeps_whose_turn(width: int) -> None:
    text = plain(status_bar(_their_turn(), width))
    assert len(text) <= width
    assert "turn" in text.split("│")[-1]
    if width >= 80:
        assert "Expert Bot's turn" in text  # the turn is named in full where it fits
    if width >= 120:
        assert "vs Expert Bot" in text and "connected, 12 ms" in text


def test_wrap_drops_the_blank_at_a_break() -> None:
    text = plain(wrap([("", "aaaa bbbb cccc dddd")], 10))
    assert text.split("\n") == ["aaaa bbbb", "    cccc", "    dddd"]


class QueueTable:
    """A table whose events the test feeds one by one: the protocol, nothing more."""

    def __init__(self) -> None:
        self.events: asyncio.Queue[TableEvent] = asyncio.Queue()

    @property
    def failure(self) -> str | None:
        return None

    @property
    def seat(self) -> int:
        return 0

    @property
    def names(self) -> tuple[str, str]:
        return ("Ann", "Expert Bot")

    async def next_event(self) -> TableEvent:
        return await self.events.get()

    async def submit(self, move_code: int) -> None:
        raise IllegalMoveError(str(move_code), "nothing to play in this test")

    async def close(self) -> None:
        pass


def _result(winner: int, points: int) -> HandResult:
    return HandResult(winner, points, HowEnded.DECLARED_66, (70, 20), (4, 2), winner, None)


@pytest.mark.timeout(30)
def test_a_hands_result_and_the_score_sheet_stay_until_the_player_goes_on() -> None:
    term = Terminal(80, 24)

    async def main() -> tuple[list[str], list[str], list[str]]:
        with create_pipe_input() as pipe:
            term.keyboard = pipe
            table = QueueTable()
            ui = TerminalUI(table, ASCII, input=pipe, output=term.output(), patch=False)
            run = asyncio.create_task(ui.run())
            view = view_of(dealt(), 0)
            table.events.put_nowait(HandStarted(1, view, (0, 0)))
            table.events.put_nowait(HandOver(_result(1, 2), (0, 2)))
            table.events.put_nowait(HandStarted(2, view, (0, 2)))

            def shows(text: str) -> bool:
                return any(text in row for row in term.rows())

            await _until(lambda: ui.screen.hand_number == 2 and shows("Score sheet:"), "sheet")
            await asyncio.sleep(0.2)
            after_next_deal = term.rows()
            pipe.send_text("1")  # typing the next move closes it
            await _until(lambda: not shows("Score sheet:"), "the sheet to close")
            closed = term.rows()
            pipe.send_text("\x15s")  # Ctrl-U, then s on the empty line: the sheet again
            await _until(lambda: shows("Score sheet:"), "the sheet on request")
            asked = term.rows()
            table.events.put_nowait(MatchOver(None, (0, 2)))
            await asyncio.wait_for(run, 10)
        return after_next_deal, closed, asked

    after_next_deal, closed, asked = asyncio.run(main())
    text = "\n".join(after_next_deal)
    assert "Expert Bot declares 66 truly and scores 2 game points" in text
    assert "   1  Expert Bot  declared 66" in text and "+2  0-2" in text
    assert any(row.startswith(" Your lead") for row in after_next_deal)  # the board is there too
    assert not any("Score sheet:" in row for row in closed)
    assert any("Score sheet:" in row for row in asked)


def test_the_score_sheet_lines() -> None:
    voice = Voice(0, ("Ann", "Expert Bot"), ASCII)
    tie = HandResult(None, 0, HowEnded.MORE_POINTS, (60, 60), (3, 3), None, None)
    rows = (SheetRow(1, _result(0, 3), (3, 0)), SheetRow(2, tie, (3, 0)))
    assert sheet_lines(rows, voice) == [
        "Score sheet:",
        "hand  won by      how                 pts  match (you-Expert Bot)",
        "   1  you         declared 66          +3  3-0",
        "   2  nobody      tie                   0  3-0",
    ]
    assert sheet_lines((), voice) == ["Score sheet: no hand has ended yet."]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("columns", "rows"), [(80, 24), (60, 20)])
def test_the_hand_is_drawn_as_cards_and_a_click_plays_one(columns: int, rows: int) -> None:
    term = Terminal(columns, rows)

    async def main() -> tuple[list[str], str, Screen]:
        with create_pipe_input() as pipe:
            term.keyboard = pipe
            table = LocalTable(MATCH, FirstLegalBot(), seed=SEED, names=("Ann", "Expert Bot"))
            ui = TerminalUI(
                table, TextStyle(color=False), input=pipe, output=term.output(), patch=False
            )
            run = asyncio.create_task(ui.run())
            await _until(lambda: ui.screen.my_turn, "the first turn")
            await _until(lambda: any("┌───┐" in r for r in term.rows()), "the pictures")
            shot = term.rows()
            view = ui.screen.view
            assert view is not None
            first = display_order(view.hand, view.trump_suit)[0]
            y = next(i for i, r in enumerate(shot) if r.startswith(" ┌───┐"))
            pipe.send_text(f"\x1b[<0;3;{y + 2}M\x1b[<0;3;{y + 2}m")  # press and release
            await _until(lambda: first not in (ui.screen.view or view).hand, "the card played")
            played = "\n".join(ui.screen.log)
            pipe.send_text("q\r")
            screen = await asyncio.wait_for(run, 10)
        return shot, played, screen

    shot, played, _screen = asyncio.run(main())
    boxes = next(r for r in shot if r.startswith(" ┌───┐"))
    assert boxes.count("┌───┐") >= 7  # six cards of the hand and the trump card
    numbers = shot[shot.index(boxes) + 4]
    assert numbers.split()[:6] == ["1", "2", "3", "4", "5", "6"]
    assert "You lead" in played or "You play" in played
