"""Soft card inference: how well a world explains the lead the opponent just made.

The hard inferences (``knowledge.py``) only rule out what the rules forbid.
A reasonable player also reveals its hand by what it chooses: it leads
cheap cards it does not need and keeps trumps, aces and marriage halves. When
this seat is to follow, the opponent's hand at its lead is, in any world, that
world's opponent hand plus the led card: nothing was drawn in between. A world
in which the lead was a poor choice (by the expert's card values, judged from
the opponent's seat: every card it cannot see may beat it) is less likely
to be the real one, and ``LeadLikelihood`` says how much less, for rejection
sampling (``WorldSampler.sample``). It never says "impossible": an opponent
that plays differently only makes the inference useless, never wrong enough
to drop the true world.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from p2p66.bots.api import Turn
from p2p66.bots.heuristics import keep_value
from p2p66.engine.cards import CARD_POINTS, JACK, NINE, SUIT_MASKS, deck_ids, mask_of
from p2p66.engine.state import HandState, Phase

TEMPERATURE = 6.0  # card-value units per factor e of likelihood
FLOOR = 0.05  # the least likelihood of any lead: an opponent may play as it likes


@dataclass(frozen=True, slots=True)
class LeadLikelihood:
    """The likelihood, in a world, of the lead this seat now has to follow."""

    opponent: int
    lead: int
    trump: int
    unseen: int  # cards the opponent could not see at its lead, besides its own hand
    exchangeable: int  # the card that could still be exchanged for the face-up trump, or -1
    bonus: int  # the face-up trump's points (what holding ``exchangeable`` is worth extra)

    seen: dict[int, float] = field(default_factory=dict, compare=False, repr=False)

    def __call__(self, world: HandState) -> float:
        """In [FLOOR, 1]: 1 when the lead was the opponent's best card by these values.

        It depends only on the opponent's hand, which few hidden cards make recur: each
        hand is judged once (``seen``).
        """
        hand = world.hands[self.opponent] | 1 << self.lead
        known = self.seen.get(hand)
        if known is None:
            known = self.seen[hand] = self._likelihood(hand)
        return known

    def _likelihood(self, hand: int) -> float:
        lead = self.lead
        out = self.unseen & ~hand
        values = {}
        mask = hand
        while mask:
            low = mask & -mask
            card = low.bit_length() - 1
            mask ^= low
            values[card] = self._value(card, low, hand, out)
        gap = values[lead] - max(values.values())
        return max(FLOOR, math.exp(gap / TEMPERATURE))

    def _value(self, card: int, low: int, hand: int, out: int) -> float:
        """The playout policy's lead value, with "the opponent may beat it" read as "some card
        still unseen beats it" (a leader does not see the follower's hand)."""
        suit = card // 6
        trump = self.trump
        beat = out & SUIT_MASKS[suit] & (low - 1)
        if suit != trump:
            beat |= out & SUIT_MASKS[trump]
        points = CARD_POINTS[card]
        value = -points - 6.0 if beat else points + 2.0
        bonus = self.bonus if card == self.exchangeable else 0
        return value - keep_value(card, hand, out, trump, True, exchange_bonus=bonus)


def lead_likelihood(turn: Turn) -> LeadLikelihood | None:
    """The model for this turn: only when following a plain card led with the talon open
    (a marriage is led for its points, and the strict phase has its own hard inference)."""
    view = turn.view
    lead = view.lead
    if view.phase != Phase.FOLLOW or lead is None or view.lead_is_marriage:
        return None
    if view.closed or view.talon_size == 0:
        return None
    options = view.options
    deck = mask_of(deck_ids(options.deck_size))
    played_before = mask_of(view.played) & ~(1 << lead.id)
    trump_card = view.trump_card.id if view.trump_card is not None else -1
    exchangeable = -1
    if trump_card >= 0 and view.talon_size >= options.exchange_min_talon:
        exchangeable = view.trump_suit * 6 + (JACK if options.exchange_rank == "J" else NINE)
    unseen = deck & ~played_before
    if trump_card >= 0:
        unseen &= ~(1 << trump_card)  # face up: the opponent knows it is not in my hand
    return LeadLikelihood(
        opponent=1 - view.seat,
        lead=lead.id,
        trump=view.trump_suit,
        unseen=unseen,
        exchangeable=exchangeable,
        bonus=CARD_POINTS[trump_card] if trump_card >= 0 else 0,
    )
