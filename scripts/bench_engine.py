"""Engine throughput: random-vs-random hands per second, and legal+apply calls per second.

Usage: python scripts/bench_engine.py [--seconds 3] [--processes 2]

For each preset it reports, on one core:
- complete hands/s with uniformly random legal moves (these end early: a random
  player declares, closes and marries often);
- complete hands/s with "card-only" random players that never declare or close,
  so every hand is played to the last trick (the worst case for a search bot);
- fast-path legal_codes() + apply_code_unchecked() pairs per second;
- value-API legal_moves() + apply() pairs per second (copying states);
and, with --processes N, the aggregate hands/s of N processes at once.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import time

from p2p66.engine import PRESETS, new_hand
from p2p66.engine.cards import deck_ids
from p2p66.engine.moves import CLOSE, DECLARE, DRAW, PASS


def random_hands(preset: str, seconds: float, seed: int, card_only: bool) -> tuple[int, int]:
    """Play hands for ``seconds``; returns (hands, moves)."""
    options = PRESETS[preset]
    rng = random.Random(seed)
    choice = rng.choice
    base = deck_ids(options.deck_size)
    hands = moves = 0
    avoid = {CLOSE, DECLARE}
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(100):
            deck = base[:]
            rng.shuffle(deck)
            s = new_hand(options, deck, hands & 1)
            while s.phase != 5:
                codes = s.legal_codes()
                if card_only:
                    if DRAW in codes:
                        code = DRAW
                    elif PASS in codes:
                        code = PASS
                    else:
                        code = choice([c for c in codes if c not in avoid] or codes)
                else:
                    code = choice(codes)
                s.apply_code_unchecked(code)
                moves += 1
            hands += 1
    return hands, moves


def value_api_calls(preset: str, seconds: float) -> int:
    """legal_moves() + apply() pairs per ``seconds`` through the immutable API."""
    options = PRESETS[preset]
    rng = random.Random(7)
    base = deck_ids(options.deck_size)
    calls = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        deck = base[:]
        rng.shuffle(deck)
        s = new_hand(options, deck, 0)
        while not s.is_over:
            s = s.apply(rng.choice(s.legal_moves()))
            calls += 1
    return calls


def _worker(args: tuple[str, float, int]) -> int:
    return random_hands(args[0], args[1], args[2], card_only=False)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    secs = args.seconds
    print(
        f"{'preset':10s} {'hands/s':>9s} {'full hands/s':>13s} {'fast calls/s':>13s} "
        f"{'value calls/s':>14s} {f'x{args.processes} procs':>11s}"
    )
    for preset in PRESETS:
        hands, moves = random_hands(preset, secs, 1, card_only=False)
        full, full_moves = random_hands(preset, secs, 2, card_only=True)
        calls = value_api_calls(preset, secs)
        with multiprocessing.Pool(args.processes) as pool:
            parallel = sum(pool.map(_worker, [(preset, secs, i) for i in range(args.processes)]))
        print(
            f"{preset:10s} {hands / secs:9.0f} {full / secs:13.0f} "
            f"{(moves + full_moves) / (2 * secs):13.0f} {calls / secs:14.0f} "
            f"{parallel / secs:11.0f}"
        )


if __name__ == "__main__":
    main()
