"""Invalid replays: each kind of damage and cheating gets its verdict, record and culprit."""

from __future__ import annotations

import json

import pytest
from replaykit import REPLAYS

from p2p66.replay.fileio import parse_replay
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_file, verify_records

INVALID = REPLAYS / "invalid"
MANIFEST = json.loads((INVALID / "MANIFEST.json").read_text())


def test_manifest_lists_every_file_and_every_required_kind() -> None:
    assert {p.name for p in INVALID.glob("*.p66")} == set(MANIFEST)
    assert len(MANIFEST) >= 15
    kinds = {e["kind"] for e in MANIFEST.values()}
    assert {
        "corrupt",
        "truncated",
        "chain",
        "signature",
        "illegal-move",
        "bad-seed-reveal",
        "not-your-card",
        "wrong-card-claim",
        "equivocation",
        "config-mismatch",
        "bad-coin-reveal",
    } <= kinds
    assert sum(e["exit_code"] == 2 for e in MANIFEST.values()) >= 3


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_invalid_file_gets_its_expected_verdict(name: str) -> None:
    expected = MANIFEST[name]
    report = verify_file(INVALID / name).report
    assert report.exit_code == expected["exit_code"]
    assert expected["message"] in report.headline()
    if expected["exit_code"] == 2:
        assert report.status is Status.UNREADABLE and report.problem is None
        return
    problem = report.problem
    assert report.status is Status.INVALID and problem is not None
    assert (problem.kind, problem.record, problem.detected_at, problem.culprit) == (
        expected["kind"],
        expected["record"],
        expected["detected_at"],
        expected["culprit"],
    )
    doc = report.to_json()["error"]
    assert doc["record"] == expected["record"] and doc["culprit"] == expected["culprit"]
    if problem.culprit is not None:
        assert report.players[problem.culprit].name in report.headline()
    else:
        assert "no player can be blamed" in report.headline()


@pytest.mark.parametrize("name", sorted(n for n, e in MANIFEST.items() if e["exit_code"] == 1))
def test_records_before_the_first_bad_one_are_valid(name: str) -> None:
    """ "First bad record" means it: the records before it verify (valid so far)."""
    record = MANIFEST[name]["record"]
    records = parse_replay((INVALID / name).read_bytes()).records
    before = verify_records(records[:record]).report
    assert before.status in (Status.UNFINISHED, Status.VALID), before.headline()
    detected = MANIFEST[name]["detected_at"]
    if detected < len(records):
        upto = verify_records(records[: detected + 1]).report
        assert upto.problem is not None and upto.problem.record == record


def test_revoke_names_the_move_and_the_audit() -> None:
    report = verify_file(INVALID / "revoke-found-by-audit.p66").report
    problem = report.problem
    assert problem is not None
    assert problem.record < problem.detected_at
    hand = report.hands[-1]
    assert hand.first_record <= problem.record <= problem.detected_at
    assert hand.result is None  # the audit refused the hand: no result
