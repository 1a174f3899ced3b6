"""``p2p66 peers``: the players you have met, pinned by their identity keys.

A peer's key is pinned the first time a join code authenticates it; a
code-less rematch needs a pinned key. Names are only what players call
themselves: a new key under a known name is another player, listed with a
short fingerprint (``root (3f2a)``). ``forget`` removes a pin by name or, when
several keys share the name, by (the start of) its fingerprint.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from p2p66.net.identity import IdentityError, KnownPeers, load_identity, short_label


def register(app: typer.Typer) -> None:
    """Add the ``peers`` command group to ``app``."""
    group = typer.Typer(name="peers", help="Players you have met (trust on first use).")

    @group.command("list")
    def list_peers(
        as_json: Annotated[
            bool, typer.Option("--json", help="One JSON object: you and every pinned peer.")
        ] = False,
    ) -> None:
        """Your own fingerprint, then each pinned peer and its fingerprint (creates nothing)."""
        try:
            me = load_identity()
            peers = KnownPeers.load()
        except IdentityError as exc:
            typer.echo(f"Error: {exc}", err=True)
            raise typer.Exit(2) from None
        if as_json:
            listed = [
                {"name": p.name, "label": peers.label(p), "fingerprint": p.fingerprint}
                for p in peers.peers()
            ]
            you = None if me is None else {"name": me.name, "fingerprint": me.fingerprint}
            typer.echo(json.dumps({"you": you, "peers": listed}, indent=2))
            return
        if me is None:
            typer.echo("you: no identity yet (made the first time you play, host or join)")
        else:
            typer.echo(f"you: {me.name} {me.fingerprint}")
        if not len(peers):
            typer.echo("no pinned peers yet")
        for peer in peers.peers():
            typer.echo(f"{peers.label(peer)} {peer.fingerprint}")

    @group.command("forget")
    def forget(
        name: Annotated[str, typer.Argument(help="The peer's name or fingerprint.")],
    ) -> None:
        """Remove a pin (the next game with that player needs a join code again)."""
        peers = KnownPeers.load()
        matched = peers.find(name)
        if len(matched) > 1:
            which = ", ".join(p.fingerprint for p in matched)
            typer.echo(
                f"{len(matched)} players are named {name!r} ({which}): "
                "say which by its fingerprint",
                err=True,
            )
            raise typer.Exit(1)
        if not peers.forget(name):
            typer.echo(f"no pinned peer named {name!r}", err=True)
            raise typer.Exit(1)
        typer.echo(f"forgot {short_label(matched[0])}; a join code will pin its key again")

    app.add_typer(group)
