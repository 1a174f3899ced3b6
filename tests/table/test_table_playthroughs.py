"""Golden playthroughs of the bidding games: each file's deal and moves reproduce it exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p66.engine import IllegalMoveError, NotationError
from p2p66.engine.table.playthrough import THREE_HEADER, parse, parse_three, render, render_three

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
    "three-handed-dealer-capped",
    "three-handed-dealer-scores-nothing",
    "three-handed-tie-carried-to-the-dealer",
    "three-handed-schnapsen-hands",
}


def test_every_rule_feature_has_a_playthrough() -> None:
    assert {f.stem for f in FILES} >= REQUIRED


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_playthrough_reproduces_exactly(path: Path) -> None:
    text = path.read_text()
    if text.startswith(THREE_HEADER):
        assert render_three(parse_three(text)) == text
    else:
        assert render(parse(text)) == text


def test_a_tampered_three_handed_match_is_caught() -> None:
    text = (DIR / "three-handed-dealer-capped.txt").read_text()
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith("  moves: "))
    first = lines[i].split()[1]
    lines[i] = lines[i].replace(first, "declare", 1)  # declaring at the very first lead
    with pytest.raises(IllegalMoveError):
        render_three(parse_three("\n".join(lines) + "\n"))
    with pytest.raises(NotationError, match="not a three-handed playthrough"):
        parse_three("# p2p66 table playthrough v1\n")


def test_a_tampered_move_is_caught() -> None:
    text = (DIR / "cut-throat-widow.txt").read_text()
    with pytest.raises(IllegalMoveError, match="must"):
        render(parse(text.replace("play:JC", "play:QD", 1)))


def test_not_a_playthrough() -> None:
    with pytest.raises(NotationError, match="not a table playthrough"):
        parse("hello\n")
    with pytest.raises(NotationError, match="malformed"):
        parse("# p2p66 table playthrough v1\ntitle: x\n")
