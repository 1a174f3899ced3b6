"""The ``p2p66`` command: a typer app on which each command module registers."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from p2p66 import __version__
from p2p66.cli import (
    bot_cmd,
    config_cmd,
    deals_cmd,
    match_cmd,
    net_cmd,
    netcheck_cmd,
    peers_cmd,
    play_cmd,
    replay_cmd,
    tournament_cmd,
)
from p2p66.cli.crash import report_crash
from p2p66.cli.output import flags_as_flags, forgiving_streams, markup_mode
from p2p66.live.loopback import loopback_table

flags_as_flags()
app = typer.Typer(
    name="p2p66",
    help="Sixty-Six and Schnapsen between two peers: no server, no trust.",
    no_args_is_help=True,
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=markup_mode(),
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"p2p66 {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Sixty-Six and Schnapsen between two peers: no server, no trust."""


@app.command()
def version() -> None:
    """Print the p2p66 version."""
    typer.echo(__version__)


play_cmd.register(app, table_factory=loopback_table)
net_cmd.register(app)
netcheck_cmd.register(app)
replay_cmd.register(app)
match_cmd.register(app)
tournament_cmd.register(app)
bot_cmd.register(app)
deals_cmd.register(app)
peers_cmd.register(app)
config_cmd.register(app)


def main() -> None:
    """Run the command; an exception nobody handled is reported as a bug (exit 70)."""
    forgiving_streams()
    try:
        app()
    except Exception as exc:  # the last line of defence: every known failure has its exit code
        sys.exit(report_crash(exc))


if __name__ == "__main__":
    main()
