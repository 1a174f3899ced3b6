"""The API of a bot for the bidding games: a ``TableView`` in, a legal move code out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from p2p66.bots.api import BotError
from p2p66.engine.table import TableView


class TableBot(ABC):
    """A player that sees only what its seat may see; ``choose`` returns one of ``view.legal``.

    ``end_hand`` tells how a hand ended (the view holds the result); ``close``
    releases resources such as a child process.
    """

    name: str = "bot"

    @abstractmethod
    def choose(self, view: TableView) -> int:
        """Pick one of ``view.legal``."""

    def end_hand(self, view: TableView) -> None:  # noqa: B027 - optional hook
        """Called after every hand with the seat's final view."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources; the bot is not used afterwards."""


def _factories() -> dict[str, Callable[[int], TableBot]]:
    from p2p66.bots.table.expert import TableExpert
    from p2p66.bots.table.simple import TableGreedy, TableRandom
    from p2p66.bots.table.strong import TableStrong

    return {
        "random": TableRandom,
        "greedy": TableGreedy,
        "expert": TableExpert,
        "strong": TableStrong,
    }


TABLE_BOTS = ("random", "greedy", "expert", "strong")


def _external(spec: str) -> TableBot:
    """Any other spec is the command line of an external bot (``protocol/BOT.md``)."""
    import shlex
    import shutil

    from p2p66.bots.table.external import ExternalTableBot

    try:
        command = shlex.split(spec)
    except ValueError as exc:
        raise BotError(f"cannot split the bot command {spec!r}: {exc}") from None
    if not command or shutil.which(command[0]) is None:
        raise BotError(
            f"unknown bot {spec!r}: neither a built-in bot of the bidding games "
            f"({', '.join(TABLE_BOTS)}) nor a command on PATH"
        )
    return ExternalTableBot(command, name=spec)


def make_table_bot(spec: str, seed: int) -> TableBot:
    """A bot for a bidding game: a built-in name (``strong:ms=50`` sets strong's budget per
    move) or the command line of an external bot."""
    name, _, rest = spec.strip().partition(":")
    factories = _factories()
    if name not in factories or " " in spec.strip():
        return _external(spec)
    if name == "strong":
        from p2p66.bots.table.strong import TableStrong

        ms = 100.0
        for item in filter(None, rest.split(",")):
            key, eq, value = item.partition("=")
            if key != "ms" or not eq:
                raise BotError(f"bot strong has only the option ms=N, not {item!r}")
            try:
                ms = float(value)
            except ValueError:
                raise BotError(f"bot strong: ms must be a number, not {value!r}") from None
            if ms <= 0:
                raise BotError("bot strong: ms must be positive")
        bot: TableBot = TableStrong(seed, budget=ms / 1000)
    elif rest:
        raise BotError(f"bot {name} has no options")
    else:
        bot = factories[name](seed)
    bot.name = spec
    return bot
