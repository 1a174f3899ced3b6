"""``p2p66 peers``: the players you have met, pinned by their identity keys.

A peer is pinned the first time a join code authenticates it; later a
different key under that name is refused. ``forget`` removes a pin when a
friend really did get a new key (a new machine), after checking with them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from p2p66.net.identity import KnownPeers, fingerprint, load_or_create_identity


def register(app: typer.Typer) -> None:
    """Add the ``peers`` command group to ``app``."""
    group = typer.Typer(name="peers", help="Players you have met (trust on first use).")

    @group.command("list")
    def list_peers() -> None:
        """Your own fingerprint, then each pinned peer and its fingerprint."""
        me = load_or_create_identity()
        typer.echo(f"you: {me.name} {me.fingerprint}")
        peers = KnownPeers.load()
        names = peers.names()
        if not names:
            typer.echo("no pinned peers yet")
        for name in names:
            key = peers.key_of(name)
            typer.echo(f"{name} {fingerprint(key) if key else '?'}")

    @group.command("forget")
    def forget(name: Annotated[str, typer.Argument(help="The peer's name.")]) -> None:
        """Remove a pin (the next game with that name needs a join code again)."""
        peers = KnownPeers.load()
        if not peers.forget(name):
            typer.echo(f"no pinned peer named {name!r}", err=True)
            raise typer.Exit(1)
        typer.echo(f"forgot {name}; a join code will pin its key again")

    app.add_typer(group)
