"""Card inference from the opponent's choices: how well a world explains its recent decisions.

The hard inferences (``knowledge.py``) only rule out what the rules forbid. A
good player's choices say more: it declares a marriage when it holds one,
leads cards it can spare, follows to win or to shed. ``PolicyLikelihood``
replays, in a world, what happened since this seat's previous decision of
the hand (the anchor), rebuilding the opponent's hand and view at each of its
decisions, and asks a model of a good player (``expert.decide``) what it
would have done there. Every decision the model agrees with counts 1, every
other ``EPSILON``: a world in which the opponent's play made sense is the
likelier one. It never says "impossible": an opponent that plays otherwise
only makes the inference weaker, never drops the true world for good.

What the opponent drew since the anchor is hidden: each card of its hand
that was unseen then may be the one it drew, and the likelihood is the mean
over those histories (each is equally likely a priori). Only the last
stretch of play is judged (the anchor is the previous decision), which keeps
the histories few; the strict-phase voids carry the older evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from itertools import permutations

from p2p66.bots.api import PublicMove, Turn, same_hand
from p2p66.engine.cards import KING, QUEEN, ids_of, mask_of
from p2p66.engine.determinize import determinize
from p2p66.engine.moves import EXCHANGE, MARRY_BASE
from p2p66.engine.state import HandState, Phase
from p2p66.engine.view import PlayerView, view_of

EPSILON = 0.1  # the weight of a world in which the opponent's choice was not the model's

Policy = Callable[[Turn], tuple[int, str]]


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where the replay starts: one of this seat's views and the public moves up to it."""

    view: PlayerView
    moves: tuple[PublicMove, ...]


@dataclass(frozen=True, slots=True)
class _Plan:
    """What every world's replay shares: the moves since the anchor and the anchor's table."""

    after: tuple[PublicMove, ...]
    opp_played: int  # cards the opponent played since the anchor
    exchange: tuple[int, int] | None  # (received, given) if the opponent exchanged since
    hidden: int  # cards unseen at the anchor (the face-up trump is seen)
    face_up: int  # the anchor's face-up trump, as a mask (0 if none)
    opp_size: int
    opp_shown: int  # the opponent's cards shown at the anchor
    my_shown: int  # this seat's cards the opponent had seen (the view does not say)
    winner_is_me: bool | None  # who drew first, if a trick ended since the anchor
    template: HandState  # the anchor's table, any hidden cards: copied for each history


@dataclass(slots=True)
class PolicyLikelihood:
    """The likelihood, in a world, of the opponent's decisions since ``anchor``."""

    turn: Turn
    anchor: Anchor
    policy: Policy
    epsilon: float
    _plan: _Plan
    _seen: dict[int, float] = field(default_factory=dict, repr=False)
    _decisions: dict[tuple[int, int], bool] = field(default_factory=dict, repr=False)

    def __call__(self, world: HandState) -> float:
        """In [EPSILON ** decisions, 1]; it depends only on the opponent's hand (cached)."""
        opp = 1 - self.turn.seat
        hand = world.hands[opp]
        known = self._seen.get(hand)
        if known is None:
            known = self._seen[hand] = self._likelihood(world)
        return known

    def _likelihood(self, world: HandState) -> float:
        weights = [w for w in self._histories(world) if w is not None]
        if not weights:  # no history fits (an inference elsewhere was wrong): judge nothing
            return 1.0
        return sum(weights) / len(weights)

    def _histories(self, world: HandState) -> list[float | None]:
        """One weight per way the hidden draws since the anchor can have gone (None: it
        does not lead to this world)."""
        plan = self._plan
        opp = 1 - self.turn.seat
        base = world.hands[opp] | plan.opp_played
        if plan.exchange is not None:
            received, given = plan.exchange
            base = base & ~(1 << received) | 1 << given
        rest = tuple(world.stock[world.stock_pos :])
        rest_mask = mask_of(rest)
        size = plan.opp_size
        drawable = base & (plan.hidden | plan.face_up)  # the loser of the last draw: face up
        drops = [0] if base.bit_count() == size else [1 << c for c in ids_of(drawable)]
        out: list[float | None] = []
        for drop in drops:
            start_hand = base & ~drop
            if start_hand.bit_count() != size or start_hand & plan.opp_shown != plan.opp_shown:
                continue
            if rest_mask & start_hand or rest_mask & ~plan.hidden:
                continue
            drawn = plan.hidden & ~start_hand & ~rest_mask
            for order in _draw_orders(drawn, drop, plan.winner_is_me):
                out.append(self._replay(start_hand, order + rest, world))
        return out

    def _replay(self, start_hand: int, stock: tuple[int, ...], world: HandState) -> float | None:
        plan = self._plan
        state = plan.template.copy()
        turn = self.turn
        me, opp = turn.seat, 1 - turn.seat
        state.hands[opp] = start_hand
        state.stock = stock
        state.stock_pos = 0
        state.shown[me] = plan.my_shown
        prefix = len(self.anchor.moves)
        weight = 1.0
        for i, pm in enumerate(plan.after):
            code = pm.move.code
            if state.to_act != pm.seat or not state.is_legal(code):
                return None
            if pm.seat == opp and not self._agrees(prefix + i, state):
                weight *= self.epsilon
            state.apply_code_unchecked(code)
        if state.hands != world.hands:
            return None
        return weight

    def _agrees(self, index: int, state: HandState) -> bool:
        """Whether the model would have made the opponent's move ``index`` of the log here."""
        opp = state.to_act
        key = (index, state.hands[opp])
        known = self._decisions.get(key)
        if known is None:
            turn = self.turn
            view = view_of(state, opp)
            if len(view.legal) == 1:
                known = True
            else:
                past = Turn(
                    view, turn.moves[:index], turn.first_trump, turn.hand_number, turn.match_points
                )
                known = self.policy(past)[0] == turn.moves[index].move.code
            self._decisions[key] = known
        return known


def policy_likelihood(
    turn: Turn, previous: Turn | None, policy: Policy, epsilon: float = EPSILON
) -> PolicyLikelihood | None:
    """The model for this turn, or None when the opponent made no choice to judge.

    ``previous`` is this seat's previous decision (any hand: one of another
    hand or seat is ignored). Without one, the opponent's opening lead of the
    hand is judged from the view just before it.
    """
    anchor = _anchor(turn, previous)
    if anchor is None:
        return None
    opp = 1 - turn.seat
    if not any(pm.seat == opp for pm in turn.moves[len(anchor.moves) :]):
        return None
    return PolicyLikelihood(turn, anchor, policy, epsilon, _plan(turn, anchor))


def _plan(turn: Turn, anchor: Anchor) -> _Plan:
    view = anchor.view
    me, opp = view.seat, 1 - view.seat
    after = turn.moves[len(anchor.moves) :]
    hidden = mask_of(view.unseen)
    shown = mask_of(view.opponent_shown)
    size = view.opponent_hand_size
    dealt = ids_of(shown) + ids_of(hidden & ~shown)[: size - shown.bit_count()]
    template = determinize(view, dealt, ids_of(hidden & ~mask_of(dealt)))
    exchange = None
    if any(pm.seat == opp and pm.move.code == EXCHANGE for pm in after):
        received = view.trump_card.id if view.trump_card is not None else -1
        exchange = (received, template.exchange_card)
    new_tricks = turn.view.tricks[len(view.tricks) :]
    return _Plan(
        after=after,
        opp_played=mask_of([_card(pm.move.code) for pm in after if pm.seat == opp and _plays(pm)]),
        exchange=exchange,
        hidden=hidden,
        face_up=1 << view.trump_card.id if view.trump_card is not None else 0,
        opp_size=size,
        opp_shown=shown,
        my_shown=_seen_by_all(turn, anchor, template.exchange_card),
        winner_is_me=new_tricks[0].winner == me if new_tricks else None,
        template=template,
    )


def _draw_orders(drawn: int, opp_card: int, winner_is_me: bool | None) -> list[tuple[int, ...]]:
    """The orders in which the face-down cards ``drawn`` since the anchor can have lain on
    the talon: the trick's winner took the top one (``opp_card`` is the opponent's)."""
    cards = ids_of(drawn)
    if len(cards) > 2:  # more than one trick's draws: not a history this model judges
        return []
    if len(cards) == 2 and winner_is_me is not None and drawn & opp_card:
        theirs = opp_card.bit_length() - 1
        mine = cards[0] if cards[1] == theirs else cards[1]
        return [(mine, theirs) if winner_is_me else (theirs, mine)]
    return list(permutations(cards))


def _seen_by_all(turn: Turn, anchor: Anchor, exchange: int) -> int:
    """Cards of this seat's hand at the anchor that the opponent has seen: the partners of
    its marriages, and any face-up trump it took (by the exchange of ``exchange``, the
    trump that may be exchanged, or by the last draw)."""
    view = anchor.view
    seen = 1 << turn.first_trump.id
    for pm in anchor.moves:
        code = pm.move.code
        if code == EXCHANGE:
            seen |= 1 << exchange
        elif pm.seat == turn.seat and MARRY_BASE <= code < 2 * MARRY_BASE:
            card = code - MARRY_BASE
            seen |= 1 << (card ^ 1 if card % 6 in (KING, QUEEN) else card)
    return seen & mask_of(view.hand)


def _anchor(turn: Turn, previous: Turn | None) -> Anchor | None:
    if previous is not None and same_hand(turn, previous):
        return Anchor(previous.view, previous.moves)
    view = turn.view
    if view.phase != Phase.FOLLOW or view.tricks or view.lead is None or view.lead_is_marriage:
        return None
    return Anchor(_before_opening_lead(turn), turn.moves[:-1])


def _before_opening_lead(turn: Turn) -> PlayerView:
    """This seat's view just before the opponent led the hand's first (plain) card."""
    view = turn.view
    lead = view.lead
    assert lead is not None
    opp = 1 - view.seat
    exchanged = any(pm.seat == opp and pm.move.code == EXCHANGE for pm in turn.moves)
    shown = view.opponent_shown
    if exchanged and lead == turn.first_trump:
        shown = (*shown, lead)  # the face-up card it took in the exchange: seen by all
    values = {f.name: getattr(view, f.name) for f in fields(PlayerView)}
    values.update(
        phase=Phase.LEAD,
        to_act=opp,
        lead=None,
        lead_is_marriage=False,
        played=view.played - {lead},
        opponent_hand_size=view.opponent_hand_size + 1,
        opponent_shown=shown,
        legal=(),
    )
    return PlayerView(**values)


def _plays(pm: PublicMove) -> bool:
    return pm.move.code < 2 * MARRY_BASE


def _card(code: int) -> int:
    return code if code < MARRY_BASE else code - MARRY_BASE
