"""Moves and their notation (RULES.md "Cards and notation" and "Decision points").

A move is a small integer code so that legal-move lists and search stay
cheap; ``MOVES[code]`` is the interned ``Move`` value object for it.
Codes: 0-23 ``play:X``, 24-47 ``marry:X`` (24 + card id), then ``exchange``,
``close``, ``declare``, ``draw`` and ``pass``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from p2p66.engine.cards import CARD_CODES, CARDS, SUIT_NAMES, Card, parse_card_id
from p2p66.engine.errors import NotationError

MoveKind = Literal["play", "marry", "exchange", "close", "declare", "draw", "pass"]

MARRY_BASE: Final = 24
EXCHANGE: Final = 48
CLOSE: Final = 49
DECLARE: Final = 50
DRAW: Final = 51
PASS: Final = 52
NUM_MOVE_CODES: Final = 53

_WORD_CODES: Final[dict[str, int]] = {
    "exchange": EXCHANGE,
    "close": CLOSE,
    "declare": DECLARE,
    "draw": DRAW,
    "pass": PASS,
}


@dataclass(frozen=True, slots=True)
class Move:
    """One move in canonical notation; use ``MOVES[code]`` or ``Move.parse``."""

    code: int
    kind: MoveKind
    card: Card | None

    @property
    def notation(self) -> str:
        return f"{self.kind}:{self.card.code}" if self.card is not None else self.kind

    def __str__(self) -> str:
        return self.notation

    def __repr__(self) -> str:
        return f"Move({self.notation})"

    @staticmethod
    def parse(text: str) -> Move:
        return MOVES[parse_move_code(text)]


def _make(code: int) -> Move:
    if code < MARRY_BASE:
        return Move(code, "play", CARDS[code])
    if code < EXCHANGE:
        return Move(code, "marry", CARDS[code - MARRY_BASE])
    kind = {v: k for k, v in _WORD_CODES.items()}[code]
    return Move(code, kind, None)  # type: ignore[arg-type]


MOVES: Final = tuple(_make(code) for code in range(NUM_MOVE_CODES))
MOVE_NOTATION: Final = tuple(m.notation for m in MOVES)
_NOTATION_TO_CODE: Final = {n: i for i, n in enumerate(MOVE_NOTATION)}

_ALIASES: Final = {
    "x": EXCHANGE,
    "ex": EXCHANGE,
    "swap": EXCHANGE,
    "c": CLOSE,
    "d": DECLARE,
    "66": DECLARE,
    "p": PASS,
    "no": PASS,
    "n": PASS,
    "t": DRAW,
    "take": DRAW,
}
_MARRY_PREFIX: Final = re.compile(
    r"^(?:marry|marriage|m)\s*[: ]\s*(?P<card>.+)$|^m(?P<tight>\S{2,3})$"
)
_PLAY_PREFIX: Final = re.compile(r"^(?:play|p)\s*[: ]\s*(?P<card>.+)$")

EXPECTED: Final = (
    "expected a card (e.g. 'AH', '10h'), 'marry:QH' (or 'm qh'), "
    "'exchange', 'close', 'declare', 'draw' or 'pass'"
)


def parse_move_code(text: str) -> int:
    """Parse canonical or lenient move text to a move code, or raise NotationError."""
    raw = text.strip()
    exact = _NOTATION_TO_CODE.get(raw)
    if exact is not None:
        return exact
    low = " ".join(raw.lower().split())
    if low in _WORD_CODES:
        return _WORD_CODES[low]
    if low in _ALIASES:
        return _ALIASES[low]
    marry = _MARRY_PREFIX.match(low)
    if marry:
        card_text = marry.group("card") or marry.group("tight")
        try:
            return MARRY_BASE + parse_card_id(card_text)
        except NotationError:
            raise NotationError(
                f"{text!r}: a marriage names its king or queen, e.g. 'm qh'"
            ) from None
    play = _PLAY_PREFIX.match(low)
    card_text = play.group("card") if play else low
    try:
        return parse_card_id(card_text)
    except NotationError:
        raise NotationError(f"{text!r} is not a move: {EXPECTED}") from None


def play_code(card: Card | str) -> int:
    """Code of ``play:X`` for a card or card code."""
    return card.id if isinstance(card, Card) else parse_card_id(card)


def describe(code: int) -> str:
    """Short human description, e.g. 'play the ten of hearts'."""
    move = MOVES[code]
    if move.kind == "play" and move.card is not None:
        return f"play the {move.card.name()}"
    if move.kind == "marry" and move.card is not None:
        suit = SUIT_NAMES[move.card.suit]
        return f"announce the marriage in {suit} and lead {move.card.code}"
    return {
        "exchange": "exchange the trump card",
        "close": "close the talon",
        "declare": "declare 66",
        "draw": "draw from the talon",
        "pass": "go on without declaring",
    }[move.kind]


__all__ = [
    "CARD_CODES",
    "CLOSE",
    "DECLARE",
    "DRAW",
    "EXCHANGE",
    "MARRY_BASE",
    "MOVES",
    "MOVE_NOTATION",
    "PASS",
    "Move",
    "describe",
    "parse_move_code",
    "play_code",
]
