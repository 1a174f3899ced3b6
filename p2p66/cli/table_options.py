"""The options of the commands that seat you at a table (``play``, ``host``, ``join``), defined
once so they read the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
