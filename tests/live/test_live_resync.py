"""Resynchronisation after a reconnect: resend what is missing, refuse diverged chains."""

from __future__ import annotations

import asyncio

import msgpack
import pytest
from livekit import FakeChannel

from p2p66.engine import PlayerView, preset
from p2p66.live.game import LiveGame, LiveGameError
from p2p66.net.errors import NotThisMatch
from p2p66.session.peer import Peer, Signer
from p2p66.session.records import GENESIS, make_record


def _game(records: int) -> LiveGame:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.from_private_bytes(b"k" * 32)
    signer = Signer("k", key.public_key().public_bytes_raw(), key.sign)

    async def never(view: PlayerView) -> int:
        raise AssertionError

    game = LiveGame(Peer(0, signer, options=preset("sixty-six")), never)
    prev = GENESIS
    for i in range(records):
        record = make_record(i, prev, 0, f"r{i}".encode(), key.sign)
        game.records.append(record)
        prev = record.digest
    return game


def test_the_side_with_more_records_resends_them() -> None:
    game = _game(5)
    head = game.records[2].digest
    channel = FakeChannel([msgpack.packb({"t": "resume", "have": 3, "head": head})])
    game.channel = channel  # type: ignore[assignment]
    asyncio.run(game._resync())
    sent = [msgpack.unpackb(m) for m in channel.sent]
    assert sent[0] == {"t": "resume", "have": 5, "head": game.records[-1].digest}
    assert channel.sent[1:] == [r.encode() for r in game.records[3:]]


def test_diverged_chains_end_the_match() -> None:
    game = _game(4)
    channel = FakeChannel([msgpack.packb({"t": "resume", "have": 2, "head": b"x" * 32})])
    game.channel = channel  # type: ignore[assignment]
    with pytest.raises(LiveGameError) as info:
        asyncio.run(game._resync())
    assert info.value.kind == "diverged"


def test_garbage_instead_of_resume() -> None:
    """Not the process of this match (e.g. one restarted without --resume): refused, and
    ``_resume`` goes on waiting (NotThisMatch is a transport error it waits past)."""
    game = _game(1)
    game.channel = FakeChannel([b"\x00\x01"])  # type: ignore[assignment]
    with pytest.raises(NotThisMatch, match="did not resynchronise"):
        asyncio.run(game._resync())
