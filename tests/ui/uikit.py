"""Shared by the UI tests: a simple deterministic player policy and its keystrokes."""

from __future__ import annotations

from p2p66.engine import Phase, PlayerView
from p2p66.engine.cards import Card
from p2p66.engine.moves import DECLARE, DRAW, PASS, MOVES
from p2p66.ui.cards_text import display_order


def _beats(card: Card, lead: Card, trump: int) -> bool:
    if card.suit == lead.suit:
        return card.rank < lead.rank
    return card.suit == trump


def choose(view: PlayerView) -> int:
    """A plain, greedy human: marries, declares at 66, wins tricks cheaply."""
    legal = view.legal
    codes = {m.code for m in legal}
    if view.phase in (Phase.MARRIAGE_DECLARE, Phase.FINAL_DECLARE):
        return DECLARE if view.my_points >= 66 else PASS
    if view.phase == Phase.DRAW:
        return DRAW
    if DECLARE in codes and view.my_points >= 66:
        return DECLARE
    marriages = [m for m in legal if m.kind == "marry" and m.card is not None and m.card.rank == 3]
    if marriages:
        marriages.sort(key=lambda m: m.card is not None and m.card.suit != view.trump_suit)
        return marriages[0].code
    plays = [m.card for m in legal if m.kind == "play" and m.card is not None]
    if view.phase == Phase.FOLLOW and view.lead is not None:
        lead = view.lead
        winners = [c for c in plays if _beats(c, lead, view.trump_suit)]
        if winners:
            return min(winners, key=lambda c: (c.suit == view.trump_suit, c.points)).id
        return min(plays, key=lambda c: (c.points, c.suit == view.trump_suit)).id
    return min(plays, key=lambda c: (c.suit == view.trump_suit, c.points)).id


def keystrokes(view: PlayerView, code: int, turn: int) -> str:
    """How a player types ``code`` at the prompt; card plays alternate code and number."""
    move = MOVES[code]
    if code == DRAW:
        return "\r"  # Enter alone draws
    if code == DECLARE:
        return "d"  # key binding: submits at once
    if code == PASS:
        return "p"
    card = move.card
    assert card is not None
    if move.kind == "marry":
        return "m" + card.code.lower() + "\r"  # 'm' inserts "marry:"
    if turn % 2:
        return str(display_order(view.hand, view.trump_suit).index(card) + 1) + "\r"
    return card.code.lower() + "\r"
