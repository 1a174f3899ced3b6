"""Session message encodings match the known-answer vectors byte for byte; decoders are fuzzed."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p66.session import messages as msg
from p2p66.session.errors import RemoteProtocolError
from p2p66.session.records import Record, RecordError

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "session_messages.json"


def test_messages_round_trip_to_the_vector_bytes() -> None:
    data = json.loads(VECTORS.read_text())
    assert {v["type"] for v in data["messages"]} == set(msg.MESSAGE_TYPES)
    for vector in data["messages"]:
        raw = bytes.fromhex(vector["hex"])
        decoded = msg.decode(raw)
        assert vector["type"] == decoded.TYPE
        assert msg.encode(decoded) == raw


def test_signed_record_vector() -> None:
    rec = json.loads(VECTORS.read_text())["record"]
    record = Record.decode(bytes.fromhex(rec["encoded_hex"]))
    assert record.body == bytes.fromhex(rec["body_hex"]) and record.author == rec["author"]
    assert record.digest.hex() == rec["sha256_hex"]
    assert record.verify_signature(bytes.fromhex(rec["public_key_hex"]))


@settings(max_examples=300, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_decoders_raise_only_our_errors(data: bytes) -> None:
    try:
        msg.decode(data, author=1)
    except RemoteProtocolError as exc:
        assert exc.culprit == 1
    with contextlib.suppress(RecordError):
        Record.decode(data)


@settings(max_examples=300, derandomize=True)
@given(
    st.dictionaries(
        st.sampled_from(["t", "v", "name", "hand", "data", "move", "seed", "x"]),
        st.one_of(
            st.integers(-5, 2**40),
            st.text(max_size=5),
            st.binary(max_size=40),
            st.booleans(),
            st.none(),
            st.dictionaries(st.text(max_size=3), st.integers(-(2**63), 2**63 - 1)),
        ),
    )
)
def test_mutated_message_maps(obj: dict[str, object]) -> None:
    import msgpack

    obj.setdefault("v", 1)
    with contextlib.suppress(RemoteProtocolError):
        msg.decode(msgpack.packb(obj), author=0)
