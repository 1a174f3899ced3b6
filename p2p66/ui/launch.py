"""Starting a match for the UI: settings, the table factory, and which screen to run.

A ``TableFactory`` turns ``PlaySettings`` into an async context manager
yielding a ``Table``; ``local_table`` is the in-process one. The network
table plugs in by passing another factory: nothing else changes.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

from p2p66.engine import RuleOptions
from p2p66.ui.bots import TableBot, make_table_bot
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.config import DEFAULT_NAME, MAX_NAME
from p2p66.ui.local_table import LocalTable
from p2p66.ui.plain import PlainUI, StdinLines
from p2p66.ui.screen import Screen
from p2p66.ui.table import Table
from p2p66.ui.terminal import TerminalUI


@dataclass(frozen=True, slots=True)
class PlaySettings:
    """What ``p2p66 play`` was asked for, after merging the command line and the config."""

    options: RuleOptions
    bot: str
    seed: int
    name: str  # empty when the player never chose one: the table then picks
    bot_delay: float = 0.6
    clock: bool = False  # show the move clock (your time per move and per hand)
    seeded: bool = False
    """The player chose the seed (``--seed``): the table deals from it alone, a practice
    deal anyone with the seed can see. Only for a game against a bot on this computer."""


HINT_BOT = "strong"  # the bot that answers h in a practice game
TableFactory = Callable[[PlaySettings], AbstractAsyncContextManager[Table]]


@asynccontextmanager
async def local_table(settings: PlaySettings) -> AsyncIterator[Table]:
    """A match against ``settings.bot`` in this process."""
    bot = make_table_bot(settings.bot, settings.seed, settings.options)
    table = LocalTable(
        settings.options,
        bot,
        seed=settings.seed,
        names=(settings.name or DEFAULT_NAME, bot_label(settings.bot)),
        bot_delay=settings.bot_delay,
    )
    try:
        yield table
    finally:
        await table.close()


async def play(
    settings: PlaySettings, factory: TableFactory, style: TextStyle, *, plain: bool
) -> tuple[Screen, str | None]:
    """Open the table the factory makes and play at it until the match ends.

    Returns the last screen and the table's ``failure`` (why it stopped early, if it did).
    """
    hints = make_table_bot(HINT_BOT, settings.seed, settings.options)
    try:
        async with factory(settings) as table:
            screen = await run_ui(table, style, plain=plain, hint_bot=hints, clock=settings.clock)
            return screen, table.failure
    finally:
        hints.close()


async def run_ui(
    table: Table,
    style: TextStyle,
    *,
    plain: bool,
    hint_bot: TableBot | None = None,
    clock: bool = False,
) -> Screen:
    """The full screen or ``--plain`` lines at any table (``host``/``join`` use this too).

    ``hint_bot`` answers ``h`` (hints): given only for practice games against a bot.
    ``clock`` shows the move clock: in the status bar, or said after each of your moves.
    """
    if plain:
        return await PlainUI(table, style, StdinLines(), _print_line, hint_bot, clock=clock).run()
    return await TerminalUI(table, style, hint_bot=hint_bot, clock=clock).run()


def bot_label(name: str) -> str:
    """How a bot is called at the table: "random" plays as "Random Bot", and
    "strong:ms=50" as "Strong Bot (ms=50)" (the options as typed, not title-cased, cut
    with an ellipsis where the whole would not fit a name)."""
    base, _, options = name.partition(":")
    label = f"{base.replace('-', ' ').title()} Bot"
    room = MAX_NAME - len(label) - len(" ()")  # a player's name fits MAX_NAME characters
    if not options or room < 4:
        return label[:MAX_NAME]
    shown = options if len(options) <= room else options[: room - 3] + "..."  # ASCII: --ascii
    return f"{label} ({shown})"


def _print_line(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
