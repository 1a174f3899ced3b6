"""Who a verdict names: "you" for the reader's own seat, a fingerprint when two names are alike."""

from __future__ import annotations

from dataclasses import replace

from p2p66.engine import preset
from p2p66.net.identity import fingerprint
from p2p66.replay.report import Ending, Player, Problem, ProblemKind, Report, Status

ROOT_A, ROOT_B = b"\x01" * 32, b"\x02" * 32
TWO_ROOTS = (Player(0, "root", ROOT_A, "p2p66"), Player(1, "root", ROOT_B, "p2p66"))
ANN_AND_BOT = (Player(0, "ann", ROOT_A, "p2p66"), Player(1, "Expert Bot", ROOT_B, "p2p66"))


def _won(players: tuple[Player, Player], winner: int = 1) -> Report:
    return Report(
        Status.VALID,
        records=40,
        players=players,
        options=preset("sixty-six"),
        ending=Ending.WON,
        winner=winner,
        game_points=(3, 7) if winner == 1 else (7, 3),
    )


def test_two_players_of_one_name_are_told_apart_by_their_keys() -> None:
    report = _won(TWO_ROOTS)
    a, b = fingerprint(ROOT_A)[:4], fingerprint(ROOT_B)[:4]
    assert (report.name(0), report.name(1)) == (f"root ({a})", f"root ({b})")
    assert report.headline() == f"valid: root ({b}) wins the match 7-3"
    assert report.to_json()["players"][0]["name"] == "root"  # the declared name stays as it was


def test_distinct_names_are_shown_as_they_are() -> None:
    assert _won(ANN_AND_BOT).headline() == "valid: Expert Bot wins the match 7-3"


def test_the_reader_is_you_and_the_verbs_agree() -> None:
    assert _won(ANN_AND_BOT, winner=0).seen_by(0).headline() == "valid: you win the match 7-3"
    b = fingerprint(ROOT_B)[:4]  # as the board shows a namesake opponent
    assert _won(TWO_ROOTS).seen_by(0).headline() == f"valid: root ({b}) wins the match 7-3"
    resigned = replace(_won(ANN_AND_BOT), ending=Ending.RESIGNED, resigned=0, reason="left")
    assert resigned.seen_by(0).headline() == "valid: you resigned (left); Expert Bot wins the match"
    assert resigned.seen_by(1).headline() == "valid: ann resigned (left); you win the match"
    gone = replace(_won(ANN_AND_BOT, 0), ending=Ending.ABANDONED, abandoned=1, abandoned_at=12)
    assert gone.seen_by(1).headline() == (
        "valid: you abandoned the match at record 12 (it was your turn); ann wins by forfeit"
    )
    bad = replace(
        _won(ANN_AND_BOT),
        status=Status.INVALID,
        problem=Problem(9, 9, ProblemKind.MALFORMED, "the move is not a move", 0),
    )
    assert bad.seen_by(0).headline().endswith("[you (seat 0) are to blame]")
    assert bad.to_json()["error"]["culprit_name"] == "ann"
