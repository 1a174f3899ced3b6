"""The verifier on live games: both peers' files, every prefix, torn tails, endings."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest
from replaykit import load_generator

from p2p66.engine import preset
from p2p66.replay.fileio import ReplayWriter, read_replay
from p2p66.replay.report import REPORT_FORMAT, REPORT_VERSION, Ending, Status
from p2p66.replay.verify import classify, verify_file, verify_records
from p2p66.session.errors import CheatingDetected, LocalProtocolError, RemoteProtocolError
from p2p66.session.machine import Machine
from p2p66.session.pair import run_pair
from p2p66.session.records import Record


@cache
def match(name: str = "sixty-six", seed: int = 5) -> tuple[tuple[Record, ...], tuple[Record, ...]]:
    """Both sides' records of a match played by the real protocol."""
    gen = load_generator()
    options = preset(name).with_options(match_target=3)
    peers = (
        gen.RecordingPeer(0, gen.signer(0), options=options, soundness=0, rng=gen.rng(seed)),
        gen.RecordingPeer(1, gen.signer(1), soundness=0, rng=gen.rng(seed + 1)),
    )
    policy = gen.Policy(close_at=50)
    result = run_pair(peers, (gen.bot(policy, seed), gen.bot(policy, seed + 1)))
    return tuple(result.records[0]), tuple(result.records[1])


def write(path: Path, records: tuple[Record, ...] | list[Record]) -> Path:
    with ReplayWriter(path, fsync=False) as writer:
        for record in records:
            writer.append(record)
    return path


@pytest.mark.parametrize("name", ["sixty-six", "schnapsen", "vu"])
def test_both_peers_files_are_identical_and_verify_the_same(tmp_path: Path, name: str) -> None:
    mine, theirs = match(name)
    a = write(tmp_path / "alice.p66", mine)
    b = write(tmp_path / "bob.p66", theirs)
    assert a.read_bytes() == b.read_bytes()
    ra, rb = verify_file(a).report, verify_file(b).report
    assert ra == rb
    assert ra.status is Status.VALID and ra.ending is Ending.WON
    assert ra.winner is not None and ra.game_points[ra.winner] >= 3


def test_report_matches_what_the_players_machines_computed() -> None:
    records, _ = match()
    report = verify_records(records).report
    judge = Machine()
    for record in records:
        judge.receive(record)
    assert judge.match is not None
    assert report.game_points == judge.match.game_points
    assert [h.result for h in report.hands] == list(judge.match.results)
    assert [h.dealer for h in report.hands] == [t.dealer for t in judge.hands]
    assert report.first_dealer == judge.match.first_dealer
    assert all(h.audited for h in report.hands)
    assert report.hands[-1].game_points == report.game_points
    assert [p.name for p in report.players] == ["alice", "bob"]
    assert all(p.software.startswith("p2p66/") for p in report.players)


def test_every_prefix_is_valid_so_far_and_names_who_is_next() -> None:
    records, _ = match()
    for cut in range(0, len(records), 3):
        report = verify_records(records[:cut]).report
        assert report.status is Status.UNFINISHED, (cut, report.headline())
        judge = Machine()
        for record in records[:cut]:
            judge.receive(record)
        expect = judge.expected()
        assert expect is not None and report.waiting is not None
        assert report.waiting.seat == expect.author
        assert report.exit_code == 0
        assert "valid so far, unfinished, waiting on" in report.headline()
        assert report.records == cut


def test_a_crash_mid_record_is_reported_then_cut_on_resume(tmp_path: Path) -> None:
    records, _ = match()
    path = write(tmp_path / "game.p66", records[:30])
    os.truncate(path, path.stat().st_size - 5)  # killed while writing record 29
    report = verify_file(path).report
    assert report.status is Status.INVALID and report.exit_code == 1
    assert report.problem is not None and report.problem.kind == "truncated"
    assert report.problem.record == 29 and report.problem.culprit is None
    assert "records 0-28 are valid" in report.headline()
    with ReplayWriter(path, fsync=False) as writer:  # resume: the torn record is cut first
        assert writer.torn is not None and writer.torn.index == 29
        for record in records[29:]:
            writer.append(record)
    assert read_replay(path).records == records
    assert verify_file(path).report.status is Status.VALID


def test_resignation_and_refusal_are_valid_endings() -> None:
    gen = load_generator()
    by_name = {g.name: g for g in gen.GOLDEN_GAMES}
    resigned = verify_records(gen.play(by_name["schnapsen-resigned"].game)).report
    assert resigned.status is Status.VALID and resigned.ending is Ending.RESIGNED
    assert resigned.resigned is not None and resigned.winner == 1 - resigned.resigned
    assert "resigned" in resigned.headline()
    refused = verify_records(gen.play(by_name["rules-refused"].game)).report
    assert refused.status is Status.VALID and refused.ending is Ending.REFUSED
    assert refused.hands == () and refused.winner is None
    assert refused.reason == "I only play sixty-six"


def test_json_report_is_versioned_and_complete() -> None:
    records, _ = match()
    doc = verify_records(records).report.to_json()
    assert doc["format"] == REPORT_FORMAT and doc["version"] == REPORT_VERSION
    assert doc["status"] == "valid" and doc["exit_code"] == 0 and doc["error"] is None
    assert [p["name"] for p in doc["players"]] == ["alice", "bob"]
    assert all(len(p["fingerprint"]) == 24 for p in doc["players"])
    assert doc["rules"]["options"]["deck_size"] == 24
    assert doc["match"]["ending"] == "won"
    assert len(doc["hands"]) == len(verify_records(records).report.hands)
    for hand in doc["hands"]:
        assert hand["audited"] and hand["result"]["how"]


def test_empty_file_after_the_preamble_waits_for_the_first_hello(tmp_path: Path) -> None:
    report = verify_file(write(tmp_path / "new.p66", [])).report
    assert report.status is Status.UNFINISHED and report.records == 0
    assert report.waiting is not None and report.waiting.seat == 0


def test_unreadable_paths(tmp_path: Path) -> None:
    assert verify_file(tmp_path).report.exit_code == 2
    missing = verify_file(tmp_path / "nope.p66").report
    assert missing.status is Status.UNREADABLE and "cannot read" in missing.unreadable


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (CheatingDetected("player 1 cheated: player 1: x [wrong-key]", 1), "wrong-key"),
        (RemoteProtocolError("malformed message: not msgpack", 0), "malformed"),
        (CheatingDetected("player 0 made an illegal move: y", 0), "illegal-move"),
        (RemoteProtocolError("something new", 0), "protocol"),
        (LocalProtocolError("the audited hand did not end where the live hand ended"), "internal"),
        (RemoteProtocolError("a bracket [not a code!]", 0), "protocol"),
    ],
)
def test_classify(error: RemoteProtocolError | LocalProtocolError, kind: str) -> None:
    assert classify(error) == kind
