"""A bidding-game hand under partial knowledge: the public judge of a network table.

Every peer (and a replay verifier) judges each move before the hand's seeds
are out, while most cards are hidden. ``PartialBidding`` is the two-player
``PartialHand`` for the bidding games: turn order, calls, tricks and the
first lead's trump depend on public cards only and are exact; a follow whose
legality depends on the follower's hidden cards (the strict duty to follow,
beat, trump and overtrump on every trick) is accepted when some arrangement
of the hidden cards allows it and refused when none does. The audit at the
end re-judges every move on the whole deck.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p66.engine.cards import SUIT_MASKS
from p2p66.engine.partial import PartialDeal
from p2p66.engine.table.bidding import BiddingHand, TablePhase, new_bidding_hand
from p2p66.engine.table.deal import table_layout
from p2p66.engine.table.options import BiddingOptions


class PartialBidding(PartialDeal[BiddingHand]):
    """One hand of north-american, south-bend or cut-throat seen through partial knowledge."""

    def __init__(self, options: BiddingOptions, dealer: int) -> None:
        super().__init__(24, dealer)
        self.options = options

    def public_due(self) -> tuple[int, ...]:
        """The cut-throat widow, once the first trick's winner has taken it: opened to all."""
        if not self.options.widow_size or self.state().widow_taker < 0:
            return ()
        return table_layout(self.options).widow

    def _new(self, deck: Sequence[int]) -> BiddingHand:
        return new_bidding_hand(self.options, deck, self.dealer)

    def _harmful(self, s: BiddingHand, code: int) -> int:
        """Hidden cards whose presence in the follower's hand would make ``code`` illegal."""
        if s.phase != TablePhase.FOLLOW or code >= 24:
            return 0
        led, trump = s.led_suit, s.trump
        suit = code // 6
        if suit == led:
            if led != trump and s.best_trump >= 0:
                return 0  # already trumped: any card of the led suit
            return 0 if code < s.best_led else SUIT_MASKS[led] & ((1 << s.best_led) - 1)
        if suit == trump:
            harm = SUIT_MASKS[led]
            if self.options.overtrump and s.best_trump >= 0 and code > s.best_trump:
                harm |= SUIT_MASKS[trump] & ((1 << s.best_trump) - 1)
            return harm
        return SUIT_MASKS[led] | SUIT_MASKS[trump]
