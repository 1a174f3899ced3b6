"""Two connected channels in one process, for tests of everything above the network.

``memory_channel_pair`` runs the real join-code handshake over an in-memory
byte pipe, so the channels it returns frame, encrypt, heartbeat and fail
exactly like TCP ones; only the sockets are missing.
"""

from __future__ import annotations

import asyncio

from p2p66.net.channel import DEFAULT_CONFIG, ChannelConfig, SecureChannel
from p2p66.net.handshake import CodeSlot, host_handshake, join_handshake
from p2p66.net.identity import Identity, KnownPeers
from p2p66.net.joincode import generate_words
from p2p66.net.streams import FrameConnection, memory_stream_pair


async def memory_channel_pair(
    host: Identity | None = None,
    joiner: Identity | None = None,
    *,
    host_peers: KnownPeers | None = None,
    joiner_peers: KnownPeers | None = None,
    config: ChannelConfig = DEFAULT_CONFIG,
    joiner_config: ChannelConfig | None = None,
) -> tuple[SecureChannel, SecureChannel]:
    """``(host_channel, joiner_channel)``, connected and authenticated, in this process.

    Identities default to fresh ones named "host" and "joiner"; pass
    ``KnownPeers`` to exercise pinning too; ``joiner_config`` (default: ``config``)
    lets the two ends differ, e.g. only one of them watching for silence.
    """
    host_id = host if host is not None else Identity.generate("host")
    joiner_id = joiner if joiner is not None else Identity.generate("joiner")
    host_end, joiner_end = memory_stream_pair()
    words = generate_words()
    async with asyncio.TaskGroup() as group:
        host_task = group.create_task(
            host_handshake(
                FrameConnection(host_end),
                host_id,
                slot=CodeSlot(words),
                known_peers=host_peers,
                config=config,
            )
        )
        joiner_task = group.create_task(
            join_handshake(
                FrameConnection(joiner_end),
                joiner_id,
                words=words,
                known_peers=joiner_peers,
                config=joiner_config or config,
            )
        )
    return host_task.result(), joiner_task.result()
