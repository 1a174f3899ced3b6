"""Match equity: monotone in the hand result, exact at the edges of a match."""

from __future__ import annotations

import pytest

from p2p66.bots.equity import utilities
from p2p66.engine import preset


@pytest.mark.parametrize("name", ["sixty-six", "schnapsen", "vu"])
@pytest.mark.parametrize("points", [(0, 0), (3, 5), (6, 1), (6, 6)])
def test_better_results_are_worth_more(name: str, points: tuple[int, int]) -> None:
    worth = utilities(preset(name), points, 0)
    values = [worth[v] for v in range(-3, 4)]
    assert values == sorted(values)
    assert all(0.0 <= v <= 1.0 for v in values)


def test_symmetric_at_even_score() -> None:
    worth = utilities(preset("sixty-six"), (2, 2), 1)
    for gp in (1, 2, 3):
        assert worth[gp] + worth[-gp] == pytest.approx(1.0)
    assert worth[0] == pytest.approx(0.5)


def test_one_point_from_the_end() -> None:
    worth = utilities(preset("sixty-six"), (6, 6), 0)
    assert worth[1] == worth[3] == 1.0 and worth[-1] == worth[-3] == 0.0
    one_hand = utilities(preset("vu").with_options(match_target=1), (0, 0), 1)
    assert one_hand == {0: 0.5, 1: 1.0, 2: 1.0, 3: 1.0, -1: 0.0, -2: 0.0, -3: 0.0}
