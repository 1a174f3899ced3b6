"""The card pictures and their captions fit the line they are drawn on, at any width."""

from __future__ import annotations

import pytest
from prompt_toolkit.utils import get_cwidth
from uikit import dealt, play

from p2p66.engine import view_of
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.narrate import Voice
from p2p66.ui.render import board_lines, lines_of, plain
from p2p66.ui.screen import Screen


@pytest.mark.parametrize("width", range(50, 101))
def test_every_board_line_fits_when_the_opponent_has_led(width: int) -> None:
    led = play(dealt(), "AS")  # seat 0 (Expert Bot) led; seat 1 holds six cards and answers
    screen = Screen(Voice(1, ("Expert Bot", "Ann"), TextStyle(color=False)), view_of(led, 1), 1)
    lines = [
        plain(line)
        for line in lines_of(board_lines(screen, screen.voice.style, width=width, rows=40))
    ]
    assert all(get_cwidth(line) <= width for line in lines), [
        line for line in lines if get_cwidth(line) > width
    ]
    assert not any(line.strip() == "led" for line in lines)  # a caption never wraps
