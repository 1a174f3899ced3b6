"""Golden playthroughs: replaying each file's deal and moves reproduces it byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p66.engine import IllegalMoveError, NotationError
from p2p66.engine.playthrough import parse, render

DIR = Path(__file__).resolve().parents[2] / "protocol" / "playthroughs"
FILES = sorted(DIR.glob("*.txt"))

REQUIRED = {
    "sixty-six-last-trick-bonus",
    "sixty-six-marriage-20",
    "sixty-six-marriage-40",
    "sixty-six-marriage-held-before-first-trick",
    "sixty-six-exchange-nine",
    "sixty-six-declare-1",
    "sixty-six-declare-2",
    "sixty-six-declare-3",
    "sixty-six-false-declaration",
    "sixty-six-close-before-first-trick",
    "sixty-six-close-before-draw-and-succeed",
    "sixty-six-closer-fails",
    "sixty-six-final-declare",
    "sixty-six-unclaimed-end-points",
    "schnapsen-exchange-jack",
    "schnapsen-last-trick-wins",
    "schnapsen-marriage-after-close",
    "vu-automatic-end",
    "vu-next-trick-marriage-credit",
    "vu-last-trick-1",
}


def test_every_rule_feature_has_a_playthrough() -> None:
    assert {f.stem for f in FILES} >= REQUIRED


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_playthrough_reproduces_exactly(path: Path) -> None:
    text = path.read_text()
    assert render(parse(text)) == text


def test_a_tampered_move_is_caught() -> None:
    text = (DIR / "sixty-six-marriage-40.txt").read_text()
    bad = text.replace("marry:KD", "marry:QS", 1)
    with pytest.raises(IllegalMoveError):
        render(parse(bad))


def test_not_a_playthrough() -> None:
    with pytest.raises(NotationError, match="not a playthrough"):
        parse("hello\n")
    with pytest.raises(NotationError, match="malformed"):
        parse("# p2p66 playthrough v1\ntitle: x\n")
