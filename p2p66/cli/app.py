"""The ``p2p66`` command: a typer app on which each command module registers."""

from __future__ import annotations

import typer

from p2p66.cli import (
    bot_cmd,
    config_cmd,
    match_cmd,
    net_cmd,
    netcheck_cmd,
    peers_cmd,
    play_cmd,
    replay_cmd,
)
from p2p66.live.loopback import loopback_table

app = typer.Typer(
    name="p2p66",
    help="Sixty-Six and Schnapsen between two peers: no server, no trust.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


@app.command()
def version() -> None:
    """Print the p2p66 version."""
    from p2p66 import __version__

    typer.echo(__version__)


play_cmd.register(app, table_factory=loopback_table)
net_cmd.register(app)
netcheck_cmd.register(app)
replay_cmd.register(app)
match_cmd.register(app)
bot_cmd.register(app)
peers_cmd.register(app)
config_cmd.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
