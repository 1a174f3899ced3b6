"""Matches of the games for three and four players between bots, under a referee.

The referee holds the full state and gives each bot only its seat's view.
Bidding games seat one ``TableBot`` per seat; ``three-handed`` seats
two-player bots, which play each deal's hand while the dealer sits out.
Decks come from a seeded generator, so ``duplicate`` runs can replay the
same deals with the bots moved round the table.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from p2p66.bots.api import BotFault, as_action
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.bots.table import make_table_bot
from p2p66.engine.cards import deck_ids
from p2p66.engine.table import (
    BiddingOptions,
    TableMatch,
    ThreeHandedMatch,
    ThreeHandedOptions,
    table_view,
)
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.runner.table import HandTable, first_trump


@dataclass(frozen=True, slots=True)
class TableGameResult:
    """A finished match: who sat where, the scores, the winner, the time bots took."""

    seats: tuple[str, ...]
    scores: tuple[int, ...]
    winner_side: int | None  # a side (partnership or player); seat for three-handed
    hands: int
    moves: int
    seconds: float  # bot thinking time in total
    forfeit: tuple[int, str] | None = None  # (seat, what it did) of a bot that broke the rules
    clock: tuple[tuple[int, float, float], ...] = ()  # per seat: moves, seconds, longest move

    def bot_clock(self, spec: str) -> tuple[int, float, float]:
        """Moves, total seconds and the longest move of the seats ``spec`` played."""
        mine = [c for seat, c in zip(self.seats, self.clock, strict=True) if seat == spec]
        return (
            sum(c[0] for c in mine),
            sum(c[1] for c in mine),
            max((c[2] for c in mine), default=0.0),
        )


class Clock:
    """Thinking time per seat: moves, total seconds, the longest move."""

    def __init__(self, seats: int) -> None:
        self.moves = [0] * seats
        self.total = [0.0] * seats
        self.longest = [0.0] * seats

    def add(self, seat: int, seconds: float) -> None:
        self.moves[seat] += 1
        self.total[seat] += seconds
        self.longest[seat] = max(self.longest[seat], seconds)

    def table(self) -> tuple[tuple[int, float, float], ...]:
        return tuple(zip(self.moves, self.total, self.longest, strict=True))


def decks(seed: int, size: int, count: int) -> list[list[int]]:
    """``count`` shuffled decks from ``seed`` (the same seed, the same deals)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = deck_ids(size)
        rng.shuffle(deck)
        out.append(deck)
    return out


def play_bidding_match(
    options: BiddingOptions,
    seats: Sequence[str],
    seed: int,
    *,
    first_dealer: int = 0,
    max_hands: int = 300,
) -> TableGameResult:
    """A match of a bidding game; ``seats`` are bot specs, one per seat."""
    if len(seats) != options.players:
        raise ValueError(f"{options.players} bots are needed, not {len(seats)}")
    bots = [make_table_bot(spec, seed * 10 + i) for i, spec in enumerate(seats)]
    deals = decks(seed, 24, max_hands)
    match = TableMatch(options, first_dealer)
    moves, thinking = 0, 0.0
    clock = Clock(options.players)
    forfeit: tuple[int, str] | None = None
    try:
        while not match.is_over and match.hand_number <= max_hands and forfeit is None:
            hand = match.new_hand(deals[match.hand_number - 1])
            while not hand.is_over:
                seat = hand.to_act
                view = table_view(hand, seat, match.scores)
                start = time.perf_counter()
                try:
                    code = bots[seat].choose(view)
                except BotFault as fault:
                    forfeit = (seat, f"{fault.kind}: {fault.detail}")
                    break
                spent = time.perf_counter() - start
                thinking += spent
                clock.add(seat, spent)
                if code not in view.legal:
                    forfeit = (seat, f"illegal: {TABLE_NOTATION[code]} is not legal")
                    break
                hand = hand.apply(code, seat=seat)
                moves += 1
            if forfeit is not None:
                break
            assert hand.result is not None
            for seat, bot in enumerate(bots):
                bot.end_hand(table_view(hand, seat, match.scores))
            match = match.record(hand.result)
    finally:
        for bot in bots:
            bot.close()
    winner = match.winner
    if forfeit is not None:
        loser = options.side_of(forfeit[0])
        winner = 1 - loser if options.sides == 2 else None
    return TableGameResult(
        tuple(seats),
        match.scores,
        winner,
        len(match.results),
        moves,
        thinking,
        forfeit,
        clock.table(),
    )


def play_three_handed_match(
    options: ThreeHandedOptions,
    seats: Sequence[str],
    seed: int,
    *,
    first_dealer: int = 0,
    max_hands: int = 300,
) -> TableGameResult:
    """A match of three-handed between two-player bots (specs of ``p2p66 bot list``)."""
    if len(seats) != 3:
        raise ValueError(f"3 bots are needed, not {len(seats)}")
    rules = options.hand_rules
    bots = [make_bot(parse_bot_spec(spec), seed * 10 + i, rules) for i, spec in enumerate(seats)]
    for i, bot in enumerate(bots):
        bot.start_game(i, rules)
    deals = decks(seed, rules.deck_size, max_hands)
    match = ThreeHandedMatch(options, first_dealer)
    moves, thinking = 0, 0.0
    clock = Clock(3)
    try:
        while not match.is_over and match.hand_number <= max_hands:
            deck = deals[match.hand_number - 1]
            deal = match.new_hand(deck)
            table = HandTable(deal.state, first_trump(rules, deck), hand_number=match.hand_number)
            while not table.is_over:
                seat = deal.table_seat(table.state.to_act)
                turn = table.turn()
                start = time.perf_counter()
                move = as_action(bots[seat].choose(turn)).move
                spent = time.perf_counter() - start
                thinking += spent
                clock.add(seat, spent)
                table.state.check_legal(move.code)
                table.play(move.code)
                moves += 1
            match = match.record(type(deal)(options, deal.dealer, table.state))
    finally:
        for bot in bots:
            bot.close()
    return TableGameResult(
        tuple(seats),
        match.scores,
        match.winner,
        len(match.results),
        moves,
        thinking,
        None,
        clock.table(),
    )
