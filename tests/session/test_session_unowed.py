"""A key nobody is owed is a cheat by its sender, refused at the record that carries it.

Each cheat is a correctly signed and chained record whose reveals go beyond
what the rules call for at that point: the victim's machine must refuse that
very record naming the sender (not accept it and later trip over its own
honest message), and the verifier must say the same of the file.
"""

from __future__ import annotations

import dataclasses

import pytest
from sessionkit import forge, make_pair, shuttle_until

from p2p66.crypto.config import FACE_DOWN
from p2p66.crypto.group import Scalar
from p2p66.crypto.messages import KeyReveal, Reveal, decode_payload
from p2p66.engine import preset
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_records
from p2p66.session import messages as msg
from p2p66.session.errors import CheatingDetected
from p2p66.session.peer import Peer
from p2p66.session.records import Record


def at_first_move() -> tuple[Peer, Peer]:
    """(the peer to move, the other) once the first hand is dealt."""
    peers = make_pair(preset("sixty-six"), seed=3)
    for p in peers:
        p.start()
    shuttle_until(peers, lambda: peers[0].needs_move or peers[1].needs_move)
    return (peers[0], peers[1]) if peers[0].needs_move else (peers[1], peers[0])


def talon_position(peer: Peer) -> int:
    assert peer.party is not None
    deal = peer.party.config.deal
    return max(j for j, target in enumerate(deal) if target == FACE_DOWN)


def key(peer: Peer, pos: int) -> Scalar:
    assert peer.party is not None
    return peer.party.secrets.keys[pos]


def move_with_extra(mover: Peer, victim: Peer, extra: Reveal) -> Record:
    """The mover's honest first move, with one more reveal appended to its keys."""
    hand = mover.machine.hand
    assert hand is not None and mover.party is not None
    view = mover.view()
    assert view is not None
    card = next(m for m in view.legal if m.code < 24)
    reveals = (*mover._reveals_for(card.code), extra)
    payload = KeyReveal(hand.number, mover.seat, mover.party.state.next_seq(mover.seat), reveals)
    move = msg.Move(hand.number, card.notation, {"payload": payload.to_wire()})
    return forge(victim.machine, mover.seat, move, mover.seat + 1)


def refused_naming(victim: Peer, record: Record, culprit: int) -> None:
    before = list(victim.machine.records)
    with pytest.raises(CheatingDetected, match="do not call for") as info:
        victim.receive_data(record.encode())
    assert info.value.culprit == culprit
    report = verify_records([*before, record]).report
    assert report.status is Status.INVALID
    assert report.problem is not None
    assert report.problem.culprit == culprit
    assert report.problem.record == len(before)
    assert report.problem.kind == "extra-key"


def test_a_public_key_for_a_talon_card_on_a_move_is_refused() -> None:
    mover, victim = at_first_move()
    pos = talon_position(mover)
    record = move_with_extra(mover, victim, Reveal("public", pos, key(mover, pos)))
    refused_naming(victim, record, mover.seat)


def test_opening_a_talon_card_to_the_other_before_it_is_drawn_is_refused() -> None:
    mover, victim = at_first_move()
    pos = talon_position(mover)
    extra = Reveal("to", pos, key(mover, pos), to=victim.seat)
    refused_naming(victim, move_with_extra(mover, victim, extra), mover.seat)


def test_taking_the_face_up_trump_before_the_last_draw_is_refused() -> None:
    mover, victim = at_first_move()
    assert mover.party is not None
    face_up = mover.party.config.face_up
    assert face_up is not None
    record = move_with_extra(mover, victim, Reveal("take", face_up, key(mover, face_up)))
    refused_naming(victim, record, mover.seat)


def test_an_extra_talon_key_in_a_deal_flight_is_refused() -> None:
    peers = make_pair(preset("sixty-six"), seed=4)
    for p in peers:
        p.start()

    def keys_flight_pending() -> bool:
        return any(_deal_keys(r) is not None for p in peers for r in p._outbox)

    shuttle_until(peers, keys_flight_pending)
    sender = next(p for p in peers if any(_deal_keys(r) is not None for r in p._outbox))
    victim = peers[1 - sender.seat]
    for record in sender.data_to_send():
        found = _deal_keys(record)
        if found is None:
            victim.receive_data(record.encode())
            continue
        body, index, payload = found
        pos = talon_position(sender)
        extra = Reveal("to", pos, key(sender, pos), to=victim.seat)
        cheat = dataclasses.replace(payload, reveals=(*payload.reveals, extra))
        payloads = list(body.data["payloads"])
        payloads[index] = cheat.to_wire()
        forged = forge(
            victim.machine,
            sender.seat,
            msg.Deal(body.hand, {"payloads": payloads}),
            sender.seat + 1,
        )
        refused_naming(victim, forged, sender.seat)
        return
    pytest.fail("no deal flight with keys was sent")


def _deal_keys(record: Record) -> tuple[msg.Deal, int, KeyReveal] | None:
    body = msg.decode(record.body)
    if not isinstance(body, msg.Deal):
        return None
    for i, wire in enumerate(body.data["payloads"]):
        payload = decode_payload(wire)
        if isinstance(payload, KeyReveal):
            return body, i, payload
    return None
