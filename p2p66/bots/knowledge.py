"""Card tracking: what a seat knows and may infer about the hidden cards.

From a ``Turn`` (view + public moves) this works out the masks a bot thinks
in: my hand, the cards still out against me, the opponent's shown cards,
and hard inferences from the strict phase (a player who does not follow suit
is void in it; one who neither follows nor trumps has no trumps; one who
follows low could not beat the led card). ``sample_world`` deals the hidden
cards at random under those constraints: one determinisation.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations, permutations
from math import comb, factorial

from p2p66.bots.api import Turn
from p2p66.engine.cards import SUIT_MASKS, deck_ids, mask_of
from p2p66.engine.cards import ids_of as bits
from p2p66.engine.determinize import determinize
from p2p66.engine.moves import CLOSE, DRAW, MARRY_BASE
from p2p66.engine.state import HandState

TRIES = 8  # worlds drawn at most for one sample under a likelihood (rejection sampling)


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick from the public log, and whether strict rules applied to it."""

    leader: int
    lead: int
    follow: int
    strict: bool


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The masks of one seat's knowledge at a turn."""

    seat: int
    trump: int
    mine: int
    played: int
    out: int  # not mine, not played: in the opponent's hand or the talon (incl. trump card)
    hidden: int  # out minus the known cards (opponent's shown cards, the face-up trump)
    opp_shown: int
    trump_card: int  # the face-up card under the talon, -1 if taken
    forbidden: int  # cards the opponent cannot hold (strict-phase inference)
    opp_size: int
    talon_size: int
    talon_open: bool

    @property
    def opp_exact(self) -> int | None:
        """The opponent's hand when it is certain (no talon left), else None."""
        if self.talon_size == 0:
            return self.out
        return None

    def possible_opp(self) -> int:
        """Cards the opponent may hold."""
        base = self.out & ~self.forbidden
        if self.trump_card >= 0:
            base &= ~(1 << self.trump_card)
        return base | self.opp_shown


def public_tricks(turn: Turn) -> list[Trick]:
    """Replay the public move log into tricks, marking which were played under strict rules."""
    opts = turn.view.options
    talon_left = opts.deck_size - 2 * opts.hand_size
    draw_point = opts.allow_close and opts.close_before_draw
    closed = False
    lead = -1
    leader = -1
    out: list[Trick] = []
    for pm in turn.moves:
        code = pm.move.code
        if code == CLOSE:
            closed = True
        elif code == DRAW:
            talon_left -= 2
        elif code < 2 * MARRY_BASE:
            card = code if code < MARRY_BASE else code - MARRY_BASE
            if lead < 0:
                lead, leader = card, pm.seat
                continue
            strict = closed or talon_left <= 0
            out.append(Trick(leader, lead, card, strict))
            if not strict and not draw_point:
                talon_left -= 2
            lead = -1
    return out


def infer_forbidden(turn: Turn, tricks: list[Trick]) -> int:
    """Cards the opponent cannot hold now, from how it followed under strict rules."""
    me = turn.seat
    trump = turn.view.trump_suit
    forbidden = 0
    for t in tricks:
        if not t.strict or t.leader != me:
            continue
        lead_suit, follow_suit = t.lead // 6, t.follow // 6
        if follow_suit != lead_suit:
            forbidden |= SUIT_MASKS[lead_suit]
            if follow_suit != trump:
                forbidden |= SUIT_MASKS[trump]
        elif t.follow > t.lead:  # followed low: held nothing higher in the suit
            forbidden |= SUIT_MASKS[lead_suit] & ((1 << t.lead) - 1)
    return forbidden


def knowledge_of(turn: Turn) -> Knowledge:
    view = turn.view
    deck = mask_of(deck_ids(view.options.deck_size))
    mine = mask_of(view.hand)
    played = mask_of(view.played)
    out = deck & ~mine & ~played
    opp_shown = mask_of(view.opponent_shown)
    trump_card = view.trump_card.id if view.trump_card is not None else -1
    hidden = out & ~opp_shown
    if trump_card >= 0:
        hidden &= ~(1 << trump_card)
    forbidden = infer_forbidden(turn, public_tricks(turn)) & hidden
    return Knowledge(
        seat=view.seat,
        trump=view.trump_suit,
        mine=mine,
        played=played,
        out=out,
        hidden=hidden,
        opp_shown=opp_shown,
        trump_card=trump_card,
        forbidden=forbidden,
        opp_size=view.opponent_hand_size,
        talon_size=view.talon_size,
        talon_open=view.talon_open,
    )


class WorldSampler:
    """Deals determinisations of one turn: the hidden cards at random, within the constraints.

    The first world is built (and checked) by the engine's ``determinize``;
    later ones copy it and redeal only the opponent's hand and the talon.
    """

    def __init__(
        self,
        turn: Turn,
        know: Knowledge,
        likelihood: Callable[[HandState], float] | None = None,
    ) -> None:
        self.likelihood = likelihood
        self._hidden = bits(know.hidden)
        self._need = know.opp_size - know.opp_shown.bit_count()
        allowed = [c for c in self._hidden if not know.forbidden >> c & 1]
        if len(allowed) < self._need:  # inconsistent inference (cannot happen with legal play)
            allowed = list(self._hidden)
        self._allowed = allowed
        self._shown = know.opp_shown
        self._opp = 1 - know.seat
        self._template = determinize(
            turn.view,
            allowed[: self._need] + bits(know.opp_shown),
            self._rest(allowed[: self._need]),
        )

    def _rest(self, opp: list[int]) -> list[int]:
        chosen = mask_of(opp)
        return [c for c in self._hidden if not chosen >> c & 1]

    def sample(self, rng: random.Random) -> HandState:
        """A fresh determinised state (the caller may mutate it).

        With a ``likelihood`` (of what the opponent was seen to do, in a world), worlds are
        drawn by rejection: each is kept with that probability, the last of ``TRIES`` anyway.
        """
        likelihood = self.likelihood
        if likelihood is None:
            return self._uniform(rng)
        for _ in range(TRIES - 1):
            world = self._uniform(rng)
            if rng.random() < likelihood(world):
                return world
        return self._uniform(rng)

    def _uniform(self, rng: random.Random) -> HandState:
        opp = rng.sample(self._allowed, self._need)
        stock = self._rest(opp)
        rng.shuffle(stock)
        world = self._template.copy()
        world.hands[self._opp] = mask_of(opp) | self._shown
        world.stock = tuple(stock)
        return world

    def count(self) -> int:
        """How many different worlds ``sample`` can deal (opponent's hand x talon order)."""
        rest = len(self._hidden) - self._need
        return comb(len(self._allowed), self._need) * factorial(rest)

    def every_world(self) -> list[HandState]:
        """Every world ``sample`` can deal, once each (for the few left late in a hand:
        see ``count``), equally likely under the sampler's constraints."""
        worlds = []
        for opp in combinations(self._allowed, self._need):
            for stock in permutations(self._rest(list(opp))):
                world = self._template.copy()
                world.hands[self._opp] = mask_of(list(opp)) | self._shown
                world.stock = stock
                worlds.append(world)
        return worlds
