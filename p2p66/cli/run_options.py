"""The options ``match`` and ``tournament`` share, defined once so they read the same."""

from __future__ import annotations

from typing import Annotated

import typer

from p2p66.runner.transport import TRANSPORTS

Concurrency = Annotated[int, typer.Option(min=1, help="Games played at once")]
Duplicate = Annotated[bool, typer.Option(help="Play every deal twice with the seats swapped")]
Movetime = Annotated[
    float | None, typer.Option(help="Seconds per move; over it plus --margin forfeits")
]
Margin = Annotated[float, typer.Option(min=0.0, help="Grace seconds over --movetime")]
Transport = Annotated[str, typer.Option(help=f"How games are played: {' or '.join(TRANSPORTS)}")]
