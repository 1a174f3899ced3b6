"""The canonical deal layouts of the bidding games (RULES.md "north-american", "cut-throat").

Which deck position goes to which seat, counted from the dealer's left. The
mental-poker deal of the next layer opens each position to its seat, so the
layout lives here once, as data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from p2p66.engine.cards import parse_card_id
from p2p66.engine.deal import check_deck
from p2p66.engine.errors import DealError
from p2p66.engine.options import PRESETS
from p2p66.engine.table.options import BiddingOptions


@dataclass(frozen=True, slots=True)
class TableLayout:
    """Deck positions per seat in dealing order (the dealer's left first, the dealer last)."""

    hands: tuple[tuple[int, ...], ...]
    widow: tuple[int, ...]

    def hand_positions(self, seat: int, dealer: int) -> tuple[int, ...]:
        """The deck positions dealt to ``seat`` when ``dealer`` deals."""
        n = len(self.hands)
        return self.hands[(seat - dealer - 1) % n]


@cache
def _layout(players: int) -> TableLayout:
    if players == 4:
        # two rounds of packets of three: 0-2, 3-5, 6-8, 9-11, then 12-14 ... 21-23
        return TableLayout(
            tuple((*range(3 * k, 3 * k + 3), *range(12 + 3 * k, 15 + 3 * k)) for k in range(4)),
            (),
        )
    return TableLayout(tuple(tuple(range(7 * k, 7 * k + 7)) for k in range(3)), (21, 22, 23))


def table_layout(options: BiddingOptions) -> TableLayout:
    return _layout(options.players)


def check_table_deck(deck: Sequence[int]) -> None:
    """Raise DealError unless ``deck`` is a permutation of the 24 cards."""
    check_deck(PRESETS["sixty-six"], list(deck))


def build_table_deck(
    options: BiddingOptions,
    dealer: int,
    hands: Mapping[int, str | Iterable[str]],
    widow: str | Iterable[str] = (),
) -> list[int]:
    """The deck order that deals ``hands`` (seat -> its cards) and ``widow`` (tests, puzzles).

    Seats not named, and the widow if not named, get the remaining cards in id order.
    """
    lay = table_layout(options)
    deck: list[int | None] = [None] * 24
    placed: list[int] = []
    wanted = [(lay.hand_positions(seat, dealer), cards) for seat, cards in hands.items()]
    if widow:
        wanted.append((lay.widow, widow))
    for positions, cards in wanted:
        ids = [parse_card_id(c) for c in (cards.split() if isinstance(cards, str) else cards)]
        if len(ids) != len(positions):
            raise DealError(f"expected {len(positions)} cards, got {len(ids)}")
        for pos, card in zip(positions, ids, strict=True):
            deck[pos] = card
            placed.append(card)
    if len(set(placed)) != len(placed):
        raise DealError("a card is named twice")
    rest = iter(c for c in range(24) if c not in placed)
    return [c if c is not None else next(rest) for c in deck]
