"""Helpers of the transport tests: fixed identities, a tampering relay, feature probes."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

from p2p66.net.channel import DEFAULT_CONFIG, ChannelConfig, SecureChannel
from p2p66.net.framing import FrameDecoder, encode_frame
from p2p66.net.handshake import CodeSlot, host_handshake, join_handshake
from p2p66.net.identity import Identity
from p2p66.net.streams import FrameConnection, MemoryStream, memory_stream_pair

ALICE_SEED = bytes(range(32))
BOB_SEED = bytes(range(32, 64))
MALLORY_SEED = bytes(range(64, 96))
WORDS = ("fox", "lamp", "river")
OTHER_WORDS = ("fox", "lamp", "raven")


def ipv6_loopback_available() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


Mutator = Callable[[int, bytes], list[bytes]]


class Relay:
    """A man in the middle between two memory streams that can rewrite the joiner's frames.

    Until ``armed`` it forwards everything; afterwards ``mutate(index, frame)``
    (``index`` counts frames since arming) returns the frames to forward
    instead, so a test can drop, duplicate, reorder, alter or inject them.
    """

    def __init__(self, mutate: Mutator) -> None:
        self.mutate = mutate
        self.armed = False
        self.count = 0
        self.tasks: list[asyncio.Task[None]] = []

    async def pump(self, src: MemoryStream, dst: MemoryStream, rewrite: bool) -> None:
        decoder = FrameDecoder()
        while data := await src.read(65536):
            decoder.feed(data)
            while (frame := decoder.next_frame()) is not None:
                out = [frame]
                if rewrite and self.armed:
                    out = self.mutate(self.count, frame)
                    self.count += 1
                for item in out:
                    dst.write(encode_frame(item))
        dst.close()


async def relayed_pair(
    alice: Identity,
    bob: Identity,
    mutate: Mutator,
    config: ChannelConfig = DEFAULT_CONFIG,
) -> tuple[SecureChannel, SecureChannel, Relay, MemoryStream]:
    """(host channel, joiner channel, relay, the relay's stream towards the host)."""
    host_end, relay_to_host = memory_stream_pair()
    joiner_end, relay_to_joiner = memory_stream_pair()
    relay = Relay(mutate)
    loop = asyncio.get_running_loop()
    relay.tasks = [
        loop.create_task(relay.pump(relay_to_joiner, relay_to_host, rewrite=True)),
        loop.create_task(relay.pump(relay_to_host, relay_to_joiner, rewrite=False)),
    ]
    host_channel, joiner_channel = await asyncio.gather(
        host_handshake(
            FrameConnection(host_end),
            alice,
            slot=CodeSlot(WORDS),
            known_peers=None,
            config=config,
        ),
        join_handshake(
            FrameConnection(joiner_end),
            bob,
            words=WORDS,
            known_peers=None,
            config=config,
        ),
    )
    relay.armed = True
    return host_channel, joiner_channel, relay, relay_to_host
