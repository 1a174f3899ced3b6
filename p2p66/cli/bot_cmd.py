"""``p2p66 bot list``, ``bot serve NAME`` and ``bot check CMD``.

The bots there are, a built-in bot served over protocol/BOT.md, and whether
yours complies.

``bot check`` exits 0 when the external bot broke no rule of
``protocol/BOT.md`` in a few hands of each preset, 1 when it did (every
fault is listed), 2 on bad input.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import textwrap
from typing import Annotated

import typer

from p2p66.bots.api import BotError
from p2p66.bots.registry import BUILTINS, make_bot, parse_bot_spec
from p2p66.cli.exits import BOT_CHECK_HELP
from p2p66.cli.output import say
from p2p66.engine.options import PRESETS
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
def list_bots(
    as_json: Annotated[
        bool, typer.Option("--json", help="The bots and their options as one JSON object.")
    ] = False,
) -> None:
    """List the built-in bots, their options, and the vu: bots when available."""
    from p2p66.bots.vu import vu_available

    if as_json:
        bots = [
            {"name": bot.name, "summary": bot.summary, "options": dict(bot.options)}
            for bot in BUILTINS.values()
        ]
        say(json.dumps({"bots": bots, "vu_bots": vu_available()}, indent=2))
        return
    width = max(len(name) for name in BUILTINS)
    columns = shutil.get_terminal_size().columns  # COLUMNS, else 80 when piped
    option_indent = " " * (width + 4)
    for bot in BUILTINS.values():
        say(_wrapped(f"{bot.name:<{width}}  {bot.summary}", columns, " " * (width + 2)))
        for key, text in bot.options.items():
            line = f"{option_indent}{bot.name}:{key}=...  {text}"
            say(_wrapped(line, columns, option_indent + "    "))
    if vu_available():
        vu_bots = "vu:rand, vu:rdeep[:SAMPLES:DEPTH], vu:bully  bots of the schnapsen package"
        say(_wrapped(vu_bots, columns, option_indent))
        say(f"{option_indent}(only with --preset vu)")
    else:
        say("(vu:... bots need the optional 'schnapsen' package)")
    say(
        _wrapped(
            "north-american, south-bend, cut-throat: random, greedy, expert and strong[:ms=N] "
            "of their own (three-handed hands are played by the bots above).",
            columns,
            "",
        )
    )
    say(
        _wrapped(
            "Any other text is run as the command of an external bot (protocol/BOT.md).",
            columns,
            "",
        )
    )


def _wrapped(line: str, columns: int, indent: str) -> str:
    """``line`` wrapped between words to the terminal, later lines under ``indent``."""
    return textwrap.fill(
        line,
        width=max(columns - 1, 40),
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
        drop_whitespace=True,
    )


@bot_app.command("serve")
def serve(
    name: Annotated[str, typer.Argument(help="A built-in bot, with options: strong:samples=64")],
    *,
    seed: Annotated[int, typer.Option(help="Seed of the bots (one per game)")] = 1,
) -> None:
    """Run a built-in bot as an external one: protocol/BOT.md on stdin and stdout."""
    from p2p66.bots.serve import serve as serve_bot

    try:
        spec = parse_bot_spec(name)
        if spec.kind != "builtin":
            raise BotError(f"{name!r} is not a built-in bot (see 'p2p66 bot list')")
        make_bot(spec, 0, PRESETS["sixty-six"]).close()  # bad options fail here, not mid-match
    except BotError as exc:
        say(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    code = serve_bot(
        spec.label,
        lambda game_seed, rules: make_bot(spec, game_seed, rules),
        seed=seed,
        stdin=sys.stdin,
        stdout=sys.stdout,
        stderr=sys.stderr,
    )
    raise typer.Exit(code)


@bot_app.command("check", epilog=BOT_CHECK_HELP)
def check(
    command: Annotated[str, typer.Argument(help="The bot's command line, quoted")],
    *,
    games: Annotated[
        int,
        typer.Option(
            "--games",
            "--hands",
            min=1,
            help="Per preset: whole matches, one bot process for them all "
            "(bidding games: up to 12 hands a match)",
        ),
    ] = 2,
    movetime: Annotated[float, typer.Option(help="Seconds the bot may take per move")] = 2.0,
    margin: Annotated[float, typer.Option(min=0.0, help="Grace seconds over --movetime")] = 0.5,
    quiet: Annotated[bool, typer.Option(help="Only print the verdict and the faults")] = False,
) -> None:
    """Play the bot as 'match' does and report every fault.

    Two-player presets (sixty-six, schnapsen, vu): one process plays whole
    matches. Then the bidding games (north-american, cut-throat: requests
    with "game": "bidding") the same way.
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
        games_per_preset=games,
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
