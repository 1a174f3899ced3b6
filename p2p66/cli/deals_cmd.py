"""``p2p66 deals make FILE``: write a deal book, a fixed list of deals to share.

Two people who play their bots on the same book (``p2p66 match ... --deals
FILE``) compare them on the same cards. The format is in
``p2p66/runner/dealbook.py`` and the README. Exit codes: 0 written, 2 bad
input (or the file exists and ``--force`` was not given).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from p2p66.engine.errors import RuleOptionError
from p2p66.engine.options import PRESETS, preset
from p2p66.runner.dealbook import DealBookError, make_book, write_book

EXIT_OK, EXIT_USAGE = 0, 2

deals_app = typer.Typer(
    name="deals", help="Deal books: fixed lists of deals.", no_args_is_help=True
)


def register(app: typer.Typer) -> None:
    """Add the ``deals`` sub-app (``deals make``) to ``app``."""
    app.add_typer(deals_app, name="deals")


@deals_app.command("make")
def make(
    path: Annotated[Path, typer.Argument(help="The deal book to write")],
    *,
    count: Annotated[int, typer.Option(help="How many deals")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed the deals are drawn from")] = 1,
    decks: Annotated[
        bool,
        typer.Option(help="Write explicit decks and dealers (single hands, in process only)"),
    ] = False,
    preset_name: Annotated[
        str, typer.Option("--preset", help=f"Rules whose deck is dealt: {', '.join(PRESETS)}")
    ] = "sixty-six",
    force: Annotated[bool, typer.Option(help="Overwrite an existing file")] = False,
) -> None:
    """Write COUNT deals drawn from SEED to PATH (seeds by default, or explicit decks)."""
    try:
        rules = preset(preset_name)
        if path.exists() and not force:
            raise DealBookError(f"{path} exists: pass --force to overwrite it")
        book = make_book(count, seed, rules.deck_size, decks=decks)
        write_book(path, book, rules.deck_size)
    except (DealBookError, RuleOptionError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    kind = "decks" if decks else "seeds"
    typer.echo(f"wrote {count} deals ({kind}, {rules.deck_size} cards) to {path}")
