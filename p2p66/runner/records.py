"""What a finished game is, as a typed value and as one NDJSON line.

The results file is the runner's source of truth: a ``start`` line with the
run's settings, then one ``game`` line per finished game, written and
flushed as the game ends (in completion order; ``game`` numbers say which).
``--resume`` reads it back, so every field needed for statistics is here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

Side = Literal["a", "b"]
FaultKind = Literal["illegal", "timeout", "crash", "protocol"]
FAULT_KINDS: tuple[FaultKind, ...] = ("illegal", "timeout", "crash", "protocol")


def replay_file_name(game: int) -> str:
    """The name of game ``game``'s signed replay in a run's ``--replays`` directory."""
    return f"game-{game:06d}.p66"


class ResultsFileError(ValueError):
    """A results file that cannot be resumed from: its line and what is wrong with it."""


@dataclass(frozen=True, slots=True)
class Forfeit:
    """Why a side lost a game without it being played out."""

    side: Side
    kind: FaultKind
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "kind": self.kind, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class DealtHand:
    """One hand's deal as the results record it: dealer and deck (card codes, index 0 first).

    ``deck`` is None only over loopback for a hand cut short by a forfeit,
    whose shuffle the peers never opened.
    """

    dealer: int
    deck: str | None

    def to_json(self) -> dict[str, Any]:
        return {"dealer": self.dealer, "deck": self.deck}

    @classmethod
    def from_json(cls, data: Any) -> DealtHand:
        if not isinstance(data, dict) or data.get("dealer") not in (0, 1):
            raise ResultsFileError(f"bad deal {data!r}")
        deck = data.get("deck")
        if deck is not None and not isinstance(deck, str):
            raise ResultsFileError(f"bad deck {deck!r}")
        return cls(int(data["dealer"]), deck)


@dataclass(frozen=True, slots=True)
class TimedMove:
    """One decision as the game record file shows it: who, what, how long, the bot's info."""

    seat: int
    move: str
    seconds: float
    info: dict[str, str | int | float | bool] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game (a match to the target, or a single hand in ``--hands`` mode).

    ``a_seat`` is the seat bot A played; ``points`` are game points (A, B);
    ``winner`` is None only for a tied single hand. ``hands`` counts the
    hands dealt, a hand cut short by a forfeit included (0 when a bot could
    not start); ``deals`` is each of them.
    """

    game: int
    pair: int
    a_seat: int
    winner: Side | None
    points: tuple[int, int]
    hands: int
    moves: int
    seconds: float
    think: tuple[float, float]
    max_move: tuple[float, float]
    forfeit: Forfeit | None = None
    deals: tuple[DealtHand, ...] = ()
    moves_timed: tuple[tuple[TimedMove, ...], ...] | None = field(default=None, compare=False)

    @property
    def score_a(self) -> float:
        """1, 0.5 or 0 from A's side."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == "a" else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "game",
            "game": self.game,
            "pair": self.pair,
            "a_seat": self.a_seat,
            "winner": self.winner,
            "points": list(self.points),
            "hands": self.hands,
            "moves": self.moves,
            "seconds": round(self.seconds, 4),
            "think": [round(t, 4) for t in self.think],
            "max_move": [round(t, 4) for t in self.max_move],
            "forfeit": self.forfeit.to_json() if self.forfeit else None,
            "deals": [d.to_json() for d in self.deals],
        }

    def to_line(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any) -> GameResult:
        """Parse a ``game`` line; ResultsFileError says which field is wrong."""
        if not isinstance(data, dict) or data.get("type") != "game":
            raise ResultsFileError("not a game record")
        try:
            forfeit_raw = data["forfeit"]
            forfeit = None
            if forfeit_raw is not None:
                kind = forfeit_raw["kind"]
                side = forfeit_raw["side"]
                if kind not in FAULT_KINDS or side not in ("a", "b"):
                    raise ResultsFileError(f"bad forfeit {forfeit_raw!r}")
                forfeit = Forfeit(side, kind, str(forfeit_raw["detail"]))
            winner = data["winner"]
            if winner not in ("a", "b", None):
                raise ResultsFileError(f"bad winner {winner!r}")
            return cls(
                game=_int(data, "game"),
                pair=_int(data, "pair"),
                a_seat=_int(data, "a_seat"),
                winner=winner,
                points=_pair(data["points"], int),
                hands=_int(data, "hands"),
                moves=_int(data, "moves"),
                seconds=float(data["seconds"]),
                think=_pair(data["think"], float),
                max_move=_pair(data["max_move"], float),
                forfeit=forfeit,
                deals=tuple(DealtHand.from_json(d) for d in data.get("deals", [])),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ResultsFileError):
                raise
            raise ResultsFileError(f"malformed game record: {exc!r}") from None


def _int(data: dict[str, Any], key: str) -> int:
    value = data[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ResultsFileError(f"{key} must be a whole number >= 0, not {value!r}")
    return value


def _pair(value: Any, kind: type[int] | type[float]) -> Any:
    if not isinstance(value, list) or len(value) != 2:
        raise ResultsFileError(f"expected a pair of numbers, not {value!r}")
    return (kind(value[0]), kind(value[1]))
