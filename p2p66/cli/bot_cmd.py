"""``p2p66 bot list`` and ``p2p66 bot check CMD``: the bots there are, and whether yours complies.

``bot check`` exits 0 when the external bot broke no rule of
``protocol/BOT.md`` in a few hands of each preset, 1 when it did (every
fault is listed), 2 on bad input.
"""

from __future__ import annotations

import shlex
import shutil
from typing import Annotated

import typer

from p2p66.bots.registry import BUILTINS
from p2p66.cli.exits import BOT_CHECK_HELP
from p2p66.cli.output import say
from p2p66.runner.check import CHECK_PRESETS, TABLE_CHECK_PRESETS, check_bot

EXIT_OK, EXIT_FAULTS, EXIT_USAGE = 0, 1, 2

bot_app = typer.Typer(
    name="bot",
    help="Built-in bots and the compliance check for your own.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add the ``bot`` sub-app (``bot list``, ``bot check``) to ``app``."""
    app.add_typer(bot_app, name="bot")


@bot_app.command("list")
def list_bots() -> None:
    """List the built-in bots, their options, and the vu: bots when available."""
    width = max(len(name) for name in BUILTINS)
    for bot in BUILTINS.values():
        say(f"{bot.name:<{width}}  {bot.summary}")
        for key, text in bot.options.items():
            say(f"{'':<{width}}    {bot.name}:{key}=...  {text}")
    from p2p66.bots.vu import vu_available

    if vu_available():
        say("vu:rand, vu:rdeep[:SAMPLES:DEPTH], vu:bully  bots of the schnapsen package")
        say(f"{'':<{width}}    (only with --preset vu)")
    else:
        say("(vu:... bots need the optional 'schnapsen' package)")
    say(
        "north-american, south-bend, cut-throat: random, greedy, expert and strong[:ms=N] "
        "of their own (three-handed hands are played by the bots above)."
    )
    say("Any other text is run as the command of an external bot (protocol/BOT.md).")


@bot_app.command("check", epilog=BOT_CHECK_HELP)
def check(
    command: Annotated[str, typer.Argument(help="The bot's command line, quoted")],
    *,
    hands: Annotated[int, typer.Option(min=1, help="Hands per preset")] = 2,
    movetime: Annotated[float, typer.Option(help="Seconds the bot may take per move")] = 2.0,
    margin: Annotated[float, typer.Option(min=0.0, help="Grace seconds over --movetime")] = 0.5,
    quiet: Annotated[bool, typer.Option(help="Only print the verdict and the faults")] = False,
) -> None:
    """Play a few hands of each preset against the bot and report every protocol fault.

    The presets: sixty-six, schnapsen and vu (two-player requests), then
    north-american and cut-throat (bidding-game requests, "game": "bidding").
    """
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        say(f"error: cannot split {command!r}: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    if not argv or shutil.which(argv[0]) is None:
        say(f"error: {argv[0] if argv else command!r} is not a command on PATH", err=True)
        raise typer.Exit(EXIT_USAGE)
    if movetime <= 0:
        say("error: --movetime must be positive", err=True)
        raise typer.Exit(EXIT_USAGE)
    report = check_bot(
        argv,
        hands_per_preset=hands,
        presets=CHECK_PRESETS,
        table_presets=TABLE_CHECK_PRESETS,
        movetime=movetime,
        margin=margin,
        say=None if quiet else typer.echo,
    )
    who = report.name or "the bot"
    if report.ok:
        say(
            f"OK: {who} by {report.author} answered {report.moves} requests in "
            f"{report.hands} hands without a fault (slowest {1000 * report.slowest:.0f} ms)"
        )
        raise typer.Exit(EXIT_OK)
    say(f"FAILED: {who}: {len(report.faults)} fault(s) in {report.hands} hands")
    for fault in report.faults:
        say(f"  {fault}")
    raise typer.Exit(EXIT_FAULTS)
