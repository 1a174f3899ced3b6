"""Length-prefixed framing: round trips, limits, and the fuzz invariant."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.net.errors import FrameTooLarge, MalformedFrame, PayloadTooLarge, RemoteTransportError
from p2p66.net.framing import HEADER_SIZE, MAX_PAYLOAD, FrameDecoder, encode_frame

payloads = st.lists(st.binary(min_size=1, max_size=300), max_size=8)


def test_encode_puts_big_endian_length_first() -> None:
    assert encode_frame(b"abc") == b"\x00\x00\x00\x03abc"


def test_largest_frame_round_trips() -> None:
    payload = bytes(range(256)) * (MAX_PAYLOAD // 256)
    assert FrameDecoder().frames(encode_frame(payload)) == [payload]


def test_encoding_too_much_or_nothing_is_our_fault() -> None:
    with pytest.raises(PayloadTooLarge, match="at most 65536"):
        encode_frame(bytes(MAX_PAYLOAD + 1))
    with pytest.raises(PayloadTooLarge, match="empty"):
        encode_frame(b"")


def test_oversized_header_is_rejected_before_the_body_arrives() -> None:
    decoder = FrameDecoder()
    decoder.feed((MAX_PAYLOAD + 1).to_bytes(4, "big"))
    with pytest.raises(FrameTooLarge, match="65537-byte frame") as info:
        decoder.next_frame()
    assert info.value.culprit == "remote"
    with pytest.raises(FrameTooLarge):  # stays broken
        decoder.next_frame()


def test_http_request_is_reported_as_oversized_frame() -> None:
    with pytest.raises(FrameTooLarge, match="speaking p2p66"):
        FrameDecoder().frames(b"GET / HTTP/1.1\r\n\r\n")


def test_empty_frame_is_malformed() -> None:
    with pytest.raises(MalformedFrame, match="empty frame"):
        FrameDecoder().frames(b"\x00\x00\x00\x00")


def test_eof_inside_a_frame_is_malformed_but_between_frames_is_fine() -> None:
    decoder = FrameDecoder()
    assert decoder.frames(encode_frame(b"one")) == [b"one"]
    decoder.eof()
    decoder.feed(encode_frame(b"two")[:-1])
    assert decoder.next_frame() is None
    with pytest.raises(MalformedFrame, match="middle of a frame"):
        decoder.eof()


def test_frames_before_a_bad_header_are_still_delivered() -> None:
    decoder = FrameDecoder()
    decoder.feed(encode_frame(b"good") + b"\xff\xff\xff\xff")
    assert decoder.next_frame() == b"good"
    with pytest.raises(FrameTooLarge):
        decoder.next_frame()


@settings(derandomize=True)
@given(payloads, st.lists(st.integers(min_value=1, max_value=50), min_size=1))
def test_any_split_of_the_stream_gives_the_same_frames(
    frames: list[bytes], cuts: list[int]
) -> None:
    stream = b"".join(encode_frame(f) for f in frames)
    decoder = FrameDecoder()
    out: list[bytes] = []
    position, i = 0, 0
    while position < len(stream):
        step = cuts[i % len(cuts)]
        out += decoder.frames(stream[position : position + step])
        position += step
        i += 1
    decoder.eof()
    assert out == frames
    assert decoder.buffered == 0


@settings(max_examples=300, derandomize=True)
@given(st.lists(st.binary(max_size=64), max_size=10), st.integers(min_value=1, max_value=100))
def test_fuzz_garbage_gives_frames_or_our_error(chunks: list[bytes], limit: int) -> None:
    decoder = FrameDecoder(max_payload=limit)
    try:
        for chunk in chunks:
            for frame in decoder.frames(chunk):
                assert 1 <= len(frame) <= limit
        decoder.eof()
    except RemoteTransportError as exc:
        assert isinstance(exc, FrameTooLarge | MalformedFrame)
    assert decoder.buffered <= HEADER_SIZE + limit + 64
