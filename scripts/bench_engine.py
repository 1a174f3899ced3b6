"""Engine throughput against the ``schnapsen`` package engine, measured in the same run.

Usage: python scripts/bench_engine.py [--rounds 5] [--seconds 0.6] [--preset vu]

Random deals per second through four paths, each round running every path
once (interleaved, so a busy machine slows all of them alike):

- ``anchor``: the ``schnapsen`` package's own engine, its ``RandBot`` against
  itself (``play_game`` minus the shuffle); only when the package is installed;
- ``api``: p2p66's public value API, ``legal_moves()`` + ``apply()``;
- ``fast``: the search bots' path, ``legal_codes()`` + ``apply_code_unchecked()``;
- ``views``: what ``p2p66 match`` and every bot do: the referee's ``HandTable``
  builds the seat's ``Turn`` (a ``PlayerView``) at every decision, a
  ``RandomBot`` picks from its legal moves, the table plays it.

Every path deals the same pre-shuffled decks (the shuffle is not the
engine's job) and picks a uniformly random legal move with ``random.choice``.
Rates are per CPU-second of this process. The median of the rounds is
printed, and with the package installed the median of each path's ratio to
the anchor of the same round;
the goals of issue 17 are api >= 10x, fast >= 20x, views >= 5x on ``vu``.
The header says which engine build ran.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from p2p66.bots.random_bot import RandomBot
from p2p66.engine import PRESETS, new_hand
from p2p66.engine.cards import deck_ids
from p2p66.runner.table import HandTable, first_trump

Path = Callable[[list[list[int]]], int]


def decks_for(preset: str, count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = deck_ids(PRESETS[preset].deck_size)
        rng.shuffle(deck)
        out.append(deck)
    return out


def api_path(preset: str) -> Path:
    options = PRESETS[preset]

    def play(decks: list[list[int]]) -> int:
        choice = random.Random(7).choice
        for i, deck in enumerate(decks):
            s = new_hand(options, deck, i & 1)
            while not s.is_over:
                s = s.apply(choice(s.legal_moves()))
        return len(decks)

    return play


def fast_path(preset: str) -> Path:
    options = PRESETS[preset]

    def play(decks: list[list[int]]) -> int:
        choice = random.Random(7).choice
        for i, deck in enumerate(decks):
            s = new_hand(options, deck, i & 1)
            while s.phase != 5:
                s.apply_code_unchecked(choice(s.legal_codes()))
        return len(decks)

    return play


def views_path(preset: str) -> Path:
    options = PRESETS[preset]

    def play(decks: list[list[int]]) -> int:
        bots = (RandomBot(7), RandomBot(8))
        for i, deck in enumerate(decks):
            table = HandTable(new_hand(options, deck, i & 1), first_trump(options, deck))
            state = table.state
            while not state.is_over:
                move = bots[state.to_act].choose(table.turn())
                table.play(move.code)
        return len(decks)

    return play


def anchor_path() -> Path | None:
    """The schnapsen package's engine dealing our decks, or None without the package."""
    try:
        game = importlib.import_module("schnapsen.game")
        deck_mod = importlib.import_module("schnapsen.deck")
        bots = importlib.import_module("schnapsen.bots")
    except ImportError:
        return None
    engine = game.SchnapsenGamePlayEngine()
    suits = ("CLUBS", "DIAMONDS", "HEARTS", "SPADES")
    ranks = ("ACE", "TEN", "KING", "QUEEN", "JACK")

    def card(i: int) -> Any:
        return deck_mod.Card.get_card(
            getattr(deck_mod.Rank, ranks[i % 6]), getattr(deck_mod.Suit, suits[i // 6])
        )

    converted: dict[int, list[Any]] = {}  # the package's decks, made once, outside the timing

    def play(decks: list[list[int]]) -> int:
        rng = random.Random(7)
        b1, b2 = bots.RandBot(rng), bots.RandBot(rng)
        ordered = converted.get(id(decks))
        if ordered is None:
            ordered = [deck_mod.OrderedCardCollection([card(c) for c in d]) for d in decks]
            converted[id(decks)] = ordered
        for cards in ordered:
            hand1, hand2, talon = engine.hand_generator.generateHands(cards)
            state = game.GameState(
                leader=game.BotState(implementation=b1, hand=hand1),
                follower=game.BotState(implementation=b2, hand=hand2),
                talon=talon,
                previous=None,
            )
            engine.play_game_from_state(game_state=state, leader_move=None)
        return len(decks)

    return play


def engine_build() -> str:
    """Which build ran: the pure-Python reference, or compiled engine (and search) modules."""

    def compiled(module: str) -> bool:
        path = getattr(importlib.import_module(module), "__file__", "") or ""
        return path.endswith((".so", ".pyd"))

    if not compiled("p2p66.engine.state"):
        return "pure Python"
    search = " and search" if compiled("p2p66.bots.ismcts") else ""
    return f"compiled (mypyc) engine{search}"


def rate(path: Path, decks: list[list[int]], seconds: float) -> float:
    """Deals per CPU-second of this process: play batches of ``decks`` for about ``seconds``.

    CPU time, not wall time: on a shared machine other processes then slow
    the figures far less (and the anchor alike).
    """
    played = 0
    started = time.process_time()
    while True:
        played += path(decks)
        elapsed = time.process_time() - started
        if elapsed >= seconds:
            return played / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=0.3, help="per path per round")
    parser.add_argument("--preset", default="vu", choices=sorted(PRESETS))
    parser.add_argument(
        "--no-tables",
        action="store_true",
        help="skip the random hands/s of the games for three and four (bench_multi_engine)",
    )
    args = parser.parse_args()
    decks = decks_for(args.preset, 200, 1)
    paths: dict[str, Path] = {
        "api": api_path(args.preset),
        "fast": fast_path(args.preset),
        "views": views_path(args.preset),
    }
    anchor = anchor_path() if args.preset == "vu" else None
    if anchor is not None:
        paths = {"anchor": anchor, **paths}
    rates: dict[str, list[float]] = {name: [] for name in paths}
    if anchor is not None:
        anchor(decks)  # converts the decks to the package's cards before any timing
    for _ in range(args.rounds):
        for name, path in paths.items():
            rates[name].append(rate(path, decks, args.seconds))
    print(
        f"engine: {engine_build()}; preset {args.preset}; random deals per CPU-second, "
        f"median of {args.rounds} interleaved rounds"
    )
    for name, values in rates.items():
        ratio = ""
        if anchor is not None:  # each round against that round's anchor: load drifts
            mine = statistics.median(v / a for v, a in zip(values, rates["anchor"], strict=True))
            ratio = f"  {mine:5.1f}x the schnapsen package"
        print(f"  {name:7s} {statistics.median(values):9.0f}/s{ratio}")
    if anchor is None and args.preset == "vu":
        print("  (install the optional 'schnapsen' package for the anchor and the ratios)")
    if not args.no_tables:
        from bench_multi_engine import table_rates  # the same directory as this script

        print("games for three and four: random hands per second, one core")
        for line in table_rates(args.seconds * args.rounds / 3):
            print(f"  {line}")


if __name__ == "__main__":
    main()
