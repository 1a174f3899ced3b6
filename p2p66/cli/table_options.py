"""The options of the commands that seat you at a table (``play``, ``host``, ``join``), defined
once so they read the same everywhere."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from p2p66.cli.exits import user_config
from p2p66.cli.output import shows_symbols
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.config import use_color

PlayerName = Annotated[
    str | None,
    typer.Option("--name", help="Your name for this match (default: config, then identity)."),
]
Plain = Annotated[
    bool, typer.Option("--plain", help="One sentence per line: for screen readers and pipes.")
]
AsciiOnly = Annotated[
    bool, typer.Option("--ascii", help="Only ASCII characters: suit letters C D H S.")
]
BotSeed = Annotated[
    int | None,
    typer.Option("--seed", help="Seed of the --bot's play (never of the deal: that stays secret)."),
]
ReplayDir = Annotated[
    Path | None,
    typer.Option("--replay-dir", help="Where the replay goes (default: the data directory)."),
]
TableGrace = Annotated[
    float,
    typer.Option(
        "--grace",
        min=0,
        help="Three- or four-player games: seconds a player whose connection dropped has to "
        "reconnect before the match ends as abandoned by it.",
    ),
]


def screen_style(
    plain: bool, ascii_suits: bool, *, four_colour: bool = False, words: bool = False
) -> tuple[bool, TextStyle]:
    """Whether to play in ``--plain`` lines (asked, or a pipe) and the cards' style: colour
    only on a terminal that allows it (``NO_COLOR``), ASCII if asked, configured or needed."""
    config = user_config()
    plain = plain or not (sys.stdin.isatty() and sys.stdout.isatty())
    color = not plain and use_color(config, os.environ, sys.stdout.isatty())
    ascii_only = ascii_suits or config.ascii or not shows_symbols(sys.stdout)
    style = TextStyle(ascii=ascii_only, color=color, four_colour=four_colour, words=words)
    return plain, style
