"""A stand-in for SecureChannel: scripted incoming messages, recorded outgoing ones."""

from __future__ import annotations


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
