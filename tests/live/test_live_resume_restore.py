"""A peer restored from its replay and its stored draws is the peer that was killed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "session"))
from sessionkit import random_chooser, rng_from, signer

from p2p66.engine import preset
from p2p66.live.resume import ResumeError, SecretStore, restore
from p2p66.session.pair import run_pair
from p2p66.session.peer import Peer

OPTIONS = preset("sixty-six").with_options(match_target=2)


def _peer(seat: int, store: SecretStore) -> Peer:
    name, byte = ("alice", 1) if seat == 0 else ("bob", 2)
    options = OPTIONS if seat == 0 else None
    policy = None if seat == 1 else (lambda o, s: None)
    return Peer(seat, signer(name, byte), options=options, soundness=0, rules_policy=policy,
                rng=store.rng(rng_from(seat + 5)))  # fmt: skip


def _match() -> tuple[list[SecretStore], list[object]]:
    stores = [SecretStore("host"), SecretStore("join")]  # not armed: nothing is written
    peers = (_peer(0, stores[0]), _peer(1, stores[1]))
    peers[1].rules_policy = lambda o, s: None
    result = run_pair(peers, (random_chooser(3), random_chooser(4)))
    assert peers[0].machine.over
    return stores, list(result.records[0])


@pytest.mark.parametrize("seat", [0, 1])
def test_restored_peer_continues_exactly_where_the_killed_one_was(seat: int) -> None:
    stores, records = _match()
    for cut in range(1, len(records), 9):
        peer = _peer(seat, SecretStore(stores[seat].role, stores[seat].draws))
        if seat == 1:
            peer.rules_policy = lambda o, s: None
        restore(peer, records[:cut])
        queued = peer.data_to_send()  # what it had made but not yet kept: the next records
        assert queued == records[cut : cut + len(queued)]
        assert all(r.author == seat for r in queued)
        assert peer.machine.chain.head == records[cut + len(queued) - 1].digest


def test_other_secrets_are_refused_not_taken_for_a_cheat() -> None:
    stores, records = _match()
    wrong = SecretStore("host", [bytes(32), *stores[0].draws[1:]])  # another coin nonce
    with pytest.raises(ResumeError, match="not what our stored secrets make"):
        restore(_peer(0, wrong), records[:20])
