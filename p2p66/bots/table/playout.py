"""A fast playout policy on full states (for ``strong``'s search, never for a real seat).

Calls are the expert's (``expert.hand_plan``) on the world's hands, so a
simulated pass leaves room for the others' bids. It reads the whole state
of a determinised world directly, as bitmasks: no
view is built, so a playout costs a few microseconds a move. Its play is
the expert's in spirit: lead masters (trumps first while others hold
trumps) or a cheap card, let a partner's winning card stand and give it
points, win a trick as cheaply as possible, else throw the cheapest card.
"""

from __future__ import annotations

from p2p66.bots.table.expert import hand_plan
from p2p66.engine.cards import CARD_POINTS, SUIT_MASKS, ids_of
from p2p66.engine.moves import MARRY_BASE, PASS
from p2p66.engine.table import BiddingHand, TablePhase, bid_code
from p2p66.engine.tricks import marriage_suits


def _beats(card: int, best: int, trump: int) -> bool:
    if card // 6 == best // 6:
        return card < best
    return card // 6 == trump


def policy(s: BiddingHand) -> int:
    """A move code for the seat to act in ``s`` (which must not be over)."""
    seat = s.to_act
    hand = s.hands[seat]
    if s.phase == TablePhase.BID:
        bid, _suit = hand_plan(hand, s.options)
        return bid_code(bid) if bid > s.high_bid else PASS
    trump = s.trump
    others = 0
    for i, h in enumerate(s.hands):
        if i not in (seat, s.out_seat):
            others |= h
    if s.phase == TablePhase.LEAD:
        suits = marriage_suits(hand)
        if suits:
            suit = trump if trump in suits else suits[0]
            return MARRY_BASE + suit * 6 + 3  # lead the queen, keep the king
        if trump < 0:
            # no trumps yet: the longest suit with its top card
            suit = max(range(4), key=lambda x: ((hand & SUIT_MASKS[x]).bit_count(), -x))
            return (hand & SUIT_MASKS[suit] & -(hand & SUIT_MASKS[suit])).bit_length() - 1
        trumps = hand & SUIT_MASKS[trump]
        if trumps and others & SUIT_MASKS[trump]:
            top = (trumps & -trumps).bit_length() - 1
            if not others & SUIT_MASKS[trump] & ((1 << top) - 1):
                return top
        best = -1
        for suit in range(4):
            mine = hand & SUIT_MASKS[suit]
            if not mine or suit == trump:
                continue
            top = (mine & -mine).bit_length() - 1
            if not others & SUIT_MASKS[suit] & ((1 << top) - 1) and (
                best < 0 or CARD_POINTS[top] > CARD_POINTS[best]
            ):
                best = top
        if best >= 0:
            return best
        cards = ids_of(hand)
        side = [c for c in cards if c // 6 != trump] or cards
        return min(side, key=lambda c: (CARD_POINTS[c], -c))
    allowed = ids_of(s.follow_mask(hand))
    if len(allowed) == 1:
        return allowed[0]
    best_card = s.best_trump if s.best_trump >= 0 else s.best_led
    winner = next(w for w, c in s.trick if c == best_card)
    opts = s.options
    partner_wins = opts.side_of(winner) == opts.side_of(seat)
    last = len(s.trick) + 1 == s.active_seats
    winners = [c for c in allowed if _beats(c, best_card, trump)]
    losers = [c for c in allowed if c not in winners]
    if partner_wins and (last or not others & _beaters(best_card, trump, s.led_suit)):
        if losers:
            return max(losers, key=lambda c: (CARD_POINTS[c] if c // 6 != trump else -1, -c))
        return max(winners)
    if winners:
        if last:
            return min(winners, key=lambda c: (c // 6 == trump, CARD_POINTS[c]))
        sure = [c for c in winners if not others & _beaters(c, trump, s.led_suit)]
        if sure:
            return min(sure, key=lambda c: (c // 6 == trump, CARD_POINTS[c] < 10, c))
        trick_points = sum(CARD_POINTS[c] for _, c in s.trick)
        if trick_points >= 10:
            return max(winners, key=lambda c: (c // 6 == trump, -CARD_POINTS[c], c))
    pool = losers or allowed
    return min(pool, key=lambda c: (CARD_POINTS[c], c // 6 == trump, c))


def _beaters(card: int, trump: int, led: int) -> int:
    """Cards that would beat ``card`` in a trick led in ``led`` (an upper bound)."""
    same = SUIT_MASKS[card // 6] & ((1 << card) - 1)
    if card // 6 == trump:
        return same
    return same | (SUIT_MASKS[trump] if trump >= 0 else 0)


def playout(world: BiddingHand) -> None:
    """Play ``world`` to its end in place."""
    while not world.is_over:
        world.apply_code_unchecked(policy(world))
