"""Engine throughput of the games for three and four players: random hands per second.

Usage: python scripts/bench_multi_engine.py [--seconds 2]

Per preset, on one core: complete hands/s with uniformly random legal moves on
the fast path (``copy``-free ``apply_code_unchecked``), the same through the
value API (``apply``, a new state per move), and for the bidding games the
hands/s when every hand is bid (``bid:1`` by the first caller), so that the
full six or seven tricks are always played. three-handed hands are the
two-player engine's (its speed is in scripts/bench_engine.py); this measures
them through ``ThreeHandedHand``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from p2p66.engine.cards import deck_ids
from p2p66.engine.table import (
    TABLE_PRESETS,
    BiddingOptions,
    ThreeHandedHand,
    ThreeHandedOptions,
    bid_code,
    new_bidding_hand,
)


def rate(seconds: float, one: Callable[[random.Random], int]) -> tuple[float, float]:
    """(hands/s, moves/s) of ``one(rng)`` (which plays a hand, returns its moves)."""
    rng = random.Random(1)
    hands = moves = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        for _ in range(50):
            moves += one(rng)
            hands += 1
    spent = time.perf_counter() - start
    return hands / spent, moves / spent


def bidding(
    options: BiddingOptions, *, fast: bool, bid_first: bool
) -> Callable[[random.Random], int]:
    base = list(range(24))

    def one(rng: random.Random) -> int:
        deck = base[:]
        rng.shuffle(deck)
        s = new_bidding_hand(options, deck, 0)
        n = 0
        if bid_first:
            s.apply_code_unchecked(bid_code(1))
            n += 1
        while not s.is_over:
            code = rng.choice(s.legal_codes())
            if fast:
                s.apply_code_unchecked(code)
            else:
                s = s.apply(code)
            n += 1
        return n

    return one


def three(options: ThreeHandedOptions, *, fast: bool) -> Callable[[random.Random], int]:
    base = deck_ids(options.hand_rules.deck_size)

    def one(rng: random.Random) -> int:
        deck = base[:]
        rng.shuffle(deck)
        deal = ThreeHandedHand.new(options, deck, 0)
        n = 0
        if fast:
            s = deal.state
            while not s.is_over:
                s.apply_code_unchecked(rng.choice(s.legal_codes()))
                n += 1
            return n
        while not deal.is_over:
            deal = deal.apply(rng.choice(deal.legal_codes()), seat=deal.to_act)
            n += 1
        return n

    return one


def table_rates(seconds: float) -> list[str]:
    """One line per preset and path: hands/s and moves/s of random legal play."""
    lines = []
    for name, opts in TABLE_PRESETS.items():
        if isinstance(opts, ThreeHandedOptions):
            runs = {"fast path": three(opts, fast=True), "value API": three(opts, fast=False)}
        else:
            runs = {
                "fast path": bidding(opts, fast=True, bid_first=False),
                "value API": bidding(opts, fast=False, bid_first=False),
                "fast, always bid": bidding(opts, fast=True, bid_first=True),
            }
        for label, one in runs.items():
            hands, moves = rate(seconds, one)
            lines.append(f"{name:15s} {label:17s} {hands:9.0f} hands/s {moves:10.0f} moves/s")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    args = parser.parse_args()
    for line in table_rates(args.seconds):
        print(line)


if __name__ == "__main__":
    main()
