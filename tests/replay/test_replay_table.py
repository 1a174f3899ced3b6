"""Replays of the games for three and four: goldens, regeneration, and forgeries.

Each golden under ``replays/table`` is a whole match between N peers with
the mental-poker deal and proofs on; it verifies to its expected report,
names all N players, and the generator writes the very same bytes again.
A forged copy (an altered move, an altered key, a record signed by the
wrong player, a cut file) is found at its record and blamed on whoever
signed the lie, or on nobody when the file was edited after signing.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from replaykit import REPLAYS

from p2p66.crypto.messages import KeyReveal, decode_payload
from p2p66.replay.fileio import PREAMBLE, frame, read_replay
from p2p66.replay.report import ProblemKind, Status
from p2p66.replay.verify import verify_bytes, verify_file
from p2p66.session import messages as msg
from p2p66.session.records import Record, make_record

TABLE = REPLAYS / "table"
MANIFEST = json.loads((TABLE / "MANIFEST.json").read_text())
ROOT = Path(__file__).resolve().parents[2]


def load_table_generator() -> object:
    import importlib.util
    import sys

    name = "make_table_replays"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "make_table_replays.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


gen = load_table_generator()


def records_of(name: str) -> list[Record]:
    return list(read_replay(TABLE / name).records)


def file_of(records: list[Record]) -> bytes:
    return PREAMBLE + b"".join(frame(r) for r in records)


def first_index(records: list[Record], kind: type[msg.Message], test: object = None) -> int:
    for i, r in enumerate(records):
        body = msg.decode(r.body)
        if isinstance(body, kind) and (test is None or test(body)):  # type: ignore[operator]
            return i
    raise AssertionError(f"no {kind.TYPE} record")


def signed_by(record: Record, seat: int, body: bytes | None = None) -> Record:
    key = gen.KEYS[seat]  # type: ignore[attr-defined]
    data = record.body if body is None else body
    return make_record(record.seq, record.prev, record.author, data, key.sign)


# ---------------------------------------------------------------------- goldens


def test_every_table_golden_is_in_the_manifest_with_one_per_preset() -> None:
    assert {p.name for p in TABLE.glob("*.p66")} == set(MANIFEST)
    assert {e["preset"] for e in MANIFEST.values()} == {
        "three-handed",
        "north-american",
        "south-bend",
        "cut-throat",
    }


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_table_golden_verifies_to_its_expected_report(name: str) -> None:
    v = verify_file(TABLE / name)
    expected = json.loads((TABLE / MANIFEST[name]["summary"]).read_text())
    assert v.report.to_json() == expected
    assert v.report.status is Status.VALID and v.report.exit_code == 0
    seats = v.machine.seats
    assert len(v.report.players) == seats == v.machine.table.players  # type: ignore[union-attr]
    assert {r.author for r in v.records} == set(range(seats))
    assert all(h.audited for h in v.report.table_hands)


def test_the_generator_writes_the_same_bytes_again() -> None:
    assert gen.main(["--check"]) == 0  # type: ignore[attr-defined]


# ---------------------------------------------------------------------- forgeries


NAME = "north-american-match.p66"


def test_an_altered_move_is_found_and_blames_nobody() -> None:
    records = records_of(NAME)
    i = first_index(records, msg.Move, lambda b: b.move.startswith("bid:") or b.move == "pass")
    body = msg.decode(records[i].body)
    assert isinstance(body, msg.Move)
    other = "bid:4" if body.move != "bid:4" else "bid:3"
    records[i] = dataclasses.replace(
        records[i], body=msg.encode(dataclasses.replace(body, move=other))
    )
    report = verify_bytes(file_of(records)).report
    assert report.status is Status.INVALID and report.problem is not None
    assert report.problem.record == i and report.problem.kind is ProblemKind.SIGNATURE
    assert report.problem.culprit is None


def test_an_altered_key_signed_by_its_author_blames_the_author() -> None:
    records = records_of(NAME)
    i = first_index(
        records,
        msg.Deal,
        lambda b: any(isinstance(decode_payload(p), KeyReveal) for p in b.data["payloads"]),
    )
    body = msg.decode(records[i].body)
    assert isinstance(body, msg.Deal)
    payloads = [decode_payload(p) for p in body.data["payloads"]]
    k = next(j for j, p in enumerate(payloads) if isinstance(p, KeyReveal))
    keys = payloads[k]
    assert isinstance(keys, KeyReveal)
    first, second = keys.reveals[0], keys.reveals[1]
    payloads[k] = dataclasses.replace(
        keys, reveals=(dataclasses.replace(first, key=second.key), *keys.reveals[1:])
    )
    forged = msg.encode(
        dataclasses.replace(body, data={"payloads": [p.to_wire() for p in payloads]})
    )
    author = records[i].author
    records[i] = signed_by(records[i], author, forged)
    report = verify_bytes(file_of(records[: i + 1])).report
    assert report.problem is not None and report.problem.record == i
    assert report.problem.kind is ProblemKind.WRONG_KEY
    assert report.problem.culprit == author
    assert f"(seat {author}) is to blame" in report.headline()


def test_a_record_signed_by_another_player_is_found_and_blames_nobody() -> None:
    records = records_of(NAME)
    i = first_index(records, msg.Move)
    author = records[i].author
    records[i] = signed_by(records[i], (author + 1) % 4)
    report = verify_bytes(file_of(records)).report
    assert report.problem is not None and report.problem.record == i
    assert report.problem.kind is ProblemKind.SIGNATURE and report.problem.culprit is None


def test_a_truncated_table_replay_says_where_and_who_is_waited_on() -> None:
    records = records_of(NAME)
    data = file_of(records)
    cut = verify_bytes(data[:-10]).report
    assert cut.status is Status.INVALID and cut.problem is not None
    assert cut.problem.kind is ProblemKind.TRUNCATED and cut.problem.culprit is None
    half = len(records) // 2
    whole = verify_bytes(file_of(records[:half])).report
    assert whole.status is Status.UNFINISHED and whole.waiting is not None
    assert 0 <= whole.waiting.seat < 4 and len(whole.players) == 4


def test_a_header_of_fewer_players_than_the_game_is_refused_at_the_proposal() -> None:
    """Dropping a hello makes a table of three propose a game of four: refused."""
    records = records_of(NAME)
    report = verify_bytes(file_of([records[0], records[1], records[2], records[4]])).report
    assert report.status is Status.INVALID and report.problem is not None
    assert report.problem.record == 3


# ---------------------------------------------------------------------- show and export


def test_export_text_names_every_seat_and_every_trick() -> None:
    from p2p66.replay.export import export_text

    v = verify_file(TABLE / NAME)
    text = export_text(v)
    for seat, name in enumerate(("north", "east", "south", "west")):
        assert f'[Seat{seat} "{name}"]' in text
        assert f"[Seat{seat}Cards " in text
    assert text.count("\n6. ") == len(v.report.table_hands)  # six tricks of four per hand
    assert "Calls: " in text


def test_export_json_gives_every_hand_its_deal_and_moves() -> None:
    from p2p66.replay.export import export_json

    v = verify_file(TABLE / "cut-throat-match.p66")
    doc = export_json(v)
    assert len(doc["players"]) == 3 and doc["hands"]
    for hand in doc["hands"]:
        assert len(hand["deal"]["hands"]) == 3 and len(hand["deal"]["widow"]) == 3
        assert all(0 <= m["seat"] < 3 for m in hand["moves"])


def test_show_for_one_seat_gives_only_its_own_cards() -> None:
    from p2p66.replay.show import show_chunks
    from p2p66.ui.cards_text import TextStyle

    v = verify_file(TABLE / NAME)
    lines = [line for c in show_chunks(v, 2, TextStyle(ascii=True)) for line in c.lines]
    assert any("south holds" in line for line in lines)
    assert not any(n in line for line in lines for n in ("north holds", "east holds"))
    assert lines[-1].startswith("Verdict: valid")
