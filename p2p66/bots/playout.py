"""A fast perfect-information playout policy for the search bots.

Inside a determinisation everything is known, so the policy may look at
both hands: it plays the expert's card values (``heuristics.keep_value``)
with exact knowledge of which cards the opponent can beat. It must be cheap
(a few microseconds a move): it declares at 66, takes marriages and the
exchange, never closes, leads what the opponent cannot profitably take,
wins valuable tricks as cheaply as it can, and cashes sure winners in the
strict phase.
"""

from __future__ import annotations

from typing import Final

from p2p66.bots.heuristics import keep_value
from p2p66.engine.cards import CARD_POINTS, KING, SUIT_MASKS
from p2p66.engine.moves import DECLARE, DRAW, EXCHANGE, MARRY_BASE, PASS
from p2p66.engine.state import HandState, Phase, strict_allowed

_ALL: Final = (1 << 24) - 1
_KINGS: Final = sum(1 << (suit * 6 + KING) for suit in range(4))  # as the engine's marriages


def policy_move(s: HandState) -> int:
    """The policy's move code for the player to act."""
    phase = s.phase
    seat = s.to_act
    if phase == Phase.FOLLOW:
        return _follow(s, seat)
    if phase == Phase.LEAD:
        return _lead(s, seat)
    if phase == Phase.DRAW:
        return DRAW
    return DECLARE if s.score[seat] >= 66 else PASS


def _exchangeable(s: HandState) -> int:
    """The card that may still be exchanged for the face-up trump, -1 if none may.

    Only an open talon's cards are valued with it (``keep_value``'s ``exchange_bonus``).
    """
    if s.talon_open and s.talon_left >= s.options.exchange_min_talon:
        return s.exchange_card
    return -1


def _lead(s: HandState, seat: int) -> int:
    hand = s.hands[seat]
    # Only a marriage pair, the exchange card or 66 points can add a move the policy
    # prefers to a card: without them the legal moves need not be listed.
    if hand & hand >> 1 & _KINGS or hand >> s.exchange_card & 1 or s.score[seat] >= 66:
        special = _special_lead(s, seat)
        if special >= 0:
            return special
    opp = s.hands[1 - seat]
    trump = s.trump_suit
    opp_trumps = opp & SUIT_MASKS[trump]
    talon_open = s.talon_open
    out = _ALL & ~hand & ~s.played
    exchangeable = _exchangeable(s) if talon_open else -1
    bonus = CARD_POINTS[s.trump_card] if exchangeable >= 0 else 0
    best, best_value = -1, -1e9
    mask = hand
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        mask ^= low
        suit = c // 6
        beat = opp & SUIT_MASKS[suit] & (low - 1)
        if suit != trump and (talon_open or not opp & SUIT_MASKS[suit]):
            beat |= opp_trumps
        pts = CARD_POINTS[c]
        value = -pts - 6.0 if beat else pts + (2.0 if talon_open else 20.0)
        if talon_open:
            value -= keep_value(
                c, hand, out, trump, True, exchange_bonus=bonus if c == exchangeable else 0
            )
        elif suit == trump and not beat and opp_trumps:
            value += 10.0  # pull the opponent's trumps first
        if value > best_value:
            best, best_value = c, value
    return best


def _special_lead(s: HandState, seat: int) -> int:
    """Declare at 66, else exchange, else a marriage (trumps first); -1 for none of these."""
    codes = s.legal_codes()
    if DECLARE in codes and s.score[seat] >= 66:
        return DECLARE
    if EXCHANGE in codes:
        return EXCHANGE
    marry = -1
    for code in codes:
        if MARRY_BASE <= code < EXCHANGE:
            card = code - MARRY_BASE
            if marry < 0 or card // 6 == s.trump_suit:
                marry = code
    return marry


def _follow(s: HandState, seat: int) -> int:
    hand = s.hands[seat]
    lead = s.lead_card
    trump = s.trump_suit
    talon_open = s.talon_open
    allowed = hand if talon_open else strict_allowed(hand, lead, trump)
    lead_suit = lead // 6
    lead_pts = CARD_POINTS[lead]
    out = _ALL & ~hand & ~s.played
    me_total = s.score[seat] + s.held[seat]
    opp_total = s.score[1 - seat] + s.held[1 - seat]
    exchangeable = _exchangeable(s) if talon_open else -1
    bonus = CARD_POINTS[s.trump_card] if exchangeable >= 0 else 0
    best, best_value = -1, -1e9
    mask = allowed
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        mask ^= low
        suit = c // 6
        wins = c < lead if suit == lead_suit else suit == trump
        pts = lead_pts + CARD_POINTS[c]
        if talon_open:
            value = -keep_value(
                c, hand, out, trump, True, exchange_bonus=bonus if c == exchangeable else 0
            )
        else:
            value = -CARD_POINTS[c] * 0.5 - (4.0 if suit == trump else 0.0)
        if wins:
            value += pts + 3.0
            if me_total + pts >= 66:
                value += 100.0
        else:
            value -= pts
            if opp_total + pts >= 66:
                value -= 100.0
        if value > best_value:
            best, best_value = c, value
    return best


def playout(s: HandState, limit: int = 200) -> None:
    """Play ``s`` to the end in place with the policy."""
    while s.phase != Phase.OVER and limit:
        s.apply_code_unchecked(policy_move(s))
        limit -= 1
