"""``p2p66 play``: a match against a built-in bot, in the full screen or ``--plain``.

``register(app)`` adds the command; pass ``table_factory`` to play somewhere
else (e.g. the network table over loopback) with the very same screens.
Run as ``python -m p2p66.cli.play_cmd`` it is the command on its own.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from typing import Annotated

import typer

from p2p66.cli.exits import EXIT_HELP, EXIT_REPLAY, ending_code, user_config
from p2p66.engine import RuleOptionError, preset
from p2p66.net.identity import IdentityError, home_dir
from p2p66.ui.bots import UnknownBotError, check_bot_spec
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.config import use_color
from p2p66.ui.launch import PlaySettings, TableFactory, local_table, play


def register(app: typer.Typer, table_factory: TableFactory = local_table) -> None:
    """Add ``play`` to ``app``; the table factory decides where the opponent sits."""

    @app.command("play", epilog=EXIT_HELP)
    def play_command(
        *,
        vs: Annotated[
            str | None, typer.Option("--vs", help="The bot to play against (default: from config).")
        ] = None,
        preset_name: Annotated[
            str | None,
            typer.Option(
                "--preset", help="Rules: sixty-six, schnapsen or vu (default: from config)."
            ),
        ] = None,
        plain: Annotated[
            bool,
            typer.Option("--plain", help="One sentence per line: for screen readers and pipes."),
        ] = False,
        ascii_suits: Annotated[
            bool, typer.Option("--ascii", help="Suit letters C D H S instead of symbols.")
        ] = False,
        seed: Annotated[
            int | None,
            typer.Option("--seed", help="Shuffle seed: the same seed deals the same cards."),
        ] = None,
        target: Annotated[
            int | None, typer.Option("--target", min=1, help="Game points that win the match.")
        ] = None,
        name: Annotated[
            str | None, typer.Option("--name", help="Your name for this match.")
        ] = None,
        delay: Annotated[
            float, typer.Option("--delay", min=0.0, help="Seconds the bot waits before moving.")
        ] = 0.6,
    ) -> None:
        """Play a match against a bot."""
        config = user_config()
        bot = vs or config.bot
        try:
            options = preset(preset_name or config.preset)
            if target is not None:
                options = options.with_options(match_target=target)
        except RuleOptionError as exc:
            raise typer.BadParameter(str(exc), param_hint="--preset") from None
        try:
            bot = check_bot_spec(bot)
        except UnknownBotError as exc:
            raise typer.BadParameter(str(exc), param_hint="--vs") from None
        settings = PlaySettings(
            options=options,
            bot=bot,
            seed=seed if seed is not None else random.SystemRandom().randrange(2**32),
            name=name or config.name or "",  # empty: the identity's own name
            bot_delay=delay,
        )
        plain = plain or not (sys.stdin.isatty() and sys.stdout.isatty())  # a pipe: plain lines
        color = not plain and use_color(config, os.environ, sys.stdout.isatty())
        style = TextStyle(ascii=ascii_suits or config.ascii, color=color)
        try:
            screen, failure = asyncio.run(play(settings, table_factory, style, plain=plain))
        except (OSError, IdentityError) as exc:
            typer.echo(f"p2p66: cannot use the p2p66 home ({home_dir()}): {exc}", err=True)
            raise typer.Exit(EXIT_REPLAY) from None
        over = screen.match_over
        raise typer.Exit(
            ending_code(failure, finished=over is not None and over.winner is not None)
        )


def main() -> None:
    """The ``play`` command on its own (used by tests and ``python -m``)."""
    app = typer.Typer(add_completion=False)
    register(app)
    app()


if __name__ == "__main__":
    main()
