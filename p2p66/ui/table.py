"""The table the UI plays at: one seat's window onto a match, whoever runs it.

The UI never sees a ``HandState``. It reads ``TableEvent`` values from a
``Table`` and submits move codes to it. ``LocalTable`` runs the engine and a
bot in this process; a network table runs the peer protocol and plugs into the
same UI, so nothing above this module knows where the opponent is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from p2p66.engine import HandResult, Phase, PlayerView
from p2p66.engine.moves import DRAW, MOVES, PASS

ConnectionState = Literal["local", "connecting", "connected", "reconnecting", "waiting", "closed"]
CONNECTION_STATES: tuple[ConnectionState, ...] = (
    "local",
    "connecting",
    "connected",
    "reconnecting",
    "waiting",
    "closed",
)


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A new hand was dealt; ``view`` is the first view of it."""

    hand_number: int
    view: PlayerView
    game_points: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ViewChanged:
    """What this seat knows changed without a move (e.g. a card was revealed to it)."""

    view: PlayerView


@dataclass(frozen=True, slots=True)
class MovePlayed:
    """``seat`` made move ``code``; ``view`` is this seat's view right after it."""

    seat: int
    code: int
    view: PlayerView

    @property
    def notation(self) -> str:
        return MOVES[self.code].notation


@dataclass(frozen=True, slots=True)
class HandOver:
    """The hand ended; ``game_points`` are the match totals after it."""

    result: HandResult
    game_points: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match ended; ``winner`` is None when it was abandoned."""

    winner: int | None
    game_points: tuple[int, int]
    resigned: int | None = None  # the seat that resigned (left the match), if one did


@dataclass(frozen=True, slots=True)
class ConnectionStatus:
    """Where the link to the opponent stands, for the status bar."""

    state: ConnectionState
    latency_ms: float | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """Something worth one sentence to the player (e.g. "Replay saved and verified")."""

    text: str


@dataclass(frozen=True, slots=True)
class PeerError:
    """The opponent (or the link to it) did something wrong; the text says what."""

    text: str


TableEvent = (
    HandStarted
    | ViewChanged
    | MovePlayed
    | HandOver
    | MatchOver
    | ConnectionStatus
    | Notice
    | PeerError
)


def automatic(view: PlayerView | None) -> int | None:
    """A move the table plays for the seat without asking, or None.

    Going on after a marriage, or at the last trick of a closed hand, while
    short of 66: declaring could only lose the hand, so nobody is asked. And
    drawing after a won trick when nothing else (closing, exchanging) is
    allowed then: there is nothing to choose.
    """
    if view is None or not view.my_turn:
        return None
    if view.phase == Phase.DRAW and all(move.code == DRAW for move in view.legal):
        return DRAW
    if view.my_points >= 66:
        return None
    if view.phase in (Phase.MARRIAGE_DECLARE, Phase.FINAL_DECLARE):
        return PASS
    return None


class Table(Protocol):
    """One seat at a match. Events arrive in order; ``MatchOver`` is the last one.

    ``submit`` raises ``IllegalMoveError`` (with ``.reason``) when the move is
    not legal now; the move then counts for nothing and the seat may try
    again. A position for which ``automatic`` gives a move is played by the
    table itself: the seat is not asked (its view still says ``my_turn``).
    ``close`` ends the match early (if still running) and frees what the
    table holds; calling it twice is harmless.
    """

    @property
    def seat(self) -> int: ...

    @property
    def names(self) -> tuple[str, str]: ...

    async def next_event(self) -> TableEvent: ...

    async def submit(self, move_code: int) -> None: ...

    async def close(self) -> None: ...

    @property
    def failure(self) -> str | None:
        """Why the match stopped early (a ``LiveGameError`` kind such as "replay"), if it did."""
        ...
