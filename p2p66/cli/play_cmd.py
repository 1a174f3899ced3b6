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

from p2p66.cli.exits import (
    EXIT_HELP,
    EXIT_LEFT,
    EXIT_OK,
    EXIT_REPLAY,
    ending_code,
    user_config,
)
from p2p66.cli.output import shows_symbols
from p2p66.cli.table_options import AsciiOnly, Plain, PlayerName, screen_style
from p2p66.engine import RuleOptionError, preset
from p2p66.engine.table import is_table_preset
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
                "--preset",
                help="Rules: sixty-six, schnapsen or vu (default: from config); or a game for "
                "three or four at a local table of bots: three-handed, north-american, "
                "south-bend, cut-throat.",
            ),
        ] = None,
        plain: Plain = False,
        ascii_suits: AsciiOnly = False,
        words: Annotated[
            bool,
            typer.Option("--words", help="Cards as words (the ace of spades): for screen readers."),
        ] = False,
        four_colour: Annotated[
            bool,
            typer.Option(
                "--four-colour",
                help="A four-colour deck: clubs green, diamonds blue, hearts red, spades black.",
            ),
        ] = False,
        seed: Annotated[
            int | None,
            typer.Option(
                "--seed",
                help="Deal from this seed: the same seed, rules and moves deal the same cards "
                "on any computer (both seats' keys and shuffles come from it).",
            ),
        ] = None,
        target: Annotated[
            int | None, typer.Option("--target", min=1, help="Game points that win the match.")
        ] = None,
        name: PlayerName = None,
        delay: Annotated[
            float, typer.Option("--delay", min=0.0, help="Seconds the bot waits before moving.")
        ] = 0.6,
        clock: Annotated[
            bool,
            typer.Option(
                "--clock",
                help="Show your time on this move and this hand (--plain: after each move).",
            ),
        ] = False,
    ) -> None:
        """Play a match against a bot."""
        config = user_config()
        ascii_only = ascii_suits or config.ascii or not shows_symbols(sys.stdout)
        bot = vs or config.bot
        chosen = preset_name or config.preset
        if is_table_preset(chosen):
            plain, style = screen_style(plain, ascii_suits, four_colour=four_colour, words=words)
            code = play_multi(
                chosen, vs, seed=seed, target=target, plain=plain, style=style, delay=delay
            )
            raise typer.Exit(code)
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
            clock=clock,
            seeded=seed is not None,
        )
        plain = plain or not (sys.stdin.isatty() and sys.stdout.isatty())  # a pipe: plain lines
        color = not plain and use_color(config, os.environ, sys.stdout.isatty())
        style = TextStyle(ascii=ascii_only, color=color, four_colour=four_colour, words=words)
        try:
            screen, failure = asyncio.run(play(settings, table_factory, style, plain=plain))
        except (OSError, IdentityError) as exc:
            typer.echo(f"p2p66: cannot use the p2p66 home ({home_dir()}): {exc}", err=True)
            raise typer.Exit(EXIT_REPLAY) from None
        over = screen.match_over
        resigned = None if over is None else over.resigned
        left = None if resigned is None else resigned == screen.voice.seat  # q is a resignation
        finished = over is not None and over.winner is not None
        raise typer.Exit(ending_code(failure, finished=finished, left=left))


def play_multi(
    name: str,
    vs: str | None,
    *,
    seed: int | None,
    target: int | None,
    plain: bool,
    style: TextStyle,
    delay: float = 0.0,
) -> int:
    """A match of a game for three or four players, every seat its own peer (you at seat 0).

    The deal is the N-party mental-poker deal, the replay is written as the
    match goes (the data directory's ``replays/``) and verified at its end.
    """
    from p2p66.bots.api import BotError
    from p2p66.engine.table import table_options
    from p2p66.live.loopback import replay_path
    from p2p66.live.multi_peers import PeerMultiTable
    from p2p66.net.identity import load_or_create_identity
    from p2p66.ui.multi.screens import run_plain
    from p2p66.ui.multi.terminal import run_terminal

    try:
        values = {} if target is None else {"match_target": target}
        options = table_options(name, values)
    except RuleOptionError as exc:
        raise typer.BadParameter(str(exc), param_hint="--target") from None
    bot = vs or "expert"
    try:
        table = PeerMultiTable(
            options,
            bot,
            seed if seed is not None else random.SystemRandom().randrange(2**32),
            style,
            me=load_or_create_identity(),
            replay=replay_path(name),
        )
    except (BotError, UnknownBotError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--vs") from None
    if plain:
        run_plain(table, _read_line, _print)
    else:
        run_terminal(table, delay=delay)
    if table.over is not None:
        return EXIT_OK
    table.leave()  # a signed resignation closes the replay
    for line in table.replay_lines():
        _print(line)
    return EXIT_LEFT


def _read_line() -> str | None:
    line = sys.stdin.readline()
    return line.rstrip("\r\n") if line else None


def _print(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main() -> None:
    """The ``play`` command on its own (used by tests and ``python -m``)."""
    app = typer.Typer(add_completion=False)
    register(app)
    app()


if __name__ == "__main__":
    main()
