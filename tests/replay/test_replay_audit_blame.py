"""An audit finding names the cheater whichever player reveals its seed second.

Two peers over the in-memory pair, one of them a cheating client whose
cheat only the end-of-hand audit can see (proofs off, or a revoke behind
hidden cards). When the honest player reveals second, its own seed record
completes the audit: it must be kept (in its chain and outbox, to be sent
and written), the honest side must raise ``CheatingDetected`` naming the
cheater (not ``LocalProtocolError``), and the file must verify INVALID
naming the cheater. Each cheat is played under several seeds until both
reveal orders have been seen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from replaykit import load_generator

from p2p66.crypto.config import FACE_DOWN, HandConfig
from p2p66.crypto.group import Point, double, hash_to_point
from p2p66.crypto.handkeys import new_seed
from p2p66.crypto.messages import ShuffleStep
from p2p66.crypto.party import DealParty
from p2p66.engine import PlayerView, RuleOptions, preset
from p2p66.engine.moves import CLOSE
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_records
from p2p66.session.errors import AuditFinding, CheatingDetected, LocalProtocolError, ProtocolError
from p2p66.session.peer import Peer

gen = load_generator()
DeckEdit = Callable[[list[Point], HandConfig], list[Point]]
Chooser = Callable[[PlayerView], int]


def last_talon(config: HandConfig) -> int:
    """A talon position nobody opens once the talon is closed."""
    return max(j for j, t in enumerate(config.deal) if t == FACE_DOWN)


def swap(deck: list[Point], config: HandConfig) -> list[Point]:
    """A valid shuffle, but not the one the committed seed gives."""
    return [deck[1], deck[0], *deck[2:]]


def plant(deck: list[Point], config: HandConfig) -> list[Point]:
    """Twice a card's point, at a talon position nobody opens once the talon is closed."""
    talon = last_talon(config)
    return [*deck[:talon], Point(double(deck[0])), *deck[talon + 1 :]]


def made_up_at(position: Callable[[HandConfig], int | None]) -> DeckEdit:
    def edit(deck: list[Point], config: HandConfig) -> list[Point]:
        j = position(config)
        assert j is not None
        return [*deck[:j], hash_to_point(b"\x07" * 64), *deck[j + 1 :]]

    return edit


def deck_cheater(edit: DeckEdit) -> type[Peer]:
    """A peer whose shuffle, when it shuffles last, is edited (proofs off: nobody can tell)."""

    class Party(DealParty):
        def _make_shuffle(self) -> ShuffleStep:
            honest = super()._make_shuffle()
            if self.config.order[-1] != self.seat:
                return honest
            return dataclasses.replace(honest, deck=tuple(edit(list(honest.deck), self.config)))

    class Cheater(gen.RecordingPeer):  # type: ignore[misc, name-defined]
        def begin_hand(self, config: Any) -> None:
            self.party = Party(config, self.seat, new_seed(self.rng))
            self._replies = []

    return Cheater


def closer(view: PlayerView) -> int:
    """Closes the talon at once (so its cards are never opened), then plays the first card."""
    codes = [m.code for m in view.legal]
    return CLOSE if CLOSE in codes else codes[0]


def honest_bot(seed: int) -> Chooser:
    return gen.bot(gen.Policy(), seed)  # type: ignore[no-any-return]


def play(
    options: RuleOptions, seed: int, cheater: int, cls: type[Peer], choosers: tuple[Chooser, ...]
) -> tuple[Peer, ProtocolError] | None:
    """Play until someone raises; the cheating client sends its seed even if its own
    machine refuses it. Returns (the honest peer, what it raised), or None if no cheat."""
    classes = [gen.RecordingPeer, gen.RecordingPeer]
    classes[cheater] = cls
    peers = (
        classes[0](0, gen.signer(0), options=options, soundness=0, rng=gen.rng(seed)),
        classes[1](1, gen.signer(1), soundness=0, rng=gen.rng(seed + 1)),
    )
    honest = peers[1 - cheater]
    for peer in peers:
        peer.start()
    for _ in range(10_000):
        moved = False
        for seat in (0, 1):
            for record in peers[seat].data_to_send():
                try:
                    peers[1 - seat].receive_data(record.encode())
                except LocalProtocolError:
                    assert seat == 1 - cheater, "the honest side refused its own record"
                    made = peers[cheater].last_made
                    with pytest.raises(ProtocolError) as info:
                        honest.receive_data(made.encode())
                    return honest, info.value
                except ProtocolError as exc:
                    assert peers[1 - seat] is honest, exc
                    return honest, exc
                moved = True
        if peers[0].machine.over and peers[1].machine.over:
            return None
        for peer in peers:
            if peer.needs_move:
                view = peer.view()
                assert view is not None
                try:
                    peer.play(choosers[peer.seat](view))
                except LocalProtocolError:
                    assert peer is not honest
                    return None  # a revoke anyone can see: not a cheat for the audit
                except ProtocolError as exc:
                    assert peer is honest, exc
                    return honest, exc
                moved = True
                break
        if not moved:
            return None
    return None


CHEATS: dict[str, tuple[str, Callable[[int], tuple[Any, ...]]]] = {
    "shuffle-not-from-seed": (
        "shuffle-not-from-seed",
        lambda s: (deck_cheater(swap), (honest_bot(s), honest_bot(s + 1))),
    ),
    "planted-point": ("planted-point", lambda s: (deck_cheater(plant), (closer, closer))),
    "made-up-card": (
        "made-up-card",
        lambda s: (deck_cheater(made_up_at(last_talon)), (closer, closer)),
    ),
}


def check(honest: Peer, exc: ProtocolError, cheater: int, kind: str) -> bool:
    """The finding names the cheater, on both sides of the file; True if honest was second."""
    assert isinstance(exc, AuditFinding), exc
    assert exc.culprit == cheater, exc
    records = honest.machine.records
    honest_second = records[-1].author == honest.seat
    if honest_second:
        assert honest.data_to_send() == [records[-1]]  # kept, to be sent and written
    report = verify_records(records).report
    assert report.status is Status.INVALID
    assert report.problem is not None
    assert report.problem.culprit == cheater
    assert report.problem.kind == kind
    assert report.problem.detected_at == len(records) - 1
    assert f"player {cheater}" in report.problem.message
    return honest_second


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_a_deck_cheat_found_by_the_audit_names_the_cheater_in_either_order(cheat: str) -> None:
    kind, make = CHEATS[cheat]
    options = preset("sixty-six").with_options(match_target=3)
    orders = set()
    for seed in range(12):
        cheater = seed % 2
        cls, choosers = make(seed)
        found = play(options, seed, cheater, cls, choosers)
        assert found is not None, f"seed {seed}: the cheat went unnoticed"
        orders.add(check(*found, cheater, kind))
        if orders == {True, False}:
            return
    pytest.fail(f"only these orders were seen: {orders}")


def test_a_revoke_found_by_the_audit_names_the_cheater_in_either_order() -> None:
    options = preset("sixty-six").with_options(match_target=1)
    orders = set()
    for seed in range(100, 140):
        choosers = (
            gen.bot(gen.EAGER, seed + 2),
            gen.revoking_bot(gen.Policy(close_at=20), seed + 3),
        )
        found = play(options, seed, 1, gen.Revoker, choosers)
        if found is None or not isinstance(found[1], AuditFinding):
            continue  # no chance to revoke, or one the honest side could see at once
        orders.add(check(*found, 1, "illegal-move"))
        if orders == {True, False}:
            return
    pytest.fail(f"only these orders were seen: {orders}")


def test_a_bad_card_seen_with_proofs_off_blames_nobody_until_the_audit() -> None:
    """The face-up card opens to no card: the honest dealer's own deal keys revealed it, but
    the bad step was the other's shuffle, which only the seeds can show: no culprit yet."""
    options = preset("sixty-six")
    for seed in range(2):
        cheater = seed % 2
        cls = deck_cheater(made_up_at(lambda config: config.face_up))
        found = play(options, seed, cheater, cls, (honest_bot(seed), honest_bot(seed + 1)))
        assert found is not None
        _, exc = found
        assert isinstance(exc, CheatingDetected) and not isinstance(exc, AuditFinding)
        assert exc.culprit is None, exc
        assert "only the audit" in str(exc)
