"""Fuzz the reader and the verifier: whatever the bytes, a verdict, never another exception.

Three depths: random bytes; golden files damaged at random (framing and CRC
stop most of these early); and records whose bodies are mutated and then
re-signed by their author's key and re-chained, which gets the garbage past
framing, chain and signatures into the message decoders, the mental-poker
checks and the rules engine.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from replaykit import REPLAYS, load_generator

from p2p66.replay.export import export_json, export_text
from p2p66.replay.fileio import PREAMBLE, ReplayFormatError, parse_replay
from p2p66.replay.report import ProblemKind, Status
from p2p66.replay.show import show_chunks
from p2p66.replay.verify import Verification, verify_bytes, verify_records
from p2p66.session.messages import unsafe_text
from p2p66.session.records import Record
from p2p66.ui.cards_text import TextStyle

FUZZ = settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SOURCES = ("sixty-six-match", "schnapsen-match", "vu-match", "custom-points")


@cache
def golden(name: str) -> bytes:
    return (REPLAYS / "golden" / f"{name}.p66").read_bytes()


@cache
def golden_records(name: str) -> tuple[Record, ...]:
    return parse_replay(golden(name)).records


def use(v: Verification) -> None:
    """Everything built on a verification works on whatever it found."""
    assert v.report.exit_code in (0, 1, 2)
    assert (v.report.problem is not None) == (v.report.status is Status.INVALID)
    doc = v.report.to_json()
    json.dumps(doc)
    if doc["error"] is not None:  # a fixed kind, never text taken from the file
        assert doc["error"]["kind"] in {k.value for k in ProblemKind}
    assert all(unsafe_text(line) is None for line in v.report.summary_lines())
    for seat in (None, 0, 1):
        show_chunks(v, seat, TextStyle(ascii=True, color=False))
    export_text(v)
    json.dumps(export_json(v))


def check(data: bytes) -> None:
    use(verify_bytes(data))


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes(data: bytes) -> None:
    check(data)
    check(PREAMBLE + data)


@FUZZ
@given(
    st.sampled_from(SOURCES),
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=4),
    st.integers(0, 10**6),
)
def test_damaged_golden_files(name: str, edits: list[tuple[int, int]], cut: int) -> None:
    data = bytearray(golden(name))
    for where, byte in edits:
        data[where % len(data)] = byte
    check(bytes(data))
    check(bytes(data[: cut % len(data)]))


def test_parse_raises_only_our_error_on_bad_preambles() -> None:
    for data in (b"P", b"P66", b"P66R\x00", b"P66R\x00\x01\x00"):
        with pytest.raises(ReplayFormatError):
            parse_replay(data)


msgpack_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.binary(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)


def mutate(obj: Any, path: list[int], value: Any, drop: bool) -> Any:
    """Replace (or drop) the element of ``obj`` that ``path`` picks, level by level."""
    if not path or not isinstance(obj, dict | list) or not obj:
        return value
    out: Any = dict(obj) if isinstance(obj, dict) else list(obj)
    keys = list(out) if isinstance(out, dict) else list(range(len(out)))
    key = keys[path[0] % len(keys)]
    if drop and len(path) == 1:
        del out[key]
    else:
        out[key] = mutate(obj[key], path[1:], value, drop)
    return out


@FUZZ
@given(
    st.sampled_from(SOURCES),
    st.integers(0, 10**6),
    st.lists(st.integers(0, 50), min_size=1, max_size=5),
    msgpack_values,
    st.booleans(),
)
def test_resigned_mutations_reach_the_judges(
    name: str, at: int, path: list[int], value: Any, drop: bool
) -> None:
    gen = load_generator()
    records = list(golden_records(name))
    index = at % len(records)
    record = records[index]
    body = msgpack.unpackb(record.body, raw=False)
    changed = mutate(body, path, value, drop)
    try:
        data = msgpack.packb(changed)
    except (TypeError, ValueError, OverflowError):
        return
    forged = gen.sign_as(record, data, gen.KEYS[record.author])
    cut = gen.rechain([*records[:index], forged, *records[index + 1 : index + 6]], index, gen.KEYS)
    v = verify_records(cut)
    use(v)
    assert v.report.exit_code in (0, 1)
    if v.report.problem is not None:
        assert v.report.problem.record <= index + 5
