"""A table's scores in a verdict: readable with a negative score (not "3-0--1")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from p2p66.replay.report import score_line


def test_scores_without_a_negative_keep_the_dash() -> None:
    assert score_line((3, 1)) == "3-1"
    assert score_line((7, 0, 4)) == "7-0-4"


def test_a_negative_score_is_set_apart() -> None:
    assert score_line((3, 0, -1)) == "3 : 0 : -1"
    assert score_line((-1, 4)) == "-1 : 4"


@given(st.lists(st.integers(-30, 30), min_size=2, max_size=4))
def test_the_line_reads_back_to_the_scores(scores: list[int]) -> None:
    line = score_line(scores)
    parts = line.split(" : ") if " : " in line else line.split("-")
    assert [int(p) for p in parts] == scores
