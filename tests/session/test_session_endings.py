"""Resignation at any time, resignations crossing a move, and claims of abandonment.

Two peers over the in-memory pair: a resignation is accepted from either
player whoever's turn it is; one that crosses the other's move on the wire
ends the match first (the crossing move is void on both sides, both chains
end with the resignation); a claim that the silent player abandoned the
match holds only when the chain shows it was that player's turn.
"""

from __future__ import annotations

import pytest
from sessionkit import forge, make_pair, shuttle_until

from p2p66.engine import preset
from p2p66.replay.report import Ending, Status
from p2p66.replay.verify import verify_records
from p2p66.session import events as ev
from p2p66.session import messages as msg
from p2p66.session.errors import CheatingDetected, LocalProtocolError
from p2p66.session.machine import Stage
from p2p66.session.peer import Peer


def at_first_move() -> tuple[Peer, Peer]:
    """(the peer to move, the one waiting) once the first hand is dealt."""
    peers = make_pair(preset("sixty-six"), seed=7)
    for p in peers:
        p.start()
    shuttle_until(peers, lambda: peers[0].needs_move or peers[1].needs_move)
    return (peers[0], peers[1]) if peers[0].needs_move else (peers[1], peers[0])


def deliver(sender: Peer, receiver: Peer) -> list[ev.Event]:
    events = []
    for record in sender.data_to_send():
        events.extend(receiver.receive_data(record.encode()))
    return events


def first_legal(peer: Peer) -> int:
    view = peer.view()
    assert view is not None
    return view.legal[0].code


def test_the_player_waiting_may_resign() -> None:
    mover, waiting = at_first_move()
    waiting.resign("got to go")
    events = deliver(waiting, mover)
    assert ev.Resigned(waiting.seat, "got to go") in events
    for p in (mover, waiting):
        assert p.machine.stage is Stage.RESIGNED and p.machine.resigned == waiting.seat
    assert mover.machine.records == waiting.machine.records
    report = verify_records(mover.machine.records).report
    assert report.status is Status.VALID and report.ending is Ending.RESIGNED
    assert report.winner == mover.seat
    assert "resigned (got to go)" in report.headline()


def test_a_resignation_that_crosses_a_move_voids_the_move_on_both_sides() -> None:
    mover, waiting = at_first_move()
    mover.play(first_legal(mover))  # on the wire ...
    waiting.resign("closing the lid")  # ... while this one is signed
    move_records = mover.data_to_send()
    resign_records = waiting.data_to_send()
    for record in move_records:  # the resigner ignores what crossed its resignation
        assert waiting.receive_data(record.encode()) == []
    events = []
    for record in resign_records:
        events.extend(mover.receive_data(record.encode()))
    assert ev.Resigned(waiting.seat, "closing the lid") in events
    assert mover.voided == move_records[: len(mover.voided)] and mover.voided
    assert mover.machine.records == waiting.machine.records
    assert mover.machine.records[-1] == resign_records[-1]
    report = verify_records(mover.machine.records).report
    assert report.status is Status.VALID and report.ending is Ending.RESIGNED


def test_a_claim_of_abandonment_ends_the_match_for_the_claimant() -> None:
    mover, waiting = at_first_move()
    with pytest.raises(LocalProtocolError, match="only a player waiting"):
        mover.claim_abandoned()
    owed = waiting.machine.chain.next_seq
    waiting.claim_abandoned()
    events = deliver(waiting, mover)
    assert ev.Abandoned(mover.seat, owed) in events
    assert mover.machine.stage is Stage.ABANDONED
    report = verify_records(waiting.machine.records).report
    assert report.status is Status.VALID and report.ending is Ending.ABANDONED
    assert (report.abandoned, report.abandoned_at, report.winner) == (
        mover.seat,
        owed,
        waiting.seat,
    )
    name = report.name(mover.seat)
    assert report.headline() == (
        f"valid: {name} abandoned the match at record {owed} (it was {name}'s turn); "
        f"{report.name(waiting.seat)} wins by forfeit"
    )
    assert report.to_json()["match"]["abandoned_at"] == owed


@pytest.mark.parametrize("lie", ["own turn", "wrong record"])
def test_a_claim_made_when_it_was_not_the_others_turn_is_a_cheat(lie: str) -> None:
    mover, waiting = at_first_move()
    seq = waiting.machine.chain.next_seq
    claim = (
        msg.Abandoned(waiting.seat, seq)
        if lie == "own turn"
        else msg.Abandoned(mover.seat, seq - 1)
    )
    author = mover if lie == "own turn" else waiting
    record = forge(waiting.machine, author.seat, claim, author.seat + 1)
    victim = waiting if author is mover else mover
    with pytest.raises(CheatingDetected, match="falsely claimed") as info:
        victim.receive_data(record.encode())
    assert info.value.culprit == author.seat
    report = verify_records([*waiting.machine.records, record]).report
    assert report.status is Status.INVALID
    assert report.problem is not None
    assert (report.problem.kind, report.problem.culprit) == ("false-claim", author.seat)
