"""Interop with the ``schnapsen`` teaching package: its bots as opponents under the ``vu`` preset.

The ``vu`` preset reproduces that package's engine (RULES.md, preset ``vu``),
so one of its bots can sit at our table: at each turn this adapter builds
the package's own ``GameState`` for the seat and asks the bot through the
package's ``LeaderPerspective`` / ``FollowerPerspective``. The bot must see
only what the seat knows, so the hidden cards (the opponent's hand, the
talon order, and which of its own cards each player drew when) are dealt at
random, consistent with everything public: a determinisation, as the
package's own ``make_assumption`` does. The history is then replayed
through the package's trick implementer, so the bot gets a genuine
``previous`` chain (its ``seen_cards`` and ``get_game_history`` work).

The package is an optional extra; everything here imports it lazily and
treats it as untyped.
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass, replace
from typing import Any

from p2p66.bots.api import Bot, BotError, Turn
from p2p66.bots.knowledge import public_tricks
from p2p66.engine.cards import JACK, KING, QUEEN, deck_ids, mask_of
from p2p66.engine.cards import ids_of as bits
from p2p66.engine.moves import EXCHANGE, MARRY_BASE, MOVES, Move
from p2p66.engine.options import PRESETS, RuleOptions
from p2p66.engine.state import Phase

VU_BOTS = ("rand", "rdeep", "bully")
_SUIT_NAMES = ("CLUBS", "DIAMONDS", "HEARTS", "SPADES")
_RANK_NAMES = ("ACE", "TEN", "KING", "QUEEN", "JACK")


def vu_available() -> bool:
    """True when the optional ``schnapsen`` package can be imported."""
    try:
        importlib.import_module("schnapsen.game")
    except ImportError:
        return False
    return True


def _modules() -> tuple[Any, Any, Any]:
    try:
        game = importlib.import_module("schnapsen.game")
        deck = importlib.import_module("schnapsen.deck")
        bots = importlib.import_module("schnapsen.bots")
    except ImportError as exc:
        raise BotError(
            "vu: bots need the optional 'schnapsen' package (pip install 'p2p66[schnapsen]'): "
            f"{exc}"
        ) from None
    return game, deck, bots


def make_vu_bot(spec: str, seed: int, rules: RuleOptions) -> Bot:
    """``rand``, ``rdeep[:SAMPLES:DEPTH]`` (default 16 and 4) or ``bully``, seeded."""
    if replace(rules, match_target=PRESETS["vu"].match_target) != PRESETS["vu"]:
        raise BotError("vu: bots play only under --preset vu (the schnapsen package's rules)")
    _game, _deck, bots = _modules()
    name, *args = spec.split(":")
    rng = random.Random(seed)
    if name == "rand" and not args:
        inner = bots.RandBot(rand=rng, name="vu:rand")
    elif name == "bully" and not args:
        inner = bots.BullyBot(rng, name="vu:bully")
    elif name == "rdeep" and len(args) in (0, 2):
        try:
            samples, depth = (int(args[0]), int(args[1])) if args else (16, 4)
        except ValueError:
            raise BotError(f"vu:rdeep takes SAMPLES:DEPTH as whole numbers, not {spec!r}") from None
        if samples < 1 or depth < 1:
            raise BotError("vu:rdeep needs SAMPLES >= 1 and DEPTH >= 1")
        inner = bots.RdeepBot(num_samples=samples, depth=depth, rand=rng, name=f"vu:{spec}")
    else:
        raise BotError(f"unknown vu bot {spec!r}; vu bots: rand, rdeep[:SAMPLES:DEPTH], bully")
    return VuBot(inner, f"vu:{spec}", random.Random(seed ^ 0x5EED))


class VuBot(Bot):
    """A ``schnapsen`` package bot behind our ``Bot`` API."""

    def __init__(self, inner: Any, name: str, rng: random.Random) -> None:
        self.inner = inner
        self.name = name
        self._rng = rng
        self._game, self._deck, _ = _modules()
        self._engine = self._game.SchnapsenGamePlayEngine()

    def choose(self, turn: Turn) -> Move:
        view = turn.view
        if view.phase not in (Phase.LEAD, Phase.FOLLOW):
            raise BotError(f"vu bots only lead and follow; got the {view.phase.name} point")
        deck = reconstruct_deck(turn, self._rng)
        state, pending = self.replay(turn, deck)
        g = self._game
        if pending is None:
            perspective = g.LeaderPerspective(state, self._engine)
        else:
            perspective = g.FollowerPerspective(state, self._engine, pending)
        move = self.inner.get_move(perspective, leader_move=pending)
        return self.to_move(move)

    # --------------------------------------------------------- translation

    def card(self, card_id: int) -> Any:
        d = self._deck
        return d.Card.get_card(
            getattr(d.Rank, _RANK_NAMES[card_id % 6]), getattr(d.Suit, _SUIT_NAMES[card_id // 6])
        )

    def card_id(self, card: Any) -> int:
        return _SUIT_NAMES.index(card.suit.name) * 6 + _RANK_NAMES.index(card.rank.name)

    def their_move(self, move: Move, trump: int) -> Any:
        g = self._game
        if move.code == EXCHANGE:
            return g.TrumpExchange(self.card(trump * 6 + JACK))
        if MARRY_BASE <= move.code < EXCHANGE:
            king = (move.code - MARRY_BASE) // 6 * 6 + KING
            return g.Marriage(self.card(king + (QUEEN - KING)), self.card(king))
        return g.RegularMove(self.card(move.code))

    def to_move(self, move: Any) -> Move:
        if move.is_trump_exchange():
            return MOVES[EXCHANGE]
        if move.is_marriage():
            return MOVES[MARRY_BASE + self.card_id(move.king_card)]
        return MOVES[self.card_id(move.card)]

    # ------------------------------------------------------------- replay

    def replay(self, turn: Turn, deck: list[int]) -> tuple[Any, Any | None]:
        """The package's state after the public moves, and the pending lead if we follow."""
        g = self._game
        hand1, hand2, talon = g.SchnapsenHandGenerator.generateHands(
            self._deck.OrderedCardCollection([self.card(c) for c in deck])
        )
        first = 1 - turn.view.dealer
        states = {first: g.BotState(implementation=_Fixed(g), hand=hand1)}
        states[1 - first] = g.BotState(implementation=_Fixed(g), hand=hand2)
        state = g.GameState(
            leader=states[first], follower=states[1 - first], talon=talon, previous=None
        )
        trump = turn.view.trump_suit
        implementer = self._engine.trick_implementer
        pending: Any | None = None
        for pm in turn.moves:
            move = self.their_move(pm.move, trump)
            if pm.move.code == EXCHANGE:
                state = implementer.play_trick_with_fixed_leader_move(self._engine, state, move)
            elif pending is None:
                pending = move
            else:
                state.follower.implementation.next_move = move
                state = implementer.play_trick_with_fixed_leader_move(self._engine, state, pending)
                pending = None
        mine = state.leader if pending is None else state.follower
        if {self.card_id(c) for c in mine.hand.get_cards()} != {c.id for c in turn.view.hand}:
            raise BotError("vu: the replayed schnapsen state does not match our view (a bug)")
        return state, pending


def _Fixed(game: Any) -> Any:
    """A package bot that plays the move it is told (to replay a known history)."""

    class Fixed(game.Bot):  # type: ignore[misc]
        next_move: Any = None

        def get_move(self, perspective: Any, leader_move: Any) -> Any:
            return self.next_move

    return Fixed()


# ---------------------------------------------------------------- the deal


@dataclass(slots=True)
class _Slot:
    """A moment a seat got a card: its time (0 = the deal, t = after trick t), deck position."""

    time: int
    position: int
    card: int = -1


def reconstruct_deck(turn: Turn, rng: random.Random) -> list[int]:
    """A full deck order of the vu layout consistent with everything the seat knows.

    Cards each seat is known to have held get a deal or draw slot no later
    than they were needed (earliest deadline first, which finds a fit if any
    exists); the hidden cards fill the rest at random.
    """
    view = turn.view
    opts = view.options
    size = opts.deck_size
    hand_size = opts.hand_size
    first = 1 - view.dealer
    slots: dict[int, list[_Slot]] = {
        first: [_Slot(0, 2 * i) for i in range(hand_size)],
        1 - first: [_Slot(0, 2 * i + 1) for i in range(hand_size)],
    }
    deadlines: dict[int, dict[int, int]] = {0: {}, 1: {}}
    fixed_gain: dict[int, list[tuple[int, int]]] = {0: [], 1: []}  # (card, time), no deck slot

    def need(seat: int, card: int, when: int) -> None:
        known = deadlines[seat]
        known[card] = min(known.get(card, when), when)

    tricks = public_tricks(turn)
    trump_now = turn.first_trump.id
    next_pos = 2 * hand_size
    trick_no = 0
    lead_seat = -1
    for pm in turn.moves:
        code = pm.move.code
        if code == EXCHANGE:
            jack = view.trump_suit * 6 + JACK
            need(pm.seat, jack, trick_no)
            fixed_gain[pm.seat].append((trump_now, trick_no))
            trump_now = jack
            continue
        card = code if code < MARRY_BASE else code - MARRY_BASE
        need(pm.seat, card, trick_no)
        if code >= MARRY_BASE:
            need(pm.seat, card ^ 1, trick_no)
        if lead_seat < 0:
            lead_seat = pm.seat
            continue
        trick = tricks[trick_no]
        trick_no += 1
        lead_seat = -1
        if trick.strict:
            continue
        winner = _trick_winner(trick.lead, trick.follow, view.trump_suit, trick.leader)
        for taker in (winner, 1 - winner):
            if next_pos < size - 1:
                slots[taker].append(_Slot(trick_no, next_pos))
                next_pos += 1
            else:
                fixed_gain[taker].append((trump_now, trick_no))
    me = view.seat
    for card in bits(mask_of(view.hand)):
        need(me, card, trick_no)
    for shown in view.opponent_shown:
        need(1 - me, shown.id, trick_no)
    for seat in (0, 1):
        for card, when in fixed_gain[seat]:
            if deadlines[seat].get(card, -1) >= when:
                del deadlines[seat][card]  # that card came from the exchange or the last draw
    deck = [-1] * size
    deck[size - 1] = turn.first_trump.id
    used = {turn.first_trump.id}
    for seat in (0, 1):
        for card, when in sorted(deadlines[seat].items(), key=lambda kv: kv[1]):
            slot = next((s for s in slots[seat] if s.card < 0), None)
            if slot is None or slot.time > when:
                raise BotError("vu: no deal fits the public record (a bug)")
            slot.card = card
            deck[slot.position] = card
            used.add(card)
    rest = [c for c in deck_ids(size) if c not in used]
    rng.shuffle(rest)
    for position, card in enumerate(deck):
        if card < 0:
            deck[position] = rest.pop()
    return deck


def _trick_winner(lead: int, follow: int, trump: int, leader: int) -> int:
    if follow // 6 == lead // 6:
        return 1 - leader if follow < lead else leader
    return 1 - leader if follow // 6 == trump else leader


__all__ = ["VU_BOTS", "VuBot", "make_vu_bot", "reconstruct_deck", "vu_available"]
