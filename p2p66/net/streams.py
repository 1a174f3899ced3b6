"""Byte streams under the frames: TCP, an in-memory pipe, and the framed connection.

``ByteStream`` is the small surface the rest of the layer needs (the shape of
asyncio's reader/writer pair): a synchronous ``write`` so that a message is
queued atomically and frames never interleave, ``drain`` for back-pressure,
``read`` returning ``b""`` at end of stream. ``memory_stream_pair`` gives two
connected in-process streams, like trio's ``memory_stream_pair``, so channels
can be tested without sockets over exactly the same framing.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from p2p66.net.errors import ChannelClosed, ConnectionLost
from p2p66.net.framing import FrameDecoder, encode_frame

READ_CHUNK = 65536


class ByteStream(Protocol):
    """A reliable, ordered, bidirectional byte stream."""

    @property
    def remote(self) -> str:
        """A printable name of the other end, for error messages."""
        ...

    def write(self, data: bytes) -> None:
        """Queue ``data`` for sending (never blocks, never interleaves)."""
        ...

    async def drain(self) -> None:
        """Wait until the queued bytes are handed to the network."""
        ...

    async def read(self, max_bytes: int) -> bytes:
        """Return up to ``max_bytes`` received bytes; ``b""`` means the peer closed."""
        ...

    def close(self) -> None:
        """Close both directions; queued bytes are still delivered."""
        ...

    async def wait_closed(self) -> None:
        """Wait until the close has completed."""
        ...


class TcpStream:
    """``ByteStream`` over an asyncio TCP connection, with OS errors as ``ConnectionLost``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        peer = writer.get_extra_info("peername")
        self._remote = _format_peername(peer)

    @property
    def remote(self) -> str:
        return self._remote

    def write(self, data: bytes) -> None:
        if self._writer.is_closing():
            raise ConnectionLost(f"the connection to {self._remote} is already closed")
        self._writer.write(data)

    async def drain(self) -> None:
        try:
            await self._writer.drain()
        except OSError as exc:
            raise ConnectionLost(f"sending to {self._remote} failed: {exc}") from exc

    async def read(self, max_bytes: int) -> bytes:
        try:
            return await self._reader.read(max_bytes)
        except OSError as exc:
            raise ConnectionLost(f"receiving from {self._remote} failed: {exc}") from exc

    def close(self) -> None:
        self._writer.close()

    async def wait_closed(self) -> None:
        # A reset of an already finished connection leaves nothing to report.
        with contextlib.suppress(OSError):
            await self._writer.wait_closed()


def _format_peername(peer: object) -> str:
    if isinstance(peer, tuple) and len(peer) >= 2:
        host, port = peer[0], peer[1]
        return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"
    return str(peer)


class _Pipe:
    """One direction of an in-memory stream: a buffer, an EOF flag and a wake-up event."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.eof = False
        self.readable = asyncio.Event()

    def push(self, data: bytes) -> None:
        self.buffer += data
        self.readable.set()

    def finish(self) -> None:
        self.eof = True
        self.readable.set()


class MemoryStream:
    """One end of an in-process byte stream (see ``memory_stream_pair``)."""

    def __init__(self, incoming: _Pipe, outgoing: _Pipe, remote: str) -> None:
        self._incoming = incoming
        self._outgoing = outgoing
        self._remote = remote
        self._closed = False

    @property
    def remote(self) -> str:
        return self._remote

    def write(self, data: bytes) -> None:
        if self._closed:
            raise ChannelClosed("this memory stream was closed")
        if self._outgoing.eof:
            raise ConnectionLost(f"{self._remote} closed the memory stream")
        self._outgoing.push(data)

    async def drain(self) -> None:
        await asyncio.sleep(0)  # let the reader run, as a real drain would

    async def read(self, max_bytes: int) -> bytes:
        pipe = self._incoming
        while not pipe.buffer and not pipe.eof and not self._closed:
            pipe.readable.clear()
            await pipe.readable.wait()
        if self._closed:
            return b""
        data = bytes(pipe.buffer[:max_bytes])
        del pipe.buffer[:max_bytes]
        return data

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._outgoing.finish()
            self._incoming.finish()

    async def wait_closed(self) -> None:
        await asyncio.sleep(0)


def memory_stream_pair() -> tuple[MemoryStream, MemoryStream]:
    """Two connected in-memory byte streams: what one writes, the other reads."""
    a_to_b, b_to_a = _Pipe(), _Pipe()
    return MemoryStream(b_to_a, a_to_b, "memory-b"), MemoryStream(a_to_b, b_to_a, "memory-a")


class FrameConnection:
    """Frames over a ``ByteStream``: the unit that handshakes and channels exchange."""

    def __init__(self, stream: ByteStream) -> None:
        self.stream = stream
        self._decoder = FrameDecoder()

    @property
    def remote(self) -> str:
        return self.stream.remote

    def write_frame(self, payload: bytes) -> None:
        """Queue one frame; frames written from several tasks never interleave."""
        self.stream.write(encode_frame(payload))

    async def send_frame(self, payload: bytes) -> None:
        """Queue one frame and wait for back-pressure to clear."""
        self.write_frame(payload)
        await self.stream.drain()

    async def read_frame(self) -> bytes | None:
        """The next frame from the peer, or ``None`` if it closed between frames."""
        while (frame := self._decoder.next_frame()) is None:
            data = await self.stream.read(READ_CHUNK)
            if not data:
                self._decoder.eof()
                return None
            self._decoder.feed(data)
        return frame

    def close(self) -> None:
        self.stream.close()
