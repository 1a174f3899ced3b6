"""The ``p2p66`` command: a typer app that subcommand modules register on."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="p2p66",
    help="Sixty-Six and Schnapsen between two peers: no server, no trust.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command()
def version() -> None:
    """Print the p2p66 version."""
    from p2p66 import __version__

    typer.echo(__version__)


def main() -> None:
    app()
