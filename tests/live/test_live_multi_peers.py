"""``play --preset`` of the table games: every seat a peer, the replay written and verified."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p66.engine.table import table_options
from p2p66.live.multi_peers import PeerMultiTable
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_file
from p2p66.ui.cards_text import TextStyle

PRESETS = ("three-handed", "north-american", "south-bend", "cut-throat")


def play_out(table: PeerMultiTable) -> None:
    """You play your first legal move each time; the bots play theirs."""
    for _ in range(5000):
        if table.over is not None:
            return
        table.play_bots()
        if table.over is not None:
            return
        if table.hand_over:
            table.start_hand()
        elif table.my_turn:
            table.submit(table.legal_notation()[0])
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("preset", PRESETS)
def test_a_match_of_peers_writes_a_replay_that_verifies(preset: str, tmp_path: Path) -> None:
    path = tmp_path / "match.p66"
    options = table_options(preset, {"match_target": 2})
    table = PeerMultiTable(options, "expert", 3, TextStyle(ascii=True, color=False), replay=path)
    play_out(table)
    assert table.verdict is not None and table.verdict.startswith("valid")
    v = verify_file(path)
    assert v.report.status is Status.VALID
    assert len(v.report.players) == options.players
    assert all(p.machine.records == table.relay.records for p in table.peers)
    assert list(v.records) == table.relay.records
    assert table.log[-2:] == [f"Replay saved to {path}.", f"Verified: {table.verdict}."]


def test_the_widow_is_told_only_once_everybody_may_see_it(tmp_path: Path) -> None:
    options = table_options("cut-throat", {"match_target": 2})
    table = PeerMultiTable(options, "expert", 3, TextStyle(ascii=True, color=False))
    play_out(table)
    taken = [i for i, line in enumerate(table.log) if "take" in line and "the widow" in line]
    shown = [i for i, line in enumerate(table.log) if line.startswith("The widow: ")]
    assert taken and len(taken) == len(shown)
    assert all(t < s for t, s in zip(taken, shown, strict=True))
    assert all("shown at the next lead" in table.log[t] for t in taken)


@pytest.mark.parametrize(
    ("preset", "after"),
    [
        ("north-american", "West and East win the match"),
        ("cut-throat", "the match ends without a winner"),
    ],
)
def test_leaving_a_table_signs_a_resignation_that_ends_the_replay(
    preset: str, after: str, tmp_path: Path
) -> None:
    path = tmp_path / "left.p66"
    options = table_options(preset, {"match_target": 2})
    table = PeerMultiTable(options, "expert", 5, TextStyle(ascii=True, color=False), replay=path)
    table.play_bots()
    table.leave()
    assert table.verdict == f"valid: you resigned (left the match); {after}"
    v = verify_file(path)
    assert v.report.status is Status.VALID
    assert "resigned (left the match)" in v.report.headline()
    table.leave()  # a second leave changes nothing
    assert list(verify_file(path).records) == table.relay.records
