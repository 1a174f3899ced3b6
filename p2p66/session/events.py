"""Events the session machine reports as it accepts records (for the UI, bots, logs)."""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.engine import HandResult, RuleOptions
from p2p66.engine.table import TableOptions, TableResult, ThreeHandedResult


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of session events."""


@dataclass(frozen=True, slots=True)
class PlayerJoined(Event):
    seat: int
    name: str
    public_key: bytes


@dataclass(frozen=True, slots=True)
class RulesProposed(Event):
    options: RuleOptions
    soundness: int
    move_seconds: int


@dataclass(frozen=True, slots=True)
class TableRulesProposed(Event):
    """The host proposed a game for three or four players."""

    options: TableOptions
    soundness: int
    move_seconds: int


@dataclass(frozen=True, slots=True)
class RulesRefused(Event):
    reason: str


@dataclass(frozen=True, slots=True)
class MatchStarted(Event):
    session_id: bytes
    first_dealer: int


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    number: int
    dealer: int


@dataclass(frozen=True, slots=True)
class DealComplete(Event):
    number: int


@dataclass(frozen=True, slots=True)
class MoveMade(Event):
    seat: int
    code: int


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    number: int
    result: HandResult
    game_points: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    winner: int
    game_points: tuple[int, int]


@dataclass(frozen=True, slots=True)
class TableHandEnded(Event):
    """A hand of a game for three or four ended; ``scores`` per side after it."""

    number: int
    result: TableResult | ThreeHandedResult
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TableMatchEnded(Event):
    """``winner``: the winning side (a partnership, or a seat in the three-player games)."""

    winner: int
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Resigned(Event):
    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class Abandoned(Event):
    """``seat`` went silent owing record ``record``; the other player wins by forfeit."""

    seat: int
    record: int


@dataclass(frozen=True, slots=True)
class AuditCalled(Event):
    """Hand ``number`` stops before its end for an audit of both seeds (see ``reason``)."""

    number: int
    reason: str
