"""Replays with the shuffle argument: recorded in the header, verified, cheats blamed.

Old replays (cut-and-choose, soundness 80) are the goldens of replays/ and keep verifying
unchanged (test_replay_golden.py); here a new game's default proofs go through the same
verifier, and a planted point in an argument hand is refused at its record.
"""

from __future__ import annotations

from functools import cache

from replaykit import load_generator

from p2p66.crypto.config import ARGUMENT
from p2p66.crypto.group import decode_points, double
from p2p66.engine import preset
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_bytes, verify_records
from p2p66.session.records import Record


@cache
def one_hand() -> tuple[Record, ...]:
    gen = load_generator()
    game = gen.Game(preset("sixty-six").with_options(match_target=1), 17, soundness=ARGUMENT)
    return tuple(gen.play(game))


def test_new_games_record_and_verify_the_argument() -> None:
    gen = load_generator()
    records = one_hand()
    propose = gen.decode(records[2])
    assert propose["t"] == "propose" and propose["soundness"] == ARGUMENT
    report = verify_records(records).report
    assert report.status is Status.VALID, report.headline()
    assert report.soundness == ARGUMENT
    assert "proofs on (shuffle argument)" in report.rules_line()


def test_a_planted_point_is_refused_at_its_record_and_blamed() -> None:
    gen = load_generator()
    records = list(one_hand())
    index = gen.first(records, lambda i, r, b: b["t"] == "deal")
    body = gen.decode(records[index])
    step = body["data"]["payloads"][0]
    deck = list(decode_points(step["deck"], None, "deck"))
    deck[1] = double(deck[0])
    data = {"payloads": [{**step, "deck": b"".join(deck)}, *body["data"]["payloads"][1:]]}
    author = records[index].author
    cheated = gen.sign_as(records[index], {**body, "data": data}, gen.KEYS[author])
    report = verify_bytes(gen.file_bytes([*records[:index], cheated])).report
    assert report.status is Status.INVALID
    assert report.problem is not None
    assert report.problem.kind == "invalid-shuffle-proof", report.problem
    assert report.problem.culprit == author and report.problem.record == index
