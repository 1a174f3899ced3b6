"""The rules' straightforward reference for the engine's optimised paths, and random games.

``reference_legal`` and ``reference_view`` are the engine's legal-move and
view code as it was before it was tuned for speed: plain loops over cards and
option checks, a view built field by field from scratch. The differential
tests hold the tuned engine (and the compiled accelerator, when built) to
them on random games under random rule options.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import fields
from typing import Any, get_args, get_type_hints

from p2p66.engine import PRESETS, HandState, PlayerView, RuleOptionError, RuleOptions, new_hand
from p2p66.engine.cards import CARDS, KING, SUIT_MASKS, deck_ids
from p2p66.engine.moves import CLOSE, DECLARE, DRAW, EXCHANGE, MARRY_BASE, MOVES, PASS
from p2p66.engine.state import Phase
from p2p66.engine.view import view_of


def _bits(mask: int) -> list[int]:
    return [i for i in range(24) if mask >> i & 1]


def reference_legal(s: HandState) -> list[int]:
    """Legal move codes, in the engine's stable order, straight from RULES.md."""
    seat, phase = s.to_act, s.phase
    talon_open = not s.closed and s.talon_left > 0
    opts = s.options
    if phase == Phase.FOLLOW:
        hand = s.hands[seat]
        if not talon_open:
            same = hand & SUIT_MASKS[s.lead_card // 6]
            if same:
                hand = same & ((1 << s.lead_card) - 1) or same
            else:
                hand = hand & SUIT_MASKS[s.trump_suit] or hand
        return _bits(hand)
    if phase == Phase.LEAD:
        hand = s.hands[seat]
        codes = _bits(hand)
        marriages = (talon_open or opts.marriage_when_closed) and (
            opts.marriage_needs_trick != "forbidden" or s.tricks[seat] > 0
        )
        if marriages:
            for suit in range(4):
                k = suit * 6 + KING
                if hand >> k & 1 and hand >> (k + 1) & 1:
                    codes.append(MARRY_BASE + k)
                    if opts.marriage_lead != "king":
                        codes.append(MARRY_BASE + k + 1)
        exchange_card = s.trump_suit * 6 + (5 if opts.exchange_rank == "9" else 4)
        if (
            talon_open
            and s.talon_left >= opts.exchange_min_talon
            and hand >> exchange_card & 1
            and (not opts.exchange_requires_trick or s.tricks[seat] > 0)
        ):
            codes.append(EXCHANGE)
        first_ok = s.tricks_played > 0 or opts.close_before_first_trick
        if opts.allow_close and talon_open and first_ok:
            codes.append(CLOSE)
        if opts.declare == "manual" and s.tricks_played > 0:
            codes.append(DECLARE)
        return codes
    if phase == Phase.DRAW:
        return [DRAW, CLOSE]
    if phase in (Phase.MARRIAGE_DECLARE, Phase.FINAL_DECLARE):
        return [DECLARE, PASS]
    return []


def reference_view(s: HandState, seat: int) -> PlayerView:
    """A seat's view, every field computed from the state card by card."""
    other = 1 - seat

    def cards(mask: int) -> tuple[Any, ...]:
        return tuple(CARDS[i] for i in _bits(mask))

    return PlayerView(
        seat=seat,
        options=s.options,
        dealer=s.dealer,
        phase=s.phase,
        to_act=s.to_act,
        hand=cards(s.hands[seat]),
        trump_suit=s.trump_suit,
        trump_card=CARDS[s.trump_card] if s.talon_left > 0 else None,
        talon_size=s.talon_left,
        closed=s.closed,
        closer=s.closer if s.closed else None,
        lead=CARDS[s.lead_card] if s.lead_card >= 0 else None,
        lead_is_marriage=s.lead_marriage,
        played=frozenset(cards(s.played)),
        tricks=tuple(s.tricks_history()),
        tricks_won=(s.tricks[0], s.tricks[1]),
        my_points=s.score[seat],
        my_held_points=s.held[seat],
        opponent_points=s.score[other],
        opponent_held_points=s.held[other],
        close_snapshot=(s.close_snapshot[0], s.close_snapshot[1]) if s.closed else None,
        opponent_hand_size=bin(s.hands[other]).count("1"),
        opponent_shown=cards(s.shown[other] & s.hands[other]),
        marriages=tuple(s.marriages),
        legal=tuple(MOVES[c] for c in reference_legal(s)) if s.to_act == seat else (),
        result=s.result,
    )


def state_fields(s: HandState) -> dict[str, Any]:
    """Every slot of a state, for comparing two states value by value."""
    return {name: getattr(s, name) for name in STATE_FIELDS if hasattr(s, name)}


def _fields_of_state() -> tuple[str, ...]:
    """The attributes that make a state; ``_rules`` only mirrors ``_options`` (and its
    repr would be an address)."""
    # A compiled HandState (scripts/build_accel.py) lists them in __mypyc_attrs__.
    names = getattr(HandState, "__slots__", None) or HandState.__mypyc_attrs__
    return tuple(name for name in names if name != "_rules")


STATE_FIELDS = _fields_of_state()


def random_options(rng: random.Random) -> RuleOptions:
    """A preset, or rule options drawn field by field (re-drawn until consistent)."""
    if rng.random() < 0.5:
        return PRESETS[rng.choice(sorted(PRESETS))]
    hints = get_type_hints(RuleOptions)
    while True:
        values: dict[str, Any] = {}
        for f in fields(RuleOptions):
            hint = hints[f.name]
            if get_args(hint):
                values[f.name] = rng.choice(get_args(hint))
            elif hint is bool:
                values[f.name] = rng.random() < 0.5
            elif f.name != "match_target":
                values[f.name] = rng.randrange(6)
        try:
            return RuleOptions.from_mapping(values, coerce=False)
        except RuleOptionError:
            continue


def random_game(seed: int) -> Iterator[HandState]:
    """Every state of one random game under random options (the value API, each a new state)."""
    rng = random.Random(seed)
    options = random_options(rng)
    deck = deck_ids(options.deck_size)
    rng.shuffle(deck)
    s = new_hand(options, deck, rng.randrange(2))
    yield s
    while not s.is_over:
        s = s.apply(rng.choice(s.legal_moves()))
        yield s


def trace_digest(games: int, seed: int = 0) -> str:
    """A digest of every state, legal list and view of ``games`` random games.

    Two engine builds (pure Python and compiled) that agree on it played the
    same games move for move and showed both seats the same views.
    """
    h = hashlib.sha256()
    for game in range(games):
        for s in random_game(seed + game):
            h.update(repr(sorted(state_fields(s).items())).encode())
            h.update(repr(s.legal_codes()).encode())
            for seat in (0, 1):
                view = view_of(s, seat)
                h.update(repr(view).encode())
                h.update(repr(sorted(c.id for c in view.played)).encode())
    return h.hexdigest()
