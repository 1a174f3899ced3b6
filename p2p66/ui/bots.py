"""The one place the UI gets a bot: an adapter over ``p2p66.bots``.

Tables talk to a ``TableBot``: a view and the public record of the hand in,
a legal move code out. ``make_table_bot`` builds one from the text the user
typed (``random``, ``strong:ms=50``, an external command...) through the
registry of ``p2p66.bots``; ``_registry`` is the only code that knows that
package. Two tiny fallbacks (``first``, ``random``) keep ``p2p66 play``
working even without it.
"""

from __future__ import annotations

import random
import shlex
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from p2p66.engine import PlayerView, RuleOptions
from p2p66.engine.cards import Card
from p2p66.engine.moves import MOVES

if TYPE_CHECKING:
    from p2p66.bots.api import Bot, Turn


class UnknownBotError(ValueError):
    """The user asked for a bot that does not exist or cannot be started."""


class BotMoveError(RuntimeError):
    """A bot failed to answer with a legal move: the bot's fault, not the player's."""


@dataclass(frozen=True, slots=True)
class BotContext:
    """What the table tells a bot besides its view: all public, all known at the table."""

    moves: tuple[tuple[int, int], ...]  # (seat, move code) of every move of this hand so far
    first_trump: Card
    hand_number: int
    match_points: tuple[int, int]


class TableBot(Protocol):
    """A bot as a table uses it."""

    def choose(self, view: PlayerView, context: BotContext) -> int:
        """A legal move code for ``view``."""
        ...

    def end_hand(self, view: PlayerView) -> None: ...

    def close(self) -> None: ...


class FirstLegalBot:
    """Always the first legal move: predictable, for tests and demos."""

    def choose(self, view: PlayerView, context: BotContext) -> int:
        return view.legal[0].code

    def end_hand(self, view: PlayerView) -> None:
        pass

    def close(self) -> None:
        pass


class RandomLegalBot(FirstLegalBot):
    """A uniformly random legal move, never a false declaration of 66."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: PlayerView, context: BotContext) -> int:
        moves = [m for m in view.legal if m.kind != "declare" or view.my_points >= 66]
        return self._rng.choice(moves).code


FALLBACK_BOTS = ("first", "random")


def _fallback(name: str, seed: int) -> TableBot | None:
    if name == "first":
        return FirstLegalBot()
    if name == "random":
        return RandomLegalBot(seed)
    return None


def turn_for(view: PlayerView, context: BotContext, time_limit: float | None = None) -> Turn:
    """The ``p2p66.bots`` turn for a view and the table's public record."""
    from p2p66.bots.api import PublicMove, Turn

    return Turn(
        view=view,
        moves=tuple(PublicMove(seat, MOVES[code]) for seat, code in context.moves),
        first_trump=context.first_trump,
        hand_number=context.hand_number,
        match_points=context.match_points,
        time_limit=time_limit,
    )


class _PackageBot:
    """A ``p2p66.bots.Bot`` behind the ``TableBot`` interface."""

    def __init__(self, bot: Bot, name: str) -> None:
        self._bot = bot
        self._name = name

    def choose(self, view: PlayerView, context: BotContext) -> int:
        from p2p66.bots.api import as_action

        try:
            return as_action(self._bot.choose(turn_for(view, context))).move.code
        except Exception as exc:  # a bot's crash is reported, whatever it was
            raise BotMoveError(f"bot {self._name} failed: {exc}") from exc

    def end_hand(self, view: PlayerView) -> None:
        self._bot.end_hand(view)

    def close(self) -> None:
        self._bot.close()


def _registry_names() -> tuple[str, ...]:
    try:
        from p2p66.bots.registry import BUILTINS
    except ImportError:
        return ()
    return tuple(BUILTINS)


def _registry_bot(spec_text: str, seed: int, rules: RuleOptions) -> TableBot | None:
    """A bot from ``p2p66.bots``, or None when that package is not there."""
    try:
        from p2p66.bots.api import BotError
        from p2p66.bots.registry import make_bot, parse_bot_spec
    except ImportError:
        return None
    try:
        spec = parse_bot_spec(spec_text)
        if spec.kind == "external" and shutil.which(spec.command[0]) is None:
            return None
        return _PackageBot(make_bot(spec, seed, rules), spec.label)
    except BotError as exc:
        raise UnknownBotError(str(exc)) from None
    except ImportError as exc:
        raise UnknownBotError(f"bot {spec_text!r} cannot be loaded: {exc}") from None


def available_bots() -> tuple[str, ...]:
    """Names of the built-in bots (an external bot's command line is accepted too)."""
    names = list(_registry_names())
    return (*names, *(n for n in FALLBACK_BOTS if n not in names))


def check_bot_spec(spec: str) -> str:
    """The spec, stripped, if it names a bot that exists (without starting it)."""
    text = spec.strip()
    head = text.partition(":")[0]
    if head in available_bots() or (head == "vu" and text != "vu"):
        return text
    try:
        program = shlex.split(text)[0] if text else ""
    except ValueError:
        program = ""
    if program and shutil.which(program):
        return text
    raise _unknown(spec)


def _unknown(spec: str) -> UnknownBotError:
    """The error for a name that is no bot, listing the bots of ``p2p66 bot list``."""
    listed = _registry_names() or FALLBACK_BOTS  # "first" is for tests and demos: not listed
    return UnknownBotError(
        f"no bot named {spec!r}: bots are {', '.join(listed)}, "
        "or the command line of an external bot"
    )


def make_table_bot(spec: str, seed: int, rules: RuleOptions) -> TableBot:
    """A bot from what the user typed; UnknownBotError says what exists."""
    bot = _registry_bot(spec, seed, rules) or _fallback(spec.strip(), seed)
    if bot is None:
        raise _unknown(spec)
    return bot
