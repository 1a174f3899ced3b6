"""``r`` at a ``--plain`` table seat tells the situation again, as the two-player game does."""

from __future__ import annotations

from uikit import table_move

from p2p66.engine.table import table_options
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.multi.local import LocalMultiTable
from p2p66.ui.multi.screens import position_lines, refusal, run_plain


def test_r_repeats_the_situation_and_the_question_then_play_goes_on() -> None:
    table = LocalMultiTable(
        table_options("north-american", {"match_target": 3}), "expert", 4, TextStyle(color=False)
    )
    out: list[str] = []
    asked = [0]

    def read() -> str:
        asked[0] += 1
        if asked[0] == 1:
            return "r"
        return table_move(table)

    run_plain(table, read, out.append)
    assert table.over is not None
    first_question = next(i for i, line in enumerate(out) if line.startswith("Your call:"))
    again = out[first_question + 1 :]
    assert not any(line.startswith("Not accepted") for line in again[:6])
    assert again[0].startswith(("The bidding so far:", "Nobody has called yet."))
    hand = next(line for line in again if line.startswith("Your hand:"))
    assert hand == next(line for line in out if line.startswith("Your hand:"))
    assert refusal(table, "r") is None


def test_r_while_another_seat_is_to_act_says_whose_turn_it_is_and_asks_nothing() -> None:
    table = LocalMultiTable(
        table_options("cut-throat", {"match_target": 3}), "expert", 1, TextStyle(color=False)
    )
    assert table.hand is not None and not table.my_turn  # seat 1 calls first on this deal
    lines = position_lines(table)
    assert lines[-1] == f"It is {table.waiting_for}'s turn."
    assert any(line.startswith("Your hand:") for line in lines)
    assert not any(line.startswith("Your call:") for line in lines)
