"""Length-prefixed frames: a 4-byte big-endian length, then that many bytes.

The cap (64 KiB of payload) is checked as soon as a header arrives, so a peer
can never make us buffer more than one frame. ``FrameDecoder`` is sans-IO in
the h11 manner: ``feed`` bytes as they come, pull frames with ``next_frame``,
call ``eof`` when the stream ends. Whatever arrives, it yields frames or raises
``FrameTooLarge`` / ``MalformedFrame`` (both blame the remote), nothing else.
"""

from __future__ import annotations

from typing import Final

from p2p66.net.errors import FrameTooLarge, MalformedFrame, PayloadTooLarge

HEADER_SIZE: Final = 4
MAX_PAYLOAD: Final = 64 * 1024


def encode_frame(payload: bytes) -> bytes:
    """Prefix ``payload`` with its length; an empty or over-cap payload is our own bug."""
    if not payload:
        raise PayloadTooLarge("refusing to send an empty frame: every message has a body")
    if len(payload) > MAX_PAYLOAD:
        raise PayloadTooLarge(
            f"a frame carries at most {MAX_PAYLOAD} bytes, this payload has {len(payload)}"
        )
    return len(payload).to_bytes(HEADER_SIZE, "big") + payload


class FrameDecoder:
    """Turns a byte stream from the peer into frames, or into the peer's protocol error."""

    def __init__(self, max_payload: int = MAX_PAYLOAD) -> None:
        self._buffer = bytearray()
        self._max_payload = max_payload
        self._broken: MalformedFrame | FrameTooLarge | None = None

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned as a frame."""
        return len(self._buffer)

    def feed(self, data: bytes) -> None:
        """Append bytes received from the peer."""
        self._buffer += data

    def next_frame(self) -> bytes | None:
        """Return the next complete frame, or ``None`` until more bytes arrive."""
        if self._broken is not None:
            raise self._broken
        if len(self._buffer) < HEADER_SIZE:
            return None
        length = int.from_bytes(self._buffer[:HEADER_SIZE], "big")
        if length > self._max_payload:
            self._broken = FrameTooLarge(
                f"the peer announced a {length}-byte frame; the limit is {self._max_payload} "
                "(is it speaking p2p66 at all?)"
            )
            raise self._broken
        if length == 0:
            self._broken = MalformedFrame("the peer sent an empty frame; no message is empty")
            raise self._broken
        end = HEADER_SIZE + length
        if len(self._buffer) < end:
            return None
        frame = bytes(self._buffer[HEADER_SIZE:end])
        del self._buffer[:end]
        return frame

    def frames(self, data: bytes) -> list[bytes]:
        """Feed ``data`` and return every frame it completes (convenience for tests)."""
        self.feed(data)
        out: list[bytes] = []
        while (frame := self.next_frame()) is not None:
            out.append(frame)
        return out

    def eof(self) -> None:
        """The stream ended: fine between frames, the peer's fault in the middle of one."""
        if self._buffer:
            raise MalformedFrame(
                f"the connection ended in the middle of a frame ({len(self._buffer)} bytes "
                "of it had arrived)"
            )
