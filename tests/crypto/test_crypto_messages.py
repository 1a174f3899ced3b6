"""Wire forms: every payload round-trips, and garbage becomes MalformedMessage, nothing else."""

from __future__ import annotations

import contextlib
from functools import cache
from typing import Any

import msgpack
import pytest
from cryptokit import FAST, SESSION, dealt, game_config
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.crypto import (
    HandConfig,
    HandPayload,
    HandTranscript,
    InvalidConfig,
    MalformedMessage,
    Reveal,
    decode_payload,
)
from p2p66.crypto.group import Scalar
from p2p66.crypto.memory import MemoryTable
from p2p66.engine.options import preset


@cache
def played_table() -> MemoryTable:
    table = dealt(game_config(FAST), "wire")
    _a, b = table.parties
    pos = min(b.hand())
    table.send(1, b.play(pos))
    table.reveal_seeds()
    return table


def payloads() -> list[HandPayload]:
    return list(played_table().parties[0].state.payloads)


def test_every_payload_round_trips_through_msgpack() -> None:
    kinds = set()
    for p in payloads():
        wire = msgpack.unpackb(msgpack.packb(p.to_wire(), use_bin_type=True), raw=False)
        assert decode_payload(wire) == p
        kinds.add(p.KIND)
    assert kinds == {"shuffle", "rekey", "keys", "seed"}


def test_transcript_and_config_round_trip() -> None:
    transcript = played_table().parties[1].transcript()
    wire = msgpack.unpackb(msgpack.packb(transcript.to_wire(), use_bin_type=True), raw=False)
    assert HandTranscript.from_wire(wire) == transcript
    assert HandConfig.from_wire(transcript.config.to_wire()).digest == transcript.config.digest


def _mutations(wire: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for key, value in wire.items():
        for bad in (None, True, -1, 2**40, "x", b"", b"\x00" * 33, [1], {"a": 1}):
            if bad != value:
                out.append({**wire, key: bad})
        if isinstance(value, bytes) and value:
            out.append({**wire, key: value[:-1]})
            out.append({**wire, key: value[:31] + bytes([value[31] | 0x80]) + value[32:]})
        out.append({k: v for k, v in wire.items() if k != key})
    out.append({**wire, "extra": 1})
    return out


def test_mutated_payloads_are_malformed_or_decode() -> None:
    for p in payloads():
        for bad in _mutations(p.to_wire()):
            try:
                decoded = decode_payload(bad)
            except MalformedMessage:
                continue
            assert decoded.to_wire() == bad  # only harmless changes (e.g. another seq) decode


def test_mutated_reveals() -> None:
    reveal = Reveal("marriage", 3, Scalar(5), card=2, partner=4).to_wire()
    for bad in _mutations(reveal):
        try:
            decoded = Reveal.from_wire(bad)
        except MalformedMessage:
            continue
        assert decoded.to_wire() == bad


wire_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.binary(max_size=70),
        st.text(max_size=10),
        st.sampled_from(["shuffle", "rekey", "keys", "seed", "to", "play", "public"]),
    ),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)
header = st.fixed_dictionaries(
    {
        "t": st.sampled_from(["shuffle", "rekey", "keys", "seed"]),
        "hand": st.integers(-1, 3),
        "seat": st.integers(-1, 9),
        "seq": st.integers(-1, 3),
    }
)


@settings(max_examples=300)
@given(
    st.one_of(
        wire_values,
        st.builds(
            lambda h, extra: {**extra, **h},
            header,
            st.dictionaries(
                st.sampled_from(
                    ["config", "commit", "lock", "deck", "keys", "proof", "reveals", "seed"]
                ),
                wire_values,
            ),
        ),
    )
)
def test_decoder_fuzz(obj: object) -> None:
    with contextlib.suppress(MalformedMessage):
        decode_payload(obj)


@settings(max_examples=200)
@given(wire_values)
def test_config_and_transcript_fuzz(obj: object) -> None:
    for decoder in (HandConfig.from_wire, HandTranscript.from_wire):
        with contextlib.suppress(MalformedMessage):
            decoder(obj)


def test_reveal_fields_follow_the_kind() -> None:
    with pytest.raises(MalformedMessage, match="needs 'to'"):
        Reveal("to", 1, Scalar(1))
    with pytest.raises(MalformedMessage, match="needs 'card'"):
        Reveal("play", 1, Scalar(1))
    with pytest.raises(MalformedMessage, match="takes no 'card'"):
        Reveal("public", 1, Scalar(1), card=3)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"session_id": b"short"}, "session_id"),
        ({"parties": 1}, "parties"),
        ({"order": (0, 0)}, "order"),
        ({"deck": (0, 0, *range(2, 24))}, "repeat"),
        ({"soundness": 129}, "soundness"),
        ({"deal": (0,) * 24}, "face_up"),
        ({"face_up": None}, "exchange_rank"),
        ({"deal": (5,) * 24}, "deal"),
    ],
)
def test_bad_configs(change: dict[str, Any], message: str) -> None:
    base = game_config(0).to_wire()
    fields = {
        "session_id": base["session"],
        "hand": 0,
        "parties": 2,
        "order": (0, 1),
        "deck": tuple(range(24)),
        "deal": tuple(base["deal"]),
        "soundness": 0,
        "face_up": base["face_up"],
        "exchange_rank": base["exchange_rank"],
    }
    with pytest.raises(InvalidConfig, match=message):
        HandConfig(**{**fields, **change})


def test_config_digest_covers_every_field() -> None:
    base = game_config(0)
    others = [
        game_config(1),
        game_config(0, dealer=1),
        game_config(0, hand=1),
        game_config(0, game="schnapsen"),
        HandConfig.for_game(preset("sixty-six"), bytes(32), 0, 0, 0),
        HandConfig.for_game(preset("vu"), SESSION, 0, 0, 0),
    ]
    assert len({base.digest, *(c.digest for c in others)}) == 7
