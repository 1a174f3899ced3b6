"""The small API every bot implements: a ``Turn`` in, a ``Move`` out.

A bot never sees the full state. A ``Turn`` carries the seat's
``PlayerView`` plus the public record of the hand (every move made so far by
either seat, and the trump card turned up at the deal): all of it is
information the player at the table has, so a bot can be stateless. Writing a
bot is one method::

    from p2p66.bots import Bot, Turn
    from p2p66.engine import Move

    class LowestCard(Bot):
        name = "lowest"

        def choose(self, turn: Turn) -> Move:
            return turn.legal[0]
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from p2p66.engine.cards import Card
from p2p66.engine.moves import Move
from p2p66.engine.options import RuleOptions
from p2p66.engine.slots import slot_setters
from p2p66.engine.view import PlayerView

InfoValue = str | int | float | bool
"""Values a bot may attach to a move as ``info`` (search depth, score, a comment)."""


@dataclass(frozen=True, slots=True)
class PublicMove:
    """One move of the hand as everyone at the table saw it."""

    seat: int
    move: Move


@dataclass(frozen=True, slots=True, init=False)
class Turn:
    """Everything one seat may know when it is asked for a move.

    ``time_limit`` is the seconds this move may take (None: no limit); the
    runner forfeits a bot that goes over it by more than its margin.
    """

    view: PlayerView
    moves: tuple[PublicMove, ...]
    first_trump: Card
    hand_number: int = 1
    match_points: tuple[int, int] = (0, 0)
    time_limit: float | None = None

    def __init__(  # noqa: PLR0917 - the signature dataclass would generate
        self,
        view: PlayerView,
        moves: tuple[PublicMove, ...],
        first_trump: Card,
        hand_number: int = 1,
        match_points: tuple[int, int] = (0, 0),
        time_limit: float | None = None,
    ) -> None:
        f = _TURN_SETTERS  # one Turn per decision: see slot_setters
        f[0](self, view)
        f[1](self, moves)
        f[2](self, first_trump)
        f[3](self, hand_number)
        f[4](self, match_points)
        f[5](self, time_limit)

    @property
    def seat(self) -> int:
        return self.view.seat

    @property
    def legal(self) -> tuple[Move, ...]:
        return self.view.legal


_TURN_SETTERS: Final = slot_setters(Turn)


@dataclass(frozen=True, slots=True)
class Action:
    """A move with optional ``info`` for logs (shown by the runner, never used by the rules)."""

    move: Move
    info: Mapping[str, InfoValue] = field(default_factory=dict)


class Bot(ABC):
    """A player that sees only what its seat may see.

    ``choose`` must return one of ``turn.legal``; anything else forfeits the
    game in the match runner. ``start_game`` comes first, off the clock (a
    place to start a process or load tables). ``end_hand`` tells the bot how a hand ended (its
    view then holds the result); ``close`` releases resources such as a
    child process. A bot instance plays one game at a time.
    """

    name: str = "bot"

    def start_game(self, seat: int, rules: RuleOptions) -> None:  # noqa: B027 - optional hook
        """Called once before a game (a match, or one hand), off the clock."""

    @abstractmethod
    def choose(self, turn: Turn) -> Move | Action:
        """Pick one of ``turn.legal``."""

    def end_hand(self, view: PlayerView) -> None:  # noqa: B027 - optional hook
        """Called after every hand with the seat's final view (``view.result`` is set)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources; the bot is not used afterwards."""

    def kill(self) -> None:
        """Stop at once, without a goodbye (the run is being stopped); defaults to ``close``."""
        self.close()


class BotError(Exception):
    """A bot that cannot be created or started (bad name, bad options, missing command)."""


class BotFault(Exception):
    """A bot broke the rules of play: it timed out, crashed, or spoke garbage.

    ``kind`` is one of "timeout", "crash", "protocol"; the runner turns the
    fault into a forfeit of the game and carries on.
    """

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def as_action(choice: Move | Action) -> Action:
    """Normalise what ``Bot.choose`` returned."""
    return choice if isinstance(choice, Action) else Action(choice)


def same_hand(turn: Turn, previous: Turn) -> bool:
    """Whether ``previous`` is an earlier decision of the same seat in the same hand."""
    n = len(previous.moves)
    return (
        previous.view.seat == turn.view.seat
        and previous.hand_number == turn.hand_number
        and previous.first_trump == turn.first_trump
        and previous.match_points == turn.match_points
        and len(turn.moves) > n
        and turn.moves[:n] == previous.moves
    )
