"""A replay's proofs wait for the hand's audit (``ProofBacklog``), and the verdict never changes.

An honest file is read once and every proof is settled by the audit with its author's
revealed secrets (the cheaper check). A bad proof, in a hand that goes on to a clean audit
or in a file cut before any seed, is still reported on the record that carried it and
blamed on its author, exactly as when every proof is checked on arrival.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from replaykit import REPLAYS, load_generator
from test_replay_argument import one_hand

from p2p66.crypto.backlog import ProofBacklog
from p2p66.replay import verify
from p2p66.replay.report import Status
from p2p66.replay.verify import Verification, verify_bytes
from p2p66.session.records import Record


def strict(data: bytes) -> Verification:
    """The verdict with every proof checked on arrival (no backlog)."""
    try:
        reader = verify.ReplayReader(verify.io.BytesIO(data))
    except verify.ReplayFormatError as exc:
        return verify.unreadable(str(exc))
    return verify._verify(reader, lambda: reader.damage, reader.version, None)[0]


def with_bad_proof(records: list[Record], index: int, payload: int) -> list[Record]:
    """``records`` with one byte of a deal payload's proof changed, re-signed and re-chained."""
    gen = load_generator()
    body = gen.decode(records[index])
    payloads = list(body["data"]["payloads"])
    proof = bytearray(payloads[payload]["proof"])
    proof[-1] ^= 1  # still a canonical scalar: the proof is well formed but false
    payloads[payload] = {**payloads[payload], "proof": bytes(proof)}
    key = gen.KEYS[records[index].author]
    edited = gen.sign_as(records[index], {**body, "data": {"payloads": payloads}}, key)
    return gen.rechain([*records[:index], edited, *records[index + 1 :]], index, gen.KEYS)


def test_an_honest_file_is_read_once_and_settled_with_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gen = load_generator()
    data = gen.file_bytes(list(one_hand()))
    runs: list[ProofBacklog | None] = []
    backlogs: list[ProofBacklog] = []
    real = verify._verify

    def spy(*args: object) -> tuple[Verification, object]:
        backlog = args[3]
        runs.append(backlog)  # type: ignore[arg-type]
        out = real(*args)  # type: ignore[arg-type]
        if isinstance(backlog, ProofBacklog):
            backlogs.append(backlog)
        return out

    def refuse(*_: object) -> str:
        raise AssertionError("a proof or key was checked without its author's secrets")

    monkeypatch.setattr(verify, "_verify", spy)
    for name in (
        "backlog.verify_rekey",
        "backlog.verify_deck_shuffle",
        "rekey.verify_rekey",
        "argument.verify_argument",
        "deckproof.verify_argument",
        "backlog.mul_base",
    ):
        monkeypatch.setattr(f"p2p66.crypto.{name}", refuse)
    verification = verify_bytes(data)
    report = verification.report
    assert report.status is Status.VALID, report.headline()
    assert len(runs) == 1 and backlogs[0].sound
    # the machine handed back checks on arrival again, should anyone feed it more
    assert verification.machine.backlog is None
    assert all(table.crypto.backlog is None for table in verification.machine.hands)
    assert backlogs[0].proofs == 4  # two shuffle arguments and two re-key proofs
    assert backlogs[0].keys > 20  # every card key sent, each matched to its seed's


@pytest.mark.parametrize(
    ("index", "payload", "kind"),
    [(8, 0, "invalid-shuffle-proof"), (9, 0, "invalid-shuffle-proof"), (9, 1, "invalid-rekey")],
    ids=["first-shuffle", "second-shuffle", "rekey"],
)
@pytest.mark.parametrize("cut", [False, True], ids=["audited", "cut-before-the-seeds"])
def test_a_bad_proof_is_reported_where_it_was_sent(
    index: int, payload: int, kind: str, cut: bool
) -> None:
    gen = load_generator()
    records = with_bad_proof(list(one_hand()), index, payload)
    if cut:
        records = records[: index + 3]
    data = gen.file_bytes(records)
    report = verify_bytes(data).report
    assert report.status is Status.INVALID, report.headline()
    assert report.problem is not None
    assert report.problem.kind == kind, report.problem
    assert report.problem.record == index
    assert report.problem.culprit == records[index].author
    assert report == strict(data).report


def with_bad_key(records: list[Record], index: int) -> list[Record]:
    """``records`` with the first key of record ``index`` changed (still a valid scalar)."""
    gen = load_generator()
    body = gen.decode(records[index])
    data = dict(body["data"])
    payloads = list(data["payloads"]) if "payloads" in data else [data["payload"]]
    at = next(i for i, p in enumerate(payloads) if "reveals" in p)
    reveals = list(payloads[at]["reveals"])
    key = int.from_bytes(reveals[0]["key"], "little") + 1
    reveals[0] = {**reveals[0], "key": key.to_bytes(32, "little")}
    payloads[at] = {**payloads[at], "reveals": reveals}
    data = {"payloads": payloads} if "payloads" in data else {**data, "payload": payloads[0]}
    edited = gen.sign_as(records[index], {**body, "data": data}, gen.KEYS[records[index].author])
    return gen.rechain([*records[:index], edited, *records[index + 1 :]], index, gen.KEYS)


@pytest.mark.parametrize("index", [9, 14], ids=["deal-flight", "keys-message"])
def test_a_key_off_its_commitment_is_reported_where_it_was_sent(index: int) -> None:
    gen = load_generator()
    records = with_bad_key(list(one_hand()), index)
    data = gen.file_bytes(records)
    report = verify_bytes(data).report
    assert report.status is Status.INVALID, report.headline()
    assert report.problem is not None
    assert report.problem.record == index, report.problem
    assert report.problem.culprit == records[index].author
    assert report.problem.kind == "wrong-key", report.problem
    assert report == strict(data).report


def test_reading_stops_at_the_end_of_the_hand_whose_proof_failed() -> None:
    records = with_bad_proof(list(one_hand()), 9, 1)

    def then_nothing_more() -> Iterator[Record]:
        yield from records
        raise AssertionError("the verifier read past the hand whose proof failed")

    report = verify.verify_stream(1, then_nothing_more(), lambda: None).report
    assert report.problem is not None and report.problem.record == 9
    assert report.problem.kind == "invalid-rekey"


@pytest.mark.parametrize(
    "path", sorted(REPLAYS.rglob("*.p66")), ids=lambda p: str(p.relative_to(REPLAYS))
)
def test_every_stored_replay_gets_the_verdict_of_checking_on_arrival(path: Path) -> None:
    """The goldens and the invalid files (a wrong card key, a planted point, ...) alike."""
    data = path.read_bytes()
    assert verify_bytes(data).report == strict(data).report
