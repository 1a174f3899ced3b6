"""Golden playthroughs of the bidding games: each file's deal and moves reproduce it exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p66.engine import IllegalMoveError, NotationError
from p2p66.engine.table.playthrough import parse, render

DIR = Path(__file__).resolve().parents[2] / "protocol" / "playthroughs" / "table"
FILES = sorted(DIR.glob("*.txt"))

REQUIRED = {
    "north-american-contract-made",
    "north-american-contract-set",
    "north-american-moon-made",
    "north-american-moon-failed",
    "north-american-all-pass-redeal",
    "north-american-dealer-bids-1",
    "north-american-first-lead-marriage-40",
    "north-american-marriage-not-counted",
    "north-american-no-overtrump",
    "south-bend-contract-made",
    "cut-throat-widow",
    "cut-throat-contract-set",
}


def test_every_rule_feature_has_a_playthrough() -> None:
    assert {f.stem for f in FILES} >= REQUIRED


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_playthrough_reproduces_exactly(path: Path) -> None:
    text = path.read_text()
    assert render(parse(text)) == text


def test_a_tampered_move_is_caught() -> None:
    text = (DIR / "cut-throat-widow.txt").read_text()
    with pytest.raises(IllegalMoveError, match="must"):
        render(parse(text.replace("play:JC", "play:QD", 1)))


def test_not_a_playthrough() -> None:
    with pytest.raises(NotationError, match="not a table playthrough"):
        parse("hello\n")
    with pytest.raises(NotationError, match="malformed"):
        parse("# p2p66 table playthrough v1\ntitle: x\n")
