"""``expert`` for the bidding games: bids on counted tricks, plays with its partner, counts cards.

Bidding: for each suit it could make trumps (the bidder leads, so its first
card names trumps) it counts sure tricks (top trumps in sequence, long
trumps, side aces), its marriages (40 in the trump suit, 20 otherwise) and a
partner's share, and bids the 33s that makes; it shoots the moon when it can
count all six tricks. Play: it leads its trump marriage or top trump first,
draws trumps while it holds the master, cashes masters, announces marriages;
following, it lets a partner's sure winner stand (and gives it points), wins
tricks as cheaply as it can with a card no one left to play can beat, and
otherwise throws its cheapest card. Its count is the ``TableView``: every
card played, and the voids the follow duty reveals.
"""

from __future__ import annotations

from p2p66.bots.table.api import TableBot
from p2p66.bots.table.simple import trick_winner, wins_over
from p2p66.bots.table.worlds import forbidden
from p2p66.engine.cards import ACE, CARD_POINTS, KING, QUEEN, SUIT_MASKS, ids_of, mask_of
from p2p66.engine.moves import MARRY_BASE, PASS
from p2p66.engine.table import BiddingOptions, TablePhase, TableView, bid_code
from p2p66.engine.tricks import marriage_suits

TRICK_VALUE = 21  # card points a won trick brings on average (120 over ~6 tricks, 4 cards)


def sure_tricks(hand: int, trump: int) -> int:
    """Tricks the hand takes for sure with ``trump`` as trumps and the lead."""
    trumps = hand & SUIT_MASKS[trump]
    top = 0
    for rank in range(6):
        if trumps >> (trump * 6 + rank) & 1:
            top += 1
        else:
            break
    length = trumps.bit_count()
    count = top + max(0, length - top - 2)  # long trumps: the last ones win when others run out
    if top >= 6 - length:  # the top trumps draw every trump out: then side masters run
        for suit in range(4):
            if suit == trump:
                continue
            for rank in range(6):
                if hand >> (suit * 6 + rank) & 1:
                    count += 1
                else:
                    break
    else:
        count += sum(1 for s in range(4) if s != trump and hand >> (s * 6 + ACE) & 1)
    return min(count, 7)


def bid_plan(view: TableView) -> tuple[int, int]:
    """(best bid 0..max, trump suit) for this seat's hand; 5 = the moon."""
    return hand_plan(mask_of(view.hand), view.options)


def hand_plan(hand: int, opts: BiddingOptions) -> tuple[int, int]:
    """(best bid 0..max, trump suit) for a hand of six (or seven) cards; 5 = the moon."""
    best, best_suit = 0, 0
    for suit in range(4):
        tricks = sure_tricks(hand, suit)
        if opts.players == 4 and tricks >= opts.hand_size and hand & SUIT_MASKS[suit]:
            return 5, suit
        married = sum(40 if s == suit else 20 for s in marriage_suits(hand))
        partner = 18 if opts.players == 4 else 0
        estimate = tricks * TRICK_VALUE + married + partner
        bid = min(estimate // 33, opts.max_bid - 1 if opts.players == 4 else opts.max_bid)
        if hand & SUIT_MASKS[suit] and (bid, tricks) > (best, sure_tricks(hand, best_suit)):
            best, best_suit = bid, suit
    return best, best_suit


class TableExpert(TableBot):
    """Heuristic bidding and partnership play; deterministic (the seed is unused)."""

    name = "expert"

    def __init__(self, seed: int = 0) -> None:
        del seed

    def choose(self, view: TableView) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        if view.phase == TablePhase.BID:
            bid, _suit = bid_plan(view)
            code = bid_code(bid) if bid else PASS
            return code if code in legal else PASS
        if view.phase == TablePhase.LEAD:
            return lead(view)
        return follow(view)


def out_against(view: TableView) -> int:
    """Cards still out (not seen by this seat) that others may play."""
    return mask_of(view.unseen)


def lead(view: TableView) -> int:
    legal = view.legal
    hand = mask_of(view.hand)
    if view.trump is None:
        _bid, suit = bid_plan(view)
        if not hand & SUIT_MASKS[suit]:
            suit = max(range(4), key=lambda s: (hand & SUIT_MASKS[s]).bit_count())
        marry = [c for c in legal if c >= MARRY_BASE and (c - MARRY_BASE) // 6 == suit]
        if marry:
            return max(marry)  # lead the queen, keep the king
        return min(ids_of(hand & SUIT_MASKS[suit]))  # its top trump
    trump = view.trump
    marriages = [c for c in legal if c >= MARRY_BASE]
    if marriages:
        return max(marriages, key=lambda c: ((c - MARRY_BASE) // 6 == trump, c))
    out = out_against(view)
    trumps = hand & SUIT_MASKS[trump]
    if trumps and out & SUIT_MASKS[trump]:
        top = min(ids_of(trumps))
        if not out & SUIT_MASKS[trump] & ((1 << top) - 1):
            return top  # draw trumps with the master
    masters = [
        c for c in ids_of(hand) if c // 6 != trump and not out & SUIT_MASKS[c // 6] & ((1 << c) - 1)
    ]
    if masters:
        return max(masters, key=lambda c: CARD_POINTS[c])
    cards = [c for c in legal if c < MARRY_BASE]
    side = [c for c in cards if c // 6 != trump] or cards
    return min(side, key=lambda c: (CARD_POINTS[c], (hand & SUIT_MASKS[c // 6]).bit_count(), -c))


def follow(view: TableView) -> int:
    cards = list(view.legal)
    trump = view.trump if view.trump is not None else -1
    seat_winning, best = trick_winner(view)
    opts = view.options
    still = _to_play_after(view)
    bans = forbidden(view)
    out = out_against(view)
    side = opts.side_of(view.seat)

    def safe(card: int, over: int) -> bool:
        """Nobody left to play can beat ``card`` (given what each may hold)."""
        for seat in still:
            can = out & ~bans[seat]
            led = view.trick[0][1].suit
            if can & SUIT_MASKS[led]:
                pool = can & SUIT_MASKS[led]
            elif trump >= 0 and can & SUIT_MASKS[trump]:
                pool = can & (SUIT_MASKS[trump] | SUIT_MASKS[led])
            else:
                pool = 0
            if any(wins_over(c, over, trump) for c in ids_of(pool)):
                return False
        return True

    partner_wins = opts.side_of(seat_winning) == side and seat_winning != view.seat
    losers = [c for c in cards if not wins_over(c, best, trump)]
    winners = [c for c in cards if wins_over(c, best, trump)]
    if partner_wins and safe(best, best):
        if losers:  # let it stand and smear points on it
            return max(losers, key=lambda c: (CARD_POINTS[c] if c // 6 != trump else -1, -c))
        return max(winners, key=lambda c: c)  # forced to overtake: as low as possible
    safe_winners = [c for c in winners if safe(c, c)]
    if safe_winners:
        return min(safe_winners, key=lambda c: (c // 6 == trump, CARD_POINTS[c] < 10, c))
    trick_points = sum(c.points for _, c in view.trick)
    if winners and not still:
        return min(winners, key=lambda c: (c // 6 == trump, CARD_POINTS[c]))
    if winners and trick_points >= 10:
        return max(winners, key=lambda c: (c // 6 == trump, -CARD_POINTS[c], c))
    pool = losers or cards
    return min(pool, key=lambda c: (CARD_POINTS[c], c // 6 == trump, c % 6 in (KING, QUEEN), c))


def _to_play_after(view: TableView) -> list[int]:
    """Seats still to play to the trick after this seat."""
    n = view.options.players
    active = n - (1 if view.out_seat is not None else 0)
    left = active - len(view.trick) - 1
    out: list[int] = []
    seat = view.seat
    while len(out) < left:
        seat = (seat + 1) % n
        if seat != view.out_seat:
            out.append(seat)
    return out
