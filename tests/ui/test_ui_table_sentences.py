"""Sentences of the table screens read right whoever they are about."""

from __future__ import annotations

from p2p66.engine.table.scoring import TableEnd, TableResult
from p2p66.ui.cards_text import no_such_card


def _set(bidder: int) -> TableResult:
    return TableResult(
        how=TableEnd.CONTRACT_SET,
        bidder=bidder,
        bid=2,
        forced=False,
        side_points=(40, 84),
        side_tricks=(2, 4),
        counted_marriages=(0, 0),
        marks=(-2, 2),
        bidder_side=bidder % 2,
    )


def test_a_set_contract_says_were_for_you_and_was_for_anyone_else() -> None:
    sides, names = ("You+North", "West+East"), ("You", "West", "North", "East")
    assert "You bid 2 (66) and were set with 40 points" in _set(0).describe(sides, names)
    assert "North bid 2 (66) and was set with 40 points" in _set(2).describe(sides, names)


def test_a_refused_card_number_counts_one_card_as_one() -> None:
    assert no_such_card(6, 1) == "there is no card 6: your one card is number 1"
    assert no_such_card(7, 6) == "there is no card 7: your cards are numbered 1 to 6"
