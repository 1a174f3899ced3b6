"""Build a deck order from the hands and talon you want (tests, tutorials, puzzles).

The inverse of the deal layout: say what each player should hold, which card
lies face up and what is on top of the talon, and get the deck order that
deals exactly that. Cards left unnamed fill the remaining talon positions.
"""

from __future__ import annotations

from collections.abc import Iterable

from p2p66.engine.cards import deck_ids, parse_card_id
from p2p66.engine.deal import deal_layout
from p2p66.engine.errors import DealError
from p2p66.engine.options import RuleOptions


def _ids(cards: str | Iterable[str]) -> list[int]:
    items = cards.split() if isinstance(cards, str) else list(cards)
    return [parse_card_id(c) for c in items]


def build_deck(
    options: RuleOptions,
    *,
    non_dealer: str | Iterable[str],
    dealer: str | Iterable[str],
    trump: str,
    talon: str | Iterable[str] = (),
) -> list[int]:
    """Deck order dealing ``non_dealer``/``dealer`` hands, ``trump`` face up, ``talon`` on top."""
    lay = deal_layout(options)
    deck: list[int | None] = [None] * options.deck_size
    placed: list[int] = []
    for positions, cards in (
        (lay.non_dealer, _ids(non_dealer)),
        (lay.dealer, _ids(dealer)),
        ((lay.trump,), _ids([trump])),
        (lay.talon, _ids(talon)),
    ):
        if len(cards) > len(positions) or (positions != lay.talon and len(cards) != len(positions)):
            raise DealError(f"expected {len(positions)} cards, got {len(cards)}")
        for pos, card in zip(positions, cards, strict=False):
            deck[pos] = card
            placed.append(card)
    if len(set(placed)) != len(placed):
        raise DealError("a card is named twice")
    rest = [c for c in deck_ids(options.deck_size) if c not in placed]
    if len(rest) != deck.count(None):
        raise DealError("a named card is not in this deck")
    it = iter(rest)
    return [c if c is not None else next(it) for c in deck]
