"""Hints in practice games: the bot's move and a reason read off the position."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.input import create_pipe_input
from test_ui_layout import Terminal, _until
from uikit import ASCII, dealt, play, screen_of

from p2p66.engine import preset, view_of
from p2p66.engine.moves import parse_move_code
from p2p66.ui.bots import FirstLegalBot
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.hint import NO_HINTS, hint_line, reason
from p2p66.ui.local_table import LocalTable
from p2p66.ui.terminal import TerminalUI

SYMBOLS = TextStyle(color=False)


def test_the_reason_says_what_the_move_does() -> None:
    # seat 0 holds KH QH 9H AS TC JD, trumps hearts; the opponent leads AC after AS 9S
    lead = view_of(dealt(), 0)
    assert reason(lead, parse_move_code("AS"), SYMBOLS) == (
        "lead A♠: 11 points, the highest spade still out"
    )
    assert reason(lead, parse_move_code("9H"), SYMBOLS) == "lead 9♥: 0 points and a trump"
    assert reason(lead, parse_move_code("marry:KH"), SYMBOLS) == (
        "announce the marriage with K♥: 40 points"
    )
    follow = view_of(play(dealt(), "TC"), 1)  # the opponent answers the ten of clubs
    assert reason(follow, parse_move_code("AC"), SYMBOLS) == (
        "play A♣: it takes the trick, 21 points"
    )
    assert reason(follow, parse_move_code("9S"), SYMBOLS) == (
        "play 9♠: it keeps your good cards and gives up only 0 points"
    )


def test_a_hint_comes_from_the_bot_for_the_screens_position() -> None:
    state = dealt()
    screen = screen_of(state, ASCII, first_trump=view_of(state, 0).trump_card)
    assert hint_line(screen, FirstLegalBot(), ASCII).startswith("Hint: lead ")
    assert hint_line(screen_of(state, ASCII), FirstLegalBot(), ASCII) == (
        "Hint: there is nothing to choose right now."
    )


@pytest.mark.timeout(30)
@pytest.mark.parametrize("with_bot", [True, False])
def test_h_shows_a_hint_in_a_practice_game_only(with_bot: bool) -> None:
    term = Terminal(80, 24)

    async def main() -> list[str]:
        with create_pipe_input() as pipe:
            term.keyboard = pipe
            table = LocalTable(preset("sixty-six"), FirstLegalBot(), seed=3, names=("Ann", "Bot"))
            hints = FirstLegalBot() if with_bot else None
            ui = TerminalUI(
                table, ASCII, input=pipe, output=term.output(), patch=False, hint_bot=hints
            )
            run = asyncio.create_task(ui.run())
            await _until(lambda: ui.screen.my_turn, "the first turn")
            pipe.send_text("h")
            wanted = "Hint: " if with_bot else NO_HINTS
            await _until(lambda: any(wanted in row for row in term.rows()), "the hint")
            rows = term.rows()
            pipe.send_text("q\r")
            await asyncio.wait_for(run, 10)
        return rows

    rows = asyncio.run(main())
    assert not any(row.startswith("> h") for row in rows)  # the key asks; it is not typed
