"""Helpers of the live tests: a scripted stand-in for SecureChannel, a TCP link one can cut,
a two-player match over loopback TCP."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from p2p66.engine import RuleOptions, preset
from p2p66.live.game import LiveGame, LiveGameError, cancel_quietly
from p2p66.live.loopback import seeded_rng, signer_of
from p2p66.net import Identity, Listener, join
from p2p66.net.channel import ChannelConfig
from p2p66.session.peer import Peer


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


@dataclass
class LoopbackMatch:
    """Alice hosts a sixty-six match (no proofs, seeded), Bob joins over loopback TCP."""

    listener: Listener
    host: Peer
    guest: Peer
    options: RuleOptions
    bob: Identity
    config: ChannelConfig

    @classmethod
    async def open(cls, seed: int, config: ChannelConfig) -> LoopbackMatch:
        alice, bob = Identity.from_seed("alice", b"a" * 32), Identity.from_seed("bob", b"b" * 32)
        listener = await Listener.open(
            alice, words=("fox", "lamp", "river"), bind="127.0.0.1", port=0, config=config
        )
        options = preset("sixty-six")
        host = Peer(0, signer_of(alice), options=options, soundness=0, rng=seeded_rng(seed, 0))
        guest = Peer(1, signer_of(bob), rng=seeded_rng(seed, 1))
        return cls(listener, host, guest, options, bob, config)

    async def until_the_host_stops(
        self, host_game: LiveGame, guest_game: LiveGame, *, quiet_guest: bool = False
    ) -> LiveGameError:
        """Run both games; the ``LiveGameError`` that stopped the host (AssertionError if
        none did). ``quiet_guest``: the guest's own error is expected and not raised."""

        async def guest() -> None:
            channel = await join(self.listener.join_code("127.0.0.1"), self.bob, config=self.config)
            try:
                await guest_game.run(channel)
            except LiveGameError:
                if not quiet_guest:
                    raise

        task = asyncio.create_task(guest())
        try:
            await host_game.run(await self.listener.accept(timeout=10))
        except LiveGameError as exc:
            return exc
        finally:
            if quiet_guest:
                await asyncio.wait_for(task, 10)
            await cancel_quietly(task)
            for game in (guest_game, host_game):
                if game.channel is not None:
                    await game.channel.aclose()
            self.listener.close()
        raise AssertionError("the host played on: nothing stopped it")
