"""``play --clock``: the player's time on this move and this hand, ticking in the status bar."""

from __future__ import annotations

import asyncio
import re

import pytest
from prompt_toolkit.input import create_pipe_input
from test_ui_layout import MATCH, SEED, Terminal, _until
from uikit import ASCII, choose, keystrokes

from p2p66.ui.bots import FirstLegalBot
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.clock import MoveClock, clock_text
from p2p66.ui.local_table import LocalTable
from p2p66.ui.plain import PlainUI
from p2p66.ui.render import plain, status_bar
from p2p66.ui.terminal import TerminalUI


def test_only_the_players_own_turns_are_timed() -> None:
    clock = MoveClock().turn(10.0)
    assert clock.reading(17.0) == (7.0, 7.0)
    clock = clock.moved(17.0)
    assert clock.reading(50.0) == (7.0, 7.0)  # the bot's thinking is not the player's
    clock = clock.turn(50.0).turn(52.0)  # a turn already running goes on
    assert clock.reading(53.0) == (3.0, 10.0)
    assert clock.new_hand().reading(60.0) == (0.0, 0.0)
    assert clock.moved(53.0).moved(99.0).reading(99.0) == (3.0, 10.0)  # a move counts once


def test_clock_text() -> None:
    assert [clock_text(s) for s in (0, 7.9, 65, 3723)] == ["0:00", "0:07", "1:05", "1:02:03"]


@pytest.mark.parametrize("width", [60, 80, 120])
def test_a_clock_asked_for_is_the_last_to_give_way(width: int) -> None:
    ui_screen = TerminalUI(LocalTable(MATCH, FirstLegalBot(), seed=SEED), TextStyle()).screen
    text = plain(status_bar(ui_screen, width, MoveClock().turn(0).wordings(7)))
    assert len(text) <= width
    assert "0:07" in text


def _clock(term: Terminal) -> tuple[str, ...]:
    """The move and hand times the status bar (the bottom row) shows, in either wording."""
    found = re.search(r"move (\d+:\d\d), hand (\d+:\d\d)|(\d+:\d\d)/(\d+:\d\d)", term.rows()[-1])
    return tuple(g for g in found.groups() if g) if found else ()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("columns", "rows"), [(80, 24), (60, 20)])
def test_the_move_clock_ticks_in_the_status_bar(columns: int, rows: int) -> None:
    term = Terminal(columns, rows)
    now = [100.0]

    async def main() -> list[str]:
        seen: list[str] = []
        with create_pipe_input() as pipe:
            term.keyboard = pipe
            table = LocalTable(MATCH, FirstLegalBot(), seed=SEED, names=("Ann", "Expert Bot"))
            ui = TerminalUI(
                table,
                TextStyle(color=False),
                input=pipe,
                output=term.output(),
                patch=False,
                clock=True,
                now=lambda: now[0],
            )
            run = asyncio.create_task(ui.run())
            await _until(lambda: ui.screen.my_turn, "the player's turn")
            now[0] = 107.0  # seven seconds of thought
            await _until(lambda: _clock(term) == ("0:07", "0:07"), "the clock at 0:07")
            seen.append(term.rows()[-1])
            view = ui.screen.view
            assert view is not None
            pipe.send_text(keystrokes(view, choose(view), 0))  # played at 107
            await _until(lambda: ui.screen.my_turn and ui.screen.view is not view, "a new turn")
            now[0] = 110.0  # three more on the next move
            await _until(lambda: _clock(term) == ("0:03", "0:10"), "the clock at 0:03 of 0:10")
            seen.append(term.rows()[-1])
            pipe.send_text("q\r")
            await asyncio.wait_for(run, 10)
        return seen

    for row in asyncio.run(main()):
        assert len(row) <= columns and "your turn" in row


@pytest.mark.timeout(60)
def test_plain_says_each_moves_time_after_it() -> None:
    """``play --plain --clock``: a sentence after each of the player's moves, nothing else."""
    now = [0.0]
    said: list[str] = []
    table = LocalTable(MATCH, FirstLegalBot(), seed=SEED, names=("Ann", "Expert Bot"), bot_delay=0)
    ui: PlainUI

    class SevenSecondsAMove:
        def __init__(self) -> None:
            self.moves = 0

        async def readline(self) -> str | None:
            view = ui.screen.view
            if self.moves == 2 or view is None:
                return None
            self.moves += 1
            now[0] += 7.0  # the player thinks for seven seconds
            return keystrokes(view, choose(view), 0).strip()

    ui = PlainUI(table, ASCII, SevenSecondsAMove(), said.append, clock=True, now=lambda: now[0])
    asyncio.run(ui.run())
    timed = [line for line in said if line.startswith("That move took")]
    assert timed[:2] == [
        "That move took 0:07; this hand so far 0:07.",
        "That move took 0:07; this hand so far 0:14.",
    ]
