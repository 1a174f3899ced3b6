"""A peer that sends garbage, plays out of turn, plays illegally or fails a proof is named."""

from __future__ import annotations

import msgpack
import pytest
from sessionkit import forge, make_pair, shuttle_until

from p2p66.engine import preset
from p2p66.session import messages as msg
from p2p66.session.errors import CheatingDetected, RemoteProtocolError
from p2p66.session.peer import Peer
from p2p66.session.records import Record


def at_first_move(soundness: int = 0) -> tuple[Peer, Peer]:
    peers = make_pair(preset("sixty-six"), soundness=soundness)
    for p in peers:
        p.start()
    shuttle_until(peers, lambda: peers[0].needs_move or peers[1].needs_move)
    return peers


def mover_and_other(a: Peer, b: Peer) -> tuple[Peer, Peer]:
    """The peer whose move is due, and the other one."""
    return (a, b) if a.needs_move else (b, a)


def deliver(victim: Peer, record: Record) -> None:
    victim.receive_data(record.encode())


def test_garbage_record_is_a_remote_protocol_error() -> None:
    a, _ = at_first_move()
    with pytest.raises(RemoteProtocolError, match="malformed record") as info:
        a.receive_data(b"\x00garbage\xff")
    assert info.value.culprit == 1


def test_garbage_body_in_a_signed_record() -> None:
    a, b = at_first_move()
    victim, cheater = mover_and_other(a, b)
    record = forge(victim.machine, cheater.seat, b"\xc1\xc1", sign_byte=cheater.seat + 1)
    with pytest.raises(RemoteProtocolError, match="not msgpack") as info:
        deliver(victim, record)
    assert info.value.culprit == cheater.seat


def test_unknown_message_type() -> None:
    a, b = at_first_move()
    mover, victim = mover_and_other(a, b)
    body = msgpack.packb({"t": "teleport", "v": 1})
    record = forge(victim.machine, mover.seat, body, sign_byte=mover.seat + 1)
    with pytest.raises(RemoteProtocolError, match="unknown message type 'teleport'"):
        deliver(victim, record)


def test_out_of_turn_move() -> None:
    a, b = at_first_move()
    victim, waiting = mover_and_other(a, b)
    hand = victim.machine.hand
    assert hand is not None
    move = msg.Move(hand.number, "play:AS", {})
    record = forge(victim.machine, waiting.seat, move, sign_byte=waiting.seat + 1)
    with pytest.raises(CheatingDetected, match="out of turn") as info:
        deliver(victim, record)
    assert info.value.culprit == waiting.seat


def test_illegal_move_declare_before_any_trick() -> None:
    a, b = at_first_move()
    mover, victim = mover_and_other(a, b)
    hand = victim.machine.hand
    assert hand is not None
    record = forge(victim.machine, mover.seat, msg.Move(hand.number, "declare", {}), mover.seat + 1)
    with pytest.raises(CheatingDetected, match="illegal move") as info:
        deliver(victim, record)
    assert info.value.culprit == mover.seat


def test_playing_a_card_without_opening_it() -> None:
    a, b = at_first_move()
    mover, victim = mover_and_other(a, b)
    hand = victim.machine.hand
    assert hand is not None and mover.party is not None
    card = next(iter(mover.party.hand().values()))
    from p2p66.engine.cards import CARD_CODES

    move = msg.Move(hand.number, f"play:{CARD_CODES[card]}", {})
    record = forge(victim.machine, mover.seat, move, mover.seat + 1)
    with pytest.raises(CheatingDetected, match="without the play key"):
        deliver(victim, record)


def test_forged_signature() -> None:
    a, b = at_first_move()
    mover, victim = mover_and_other(a, b)
    hand = victim.machine.hand
    assert hand is not None
    record = forge(victim.machine, mover.seat, msg.Move(hand.number, "play:AS", {}), sign_byte=99)
    with pytest.raises(CheatingDetected, match="not signed"):
        deliver(victim, record)


def test_replayed_record() -> None:
    a, _ = at_first_move()
    old = next(r for r in reversed(a.machine.records) if r.author != a.seat)
    with pytest.raises(CheatingDetected, match="out of order"):
        a.receive_data(old.encode())


def test_failed_shuffle_proof() -> None:
    host, joiner = make_pair(preset("sixty-six"), soundness=16)
    host.start()
    joiner.start()
    shuttle_until(
        (host, joiner),
        lambda: any(msg.decode(r.body).TYPE == "deal" for r in host._outbox + joiner._outbox),
    )
    sender = host if any(msg.decode(r.body).TYPE == "deal" for r in host._outbox) else joiner
    victim = joiner if sender is host else host
    for record in sender.data_to_send():
        body = msg.decode(record.body)
        if isinstance(body, msg.Deal):
            payloads = body.data["payloads"]
            proof = bytearray(payloads[0]["proof"])
            proof[10] ^= 0xFF
            payloads[0]["proof"] = bytes(proof)
            deal = msg.Deal(body.hand, body.data)
            forged = forge(victim.machine, sender.seat, deal, sender.seat + 1)
            with pytest.raises(CheatingDetected) as info:
                deliver(victim, forged)
            assert info.value.culprit == sender.seat
            return
        deliver(victim, record)
    pytest.fail("no deal flight was sent")


def test_resign_ends_the_match_for_both() -> None:
    a, b = at_first_move()
    mover, other = mover_and_other(a, b)
    mover.resign("tired")
    for record in mover.data_to_send():
        deliver(other, record)
    assert mover.machine.over and other.machine.over
    assert other.machine.resigned == mover.seat and other.machine.resign_reason == "tired"
