"""Full states consistent with a player's view, for search bots (PIMC, ISMCTS).

A view hides the opponent's hand and the talon order; a search bot guesses
them (a "determinisation") and searches the resulting full state. This is the
only place outside ``state.py`` that builds a ``HandState`` field by field, and
it checks that the guess fits the view so a bot bug cannot go unnoticed.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p66.engine.cards import mask_of
from p2p66.engine.errors import DealError
from p2p66.engine.state import HandState
from p2p66.engine.view import PlayerView


def determinize(view: PlayerView, opponent_hand: Sequence[int], stock: Sequence[int]) -> HandState:
    """A state matching ``view`` with a guessed opponent hand and face-down talon (top first).

    ``opponent_hand`` must hold ``view.opponent_hand_size`` cards including
    ``view.opponent_shown``; ``stock`` holds the remaining face-down talon cards.
    Together they must be exactly the cards the view has not seen.
    """
    me, opp = view.seat, 1 - view.seat
    opp_mask, stock_mask = mask_of(opponent_hand), mask_of(stock)
    unseen = mask_of(view.unseen) | mask_of(view.opponent_shown)
    if opp_mask & stock_mask or opp_mask | stock_mask != unseen:
        raise DealError("the guessed opponent hand and talon are not exactly the unseen cards")
    if len(opponent_hand) != view.opponent_hand_size:
        raise DealError(
            f"the opponent holds {view.opponent_hand_size} cards, not {len(opponent_hand)}"
        )
    if mask_of(view.opponent_shown) & ~opp_mask:
        raise DealError("the guessed opponent hand lacks a card the opponent has shown")
    face_down = view.talon_size - 1 if view.talon_size else 0
    if len(stock) != face_down:
        raise DealError(f"the talon holds {face_down} face-down cards, not {len(stock)}")
    s = HandState()
    s.options = view.options
    s.deck = ()
    s.dealer = view.dealer
    hands = [0, 0]
    hands[me] = mask_of(view.hand)
    hands[opp] = opp_mask
    s.hands = hands
    s.stock = tuple(stock)
    s.stock_pos = 0
    s.talon_left = view.talon_size
    s.trump_suit = view.trump_suit
    s.trump_card = view.trump_card.id if view.trump_card is not None else -1
    s.exchange_card_rank = 5 if view.options.exchange_rank == "9" else 4
    s.closed = view.closed
    s.closer = view.closer if view.closer is not None else -1
    snap = view.close_snapshot or (0, 0)
    s.close_snapshot = (snap[0], snap[1], False)
    s.tricks = list(view.tricks_won)
    score = [0, 0]
    score[me], score[opp] = view.my_points, view.opponent_points
    s.score = score
    held = [0, 0]
    held[me], held[opp] = view.my_held_points, view.opponent_held_points
    s.held = held
    won = [0, 0]
    for t in view.tricks:
        won[t.winner] |= t.lead.bit | t.follow.bit
    s.won = won
    shown = [0, 0]
    shown[opp] = mask_of(view.opponent_shown)
    s.shown = shown
    s.marriages = list(view.marriages)
    s.leader = view.tricks[-1].winner if view.tricks else 1 - view.dealer
    if view.lead is not None:
        s.leader = view.to_act if view.phase.name == "MARRIAGE_DECLARE" else 1 - view.to_act
    s.to_act = view.to_act
    s.phase = view.phase
    s.lead_card = view.lead.id if view.lead is not None else -1
    s.lead_marriage = view.lead_is_marriage
    s.tricks_played = len(view.tricks)
    s.played = mask_of(view.played)
    s.tricks_log = [(t.leader, t.lead.id, t.follow.id, t.winner) for t in view.tricks]
    s.history = []
    s.result = view.result
    return s
