"""Regenerate protocol/playthroughs/table/*.txt: one golden playthrough per rule feature
of the bidding games (north-american, south-bend, cut-throat), and whole three-handed
matches for its match rules (the dealer's capped score, ties carried, hand_rules).

Seeded games are played by a "sensible random" policy until the first game
that shows the feature; the search is deterministic, so rerunning this
script gives the same files. Usage: python scripts/regen_table_playthroughs.py [--check]
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from regen_playthroughs import write_or_check  # the scripts folder is on sys.path

from p2p66.engine import PRESETS
from p2p66.engine.cards import SUIT_MASKS, deck_ids
from p2p66.engine.moves import CLOSE, DECLARE, DRAW, MARRY_BASE, PASS
from p2p66.engine.state import HandState
from p2p66.engine.table import (
    BiddingHand,
    BiddingOptions,
    TableEnd,
    TablePhase,
    ThreeHandedMatch,
    ThreeHandedOptions,
    new_bidding_hand,
    table_preset,
)
from p2p66.engine.table.playthrough import (
    TablePlaythrough,
    ThreeHandedPlaythrough,
    render,
    render_three,
)

OUT = Path(__file__).resolve().parent.parent / "protocol" / "playthroughs" / "table"

Check = Callable[[list[BiddingHand]], bool]


@dataclass(frozen=True)
class Feature:
    name: str
    options: BiddingOptions
    shows: Check
    bid_rate: float = 0.35


def policy(s: BiddingHand, rng: random.Random, feature: Feature) -> int:
    codes = s.legal_codes()
    if s.phase == TablePhase.BID:
        bids = [c for c in codes if c != PASS]
        return rng.choice(bids) if bids and rng.random() < feature.bid_rate else PASS
    marriages = [c for c in codes if c >= MARRY_BASE]
    if marriages and rng.random() < 0.8:
        return rng.choice(marriages)
    return rng.choice(codes)


def play_game(feature: Feature, seed: int) -> tuple[TablePlaythrough, list[BiddingHand]]:
    rng = random.Random(seed)
    deck = list(range(24))
    rng.shuffle(deck)
    dealer = rng.randrange(feature.options.players)
    s = new_bidding_hand(feature.options, deck, dealer)
    states = [s]
    while not s.is_over:
        s = s.apply(policy(s, rng, feature))
        states.append(s)
    return TablePlaythrough(feature.name, feature.options, dealer, tuple(deck), tuple(s.history)), (
        states
    )


def ended(how: TableEnd, *, bid: int | None = None) -> Check:
    def check(states: list[BiddingHand]) -> bool:
        r = states[-1].result
        return r is not None and r.how is how and (bid is None or r.bid == bid)

    return check


def both(*checks: Check) -> Check:
    return lambda states: all(c(states) for c in checks)


def first_lead_marriage(states: list[BiddingHand]) -> bool:
    s = states[-1]
    return bool(s.marriages) and s.history[s.options.players] >= MARRY_BASE


def marriage_not_counted(states: list[BiddingHand]) -> bool:
    r = states[-1].result
    return (
        r is not None
        and bool(states[-1].marriages)
        and r.counted_marriages == (0,) * len(r.marks)
        and r.how is not TableEnd.ALL_PASSED
    )


def overtrumps_any(states: list[BiddingHand]) -> bool:
    """A void player under ``overtrump = false`` played a trump below one in the trick
    while holding a higher trump (which ``overtrump = true`` would have required)."""
    for a, b in itertools.pairwise(states):
        if a.phase != TablePhase.FOLLOW or a.best_trump < 0 or a.trump == a.led_suit:
            continue
        hand, card = a.hands[a.to_act], b.history[-1]
        void = not hand & SUIT_MASKS[a.led_suit]
        higher = hand & SUIT_MASKS[a.trump] & ((1 << a.best_trump) - 1)
        if void and higher and card // 6 == a.trump and card > a.best_trump:
            return True
    return False


NA = table_preset("north-american")
CT = table_preset("cut-throat")
assert isinstance(NA, BiddingOptions) and isinstance(CT, BiddingOptions)

FEATURES = [
    Feature("north-american-contract-made", NA, ended(TableEnd.CONTRACT_MADE, bid=2)),
    Feature("north-american-contract-set", NA, ended(TableEnd.CONTRACT_SET)),
    Feature("north-american-moon-made", NA, ended(TableEnd.MOON_MADE), bid_rate=0.9),
    Feature("north-american-moon-failed", NA, ended(TableEnd.MOON_FAILED), bid_rate=0.9),
    Feature("north-american-all-pass-redeal", NA, ended(TableEnd.ALL_PASSED), bid_rate=0.1),
    Feature(
        "north-american-dealer-bids-1",
        replace(NA, all_pass="dealer-bids-1"),
        lambda st: st[-1].forced,
        bid_rate=0.05,
    ),
    Feature("north-american-first-lead-marriage-40", NA, first_lead_marriage),
    Feature("north-american-marriage-not-counted", NA, marriage_not_counted),
    Feature("north-american-no-overtrump", replace(NA, overtrump=False), overtrumps_any),
    Feature(
        "south-bend-contract-made", replace(NA, match_target=15), ended(TableEnd.CONTRACT_MADE)
    ),
    Feature("cut-throat-widow", CT, ended(TableEnd.CONTRACT_MADE)),
    Feature("cut-throat-contract-set", CT, ended(TableEnd.CONTRACT_SET)),
]


@dataclass(frozen=True)
class ThreeFeature:
    name: str
    options: ThreeHandedOptions
    shows: Callable[[ThreeHandedMatch], bool]


def three_policy(s: HandState, rng: random.Random) -> int:
    """Declares only what it has, draws, otherwise a random card, marriage or exchange."""
    codes = s.legal_codes()
    if DECLARE in codes and s.score[s.to_act] >= 66:
        return DECLARE
    codes = [c for c in codes if c not in (DECLARE, CLOSE)] or codes
    if PASS in codes:
        return PASS
    if DRAW in codes:
        return DRAW
    return rng.choice(codes)


def play_three(feature: ThreeFeature, seed: int) -> tuple[ThreeHandedPlaythrough, ThreeHandedMatch]:
    rng = random.Random(seed)
    rules = feature.options.hand_rules
    match = ThreeHandedMatch(feature.options, rng.randrange(3))
    deals = []
    while not match.is_over:
        deck = deck_ids(rules.deck_size)
        rng.shuffle(deck)
        deal = match.new_hand(deck)
        while not deal.is_over:
            deal = deal.apply(three_policy(deal.state, rng))
        deals.append((tuple(deck), tuple(deal.state.history)))
        match = match.record(deal)
    return ThreeHandedPlaythrough(
        feature.name, feature.options, match.first_dealer, tuple(deals)
    ), (match)


def capped(match: ThreeHandedMatch) -> bool:
    return any(
        0 < r.gained[r.dealer] < r.gained[r.winner] for r in match.results if r.winner is not None
    )


def tie_carried_to_dealer(match: ThreeHandedMatch) -> bool:
    rs = match.results
    return any(
        a.winner is None and b.winner is not None and b.gained[b.dealer] > b.hand.game_points
        for a, b in itertools.pairwise(rs)
    )


TH = table_preset("three-handed")
assert isinstance(TH, ThreeHandedOptions)
THREE_FEATURES = [
    ThreeFeature("three-handed-dealer-capped", TH, capped),
    ThreeFeature(
        "three-handed-dealer-scores-nothing",
        replace(TH, dealer_scores="nothing"),
        lambda m: len(m.results) >= 3,
    ),
    ThreeFeature(
        "three-handed-tie-carried-to-the-dealer",
        replace(TH, hand_rules=PRESETS["sixty-six"].with_options(unclaimed_end="points")),
        tie_carried_to_dealer,
    ),
    ThreeFeature(
        "three-handed-schnapsen-hands",
        replace(TH, hand_rules=PRESETS["schnapsen"]),
        lambda m: len(m.results) >= 3,
    ),
]


def find_three(feature: ThreeFeature, limit: int = 20_000) -> ThreeHandedPlaythrough:
    for seed in range(limit):
        play, match = play_three(feature, seed)
        if feature.shows(match):
            return play
    raise SystemExit(f"no match shows {feature.name} within {limit} seeds")


def find(feature: Feature, limit: int = 100_000) -> TablePlaythrough:
    for seed in range(limit):
        play, states = play_game(feature, seed)
        if feature.shows(states):
            return play
    raise SystemExit(f"no game shows {feature.name} within {limit} seeds")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    files = [(OUT / f"{f.name}.txt", render(find(f))) for f in FEATURES]
    files += [(OUT / f"{f.name}.txt", render_three(find_three(f))) for f in THREE_FEATURES]
    return write_or_check(files, check=args.check, root=OUT.parent.parent.parent)


if __name__ == "__main__":
    sys.exit(main())
