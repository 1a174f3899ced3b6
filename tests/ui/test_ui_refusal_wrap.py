"""A refusal under the prompt wraps at words on a narrow terminal, its end in view."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.input import create_pipe_input
from test_ui_layout import MATCH, SEED, Terminal, _until

from p2p66.ui.bots import FirstLegalBot
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.local_table import LocalTable
from p2p66.ui.terminal import TerminalUI


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("columns", "rows"), [(80, 24), (60, 20)])
def test_a_long_refusal_wraps_at_words(columns: int, rows: int) -> None:
    term = Terminal(columns, rows)

    async def main() -> tuple[list[str], str]:
        with create_pipe_input() as pipe:
            term.keyboard = pipe
            table = LocalTable(MATCH, FirstLegalBot(), seed=SEED, names=("Ann", "Expert Bot"))
            ui = TerminalUI(
                table, TextStyle(color=False), input=pipe, output=term.output(), patch=False
            )
            run = asyncio.create_task(ui.run())
            await _until(lambda: ui.screen.my_turn, "the player's turn")
            buffer = ui.session.default_buffer
            pipe.send_text("zz\r")  # not a move: the longest refusal there is
            await _until(lambda: buffer.validation_error is not None, "the refusal")
            await _until(lambda: any("clears the line)" in r for r in term.rows()), "its end")
            await asyncio.sleep(0.2)
            shot = term.rows()
            error = buffer.validation_error
            assert error is not None
            pipe.send_text("\x15q\r")
            await asyncio.wait_for(run, 10)
        return shot, error.message

    shot, message = asyncio.run(main())
    prompt = next(i for i, row in enumerate(shot) if row.startswith(">"))
    below = shot[prompt + 1 : -1]  # between the prompt and the status bar
    words = " ".join(below).split()
    assert words == message.split(), below  # every word whole, in order
    assert all(len(row) <= columns for row in shot)
