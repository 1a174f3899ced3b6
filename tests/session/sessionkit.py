"""Helpers for session tests: deterministic peers, random choosers and forged records."""

from __future__ import annotations

import random
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p66.engine import PlayerView, RuleOptions
from p2p66.session import messages as msg
from p2p66.session.machine import Machine
from p2p66.session.peer import Peer, Signer
from p2p66.session.records import Record, make_record


def signer(name: str, byte: int) -> Signer:
    key = Ed25519PrivateKey.from_private_bytes(bytes([byte]) * 32)
    return Signer(name, key.public_key().public_bytes_raw(), key.sign)


def rng_from(seed: int) -> Callable[[int], bytes]:
    r = random.Random(seed)
    return r.randbytes


def make_pair(options: RuleOptions, soundness: int = 0, seed: int = 1) -> tuple[Peer, Peer]:
    host = Peer(0, signer("alice", 1), options=options, soundness=soundness, rng=rng_from(seed))
    joiner = Peer(1, signer("bob", 2), rng=rng_from(seed + 100))
    return host, joiner


def random_chooser(seed: int) -> Callable[[PlayerView], int]:
    r = random.Random(seed)

    def choose(view: PlayerView) -> int:
        return r.choice(view.legal).code

    return choose


def forge(machine: Machine, author: int, message: msg.Message | bytes, sign_byte: int) -> Record:
    """A record by ``author`` that chains correctly onto ``machine`` (a cheater's record)."""
    body = message if isinstance(message, bytes) else msg.encode(message)
    key = Ed25519PrivateKey.from_private_bytes(bytes([sign_byte]) * 32)
    return make_record(machine.chain.next_seq, machine.chain.head, author, body, key.sign)


def shuttle_until(peers: tuple[Peer, Peer], done: Callable[[], bool], limit: int = 10_000) -> None:
    """Deliver records both ways (no moves) until ``done()`` or nothing moves."""
    for _ in range(limit):
        if done():
            return
        moved = False
        for seat in (0, 1):
            for record in peers[seat].data_to_send():
                peers[1 - seat].receive_data(record.encode())
                moved = True
        if not moved:
            return
