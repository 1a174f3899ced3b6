"""One record, one meaning: every signed body has exactly one byte string.

Each forgery here is re-signed by its author's own key and chained in place,
so only the canonical-form rules can catch it; the forger is to blame. The
same ``Machine`` judges the live game, so a live peer refuses these records too.
"""

from __future__ import annotations

import struct
from functools import cache
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from replaykit import REPLAYS, load_generator

from p2p66.crypto import errors as crypto_errors
from p2p66.replay.fileio import parse_replay
from p2p66.replay.report import ProblemKind, Status
from p2p66.replay.verify import Verification, verify_bytes, verify_records
from p2p66.session import messages as msg
from p2p66.session.canonical import NonCanonical, unpack
from p2p66.session.errors import RemoteProtocolError
from p2p66.session.records import Record


@cache
def golden() -> tuple[Record, ...]:
    return parse_replay((REPLAYS / "golden" / "sixty-six-match.p66").read_bytes()).records


def body_of(index: int) -> dict[str, Any]:
    body = msgpack.unpackb(golden()[index].body, raw=False)
    assert isinstance(body, dict)
    return body


def first_of(kind: str) -> int:
    return next(i for i in range(len(golden())) if body_of(i)["t"] == kind)


def forge(index: int, data: bytes) -> Verification:
    """Record ``index`` with the body ``data``, re-signed by its author, as the file's last."""
    gen = load_generator()
    record = golden()[index]
    return verify_records([*golden()[:index], gen.sign_as(record, data, gen.KEYS[record.author])])


def assert_malformed(v: Verification, index: int, words: str) -> None:
    problem = v.report.problem
    assert problem is not None, v.report.headline()
    assert problem.kind is ProblemKind.MALFORMED, problem
    # a hello brings its own key: a malformed one cannot be pinned on anybody
    culprit = golden()[index].author if index >= 2 else None
    assert problem.record == index and problem.culprit == culprit
    assert words in problem.message


# -- raw msgpack pieces, to write the forms packb never writes


def str32(text: str) -> bytes:
    data = text.encode()
    return b"\xdb" + struct.pack(">I", len(data)) + data


def map32(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return b"\xdf" + struct.pack(">I", len(pairs)) + b"".join(k + v for k, v in pairs)


def packed_pairs(body: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    return [(msgpack.packb(k), msgpack.packb(v)) for k, v in body.items()]


def fixmap(pairs: list[tuple[bytes, bytes]]) -> bytes:
    assert len(pairs) < 16
    return bytes([0x80 | len(pairs)]) + b"".join(k + v for k, v in pairs)


def test_the_golden_files_are_canonical() -> None:
    for path in sorted((REPLAYS / "golden").glob("*.p66")):
        for record in parse_replay(path.read_bytes()).records:
            assert msgpack.packb(unpack(record.body)) == record.body


def test_a_wide_integer_is_not_the_canonical_form() -> None:
    pairs = packed_pairs(body_of(2))
    pairs[1] = (pairs[1][0], b"\xcf" + struct.pack(">Q", 1))  # v = 1 as uint64
    assert_malformed(forge(2, fixmap(pairs)), 2, "canonical form")


def test_a_wide_string_is_not_the_canonical_form() -> None:
    pairs = packed_pairs(body_of(2))
    pairs[0] = (pairs[0][0], str32("propose"))
    assert_malformed(forge(2, fixmap(pairs)), 2, "canonical form")


def test_a_wide_map_is_not_the_canonical_form() -> None:
    assert_malformed(forge(2, map32(packed_pairs(body_of(2)))), 2, "canonical form")


def test_a_key_twice_is_refused() -> None:
    index = first_of("move")
    pairs = packed_pairs(body_of(index))
    at = next(i for i, (k, _) in enumerate(pairs) if k == msgpack.packb("move"))
    pairs.insert(at + 1, (msgpack.packb("move"), msgpack.packb("play:QH")))
    assert_malformed(forge(index, fixmap(pairs)), index, "'move' twice")


def test_keys_out_of_order_are_refused() -> None:
    body = body_of(2)
    swapped = {"v": body["v"], "t": body["t"], **{k: body[k] for k in list(body)[2:]}}
    assert_malformed(forge(2, msgpack.packb(swapped)), 2, "out of order")


def test_payload_keys_out_of_order_are_refused() -> None:
    index = first_of("deal")
    body = body_of(index)
    payload = body["data"]["payloads"][0]
    payload = dict(reversed(list(payload.items())))
    body["data"] = {"payloads": [payload, *body["data"]["payloads"][1:]]}
    assert_malformed(forge(index, msgpack.packb(body)), index, "out of order")


def test_rule_options_out_of_order_are_refused() -> None:
    index = first_of("propose")
    body = body_of(index)
    body["options"] = dict(sorted(body["options"].items()))
    assert_malformed(forge(index, msgpack.packb(body)), index, "out of order")


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("move", {"payload": None, "note": "hi"}),
        ("deal", {"payloads": [], "extra": 1}),
        ("keys", {}),
    ],
)
def test_unknown_or_missing_fields_in_data_are_refused(kind: str, data: dict[str, Any]) -> None:
    index = first_of(kind)
    body = body_of(index)
    body["data"] = data
    assert_malformed(forge(index, msgpack.packb(body)), index, f"{kind}.data: fields")


def test_a_bool_is_not_an_int() -> None:
    body = body_of(2)
    body["v"] = True
    assert_malformed(forge(2, msgpack.packb(body)), 2, "protocol version True")
    index = first_of("move")
    body = body_of(index)
    body["hand"] = True
    assert_malformed(forge(index, msgpack.packb(body)), index, "move.hand must be int")


def test_an_option_of_the_right_value_but_the_wrong_type_is_refused() -> None:
    index = first_of("propose")
    body = body_of(index)
    body["options"]["deck_size"] = 24.0
    v = forge(index, msgpack.packb(body))
    assert v.report.problem is not None and v.report.problem.record == index
    assert v.report.problem.culprit == 0


@pytest.mark.parametrize(
    "name", ["alice\r", "mallory\nvalid: mallory wins", "bob\x1b[2K", "eve\u202egnp", "a\u2028b"]
)
def test_names_with_control_or_bidi_characters_are_malformed(name: str) -> None:
    body = body_of(1)
    body["name"] = name
    v = forge(1, msgpack.packb(body))
    assert_malformed(v, 1, "not plain text")
    assert all(msg.unsafe_text(line) is None for line in v.report.summary_lines())


def test_a_refusal_reason_with_a_newline_is_malformed() -> None:
    index = first_of("propose") + 1
    body = {"t": "refuse", "v": 1, "reason": "no\nvalid: bob wins"}
    assert_malformed(forge(index, msgpack.packb(body)), index, "refuse.reason is not plain text")


def test_the_preamble_reserved_field_must_be_zero() -> None:
    data = (REPLAYS / "golden" / "sixty-six-match.p66").read_bytes()
    report = verify_bytes(data[:6] + b"\x00\x01" + data[8:]).report
    assert report.status is Status.UNREADABLE and "reserved field is 1" in report.unreadable


def test_every_mental_poker_code_is_a_problem_kind() -> None:
    codes = {
        cls.code
        for cls in vars(crypto_errors).values()
        if isinstance(cls, type) and issubclass(cls, crypto_errors.CheatingDetected)
    }
    assert codes <= {k.value for k in ProblemKind}


# -- the decoder itself, fuzzed: our error or a value, never another exception

plain_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.text(max_size=12)
    | st.binary(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=10,
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(plain_values)
def test_every_value_has_one_canonical_form_that_round_trips(value: Any) -> None:
    data = msgpack.packb(value)
    assert unpack(data) == value


@settings(max_examples=500, derandomize=True, deadline=None)
@given(st.binary(max_size=200))
def test_the_decoders_raise_only_their_own_errors(data: bytes) -> None:
    try:
        value = unpack(data)
    except NonCanonical:
        pass
    else:
        assert msgpack.packb(value) == data
    try:
        msg.decode(data, 1)
    except RemoteProtocolError as exc:
        assert exc.culprit == 1


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([b"\xcc", b"\xcd", b"\xce", b"\xcf"]))
def test_a_number_in_a_wider_form_than_needed_is_refused(value: int, head: bytes) -> None:
    width = {b"\xcc": 1, b"\xcd": 2, b"\xce": 4, b"\xcf": 8}[head]
    if value >= 256**width:
        return
    data = head + value.to_bytes(width, "big")
    if msgpack.packb(value) == data:
        assert unpack(data) == value
    else:
        with pytest.raises(NonCanonical):
            unpack(data)


def test_the_json_report_names_the_kind_and_who_is_to_blame() -> None:
    index = first_of("propose") + 1
    body = {"t": "refuse", "v": 1, "reason": "x\ny"}
    doc = forge(index, msgpack.packb(body)).report.to_json()["error"]
    assert doc["kind"] == "malformed" and doc["culprit"] == 1 and doc["blame"] == "bob (seat 1)"
    body = body_of(0)
    body["name"] = "x\ny"
    doc = forge(0, msgpack.packb(body)).report.to_json()["error"]
    assert doc["kind"] == "malformed" and doc["culprit"] is None
    assert doc["blame"] == "no player can be blamed from the file"
