"""Helpers of the live tests: a scripted stand-in for SecureChannel, a TCP link one can cut."""

from __future__ import annotations

import asyncio


class FakeChannel:
    def __init__(self, incoming: list[bytes]) -> None:
        self.incoming = list(incoming)
        self.sent: list[bytes] = []
        self.latency = None

    async def send(self, data: bytes) -> None:
        self.sent.append(data)

    async def recv(self) -> bytes:
        return self.incoming.pop(0)

    def close(self, reason: str = "") -> None:
        pass


class CuttableProxy:
    """A TCP relay to the host that a test can cut, like a dropped network link."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.links: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.links += [writer, up_writer]

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.transport.abort()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    def cut(self) -> None:
        for link in self.links:
            link.transport.abort()
        self.links.clear()

    def close(self) -> None:
        self.cut()
        if self.server is not None:
            self.server.close()
