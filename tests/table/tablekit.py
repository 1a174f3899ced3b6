"""Shared helpers of the table-game tests: deals by hand, scripted play."""

from __future__ import annotations

from collections.abc import Mapping

from p2p66.engine.table import BiddingHand, BiddingOptions, build_table_deck, new_bidding_hand


def deal(
    options: BiddingOptions, dealer: int, hands: Mapping[int, str], widow: str = ""
) -> BiddingHand:
    return new_bidding_hand(options, build_table_deck(options, dealer, hands, widow), dealer)


def play(hand: BiddingHand, moves: str) -> BiddingHand:
    """Apply space-separated moves, each by the seat whose turn it is (checked)."""
    for move in moves.split():
        hand = hand.apply(move, seat=hand.to_act)
    return hand
