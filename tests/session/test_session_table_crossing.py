"""A resignation that crosses another seat's record at a table, sans-IO: the host's order.

The mover and a leaver both sign record ``s`` on the same head. Whichever the
host delivers first stands: the resignation first voids the move (the mover's
machine ends with the resignation), the move first voids the resignation
(the leaver withdraws it and signs it again on the new head). Every peer then
holds the very same chain.
"""

from __future__ import annotations

import pytest

from p2p66.session import messages as msg
from p2p66.session.errors import LocalProtocolError
from p2p66.session.machine import Machine
from p2p66.session.peer import Peer
from p2p66.session.tableplay import run_table
from tests.session.tablekit import choosers, table_peers


def _moves_in(count: int) -> tuple[list[Peer], Peer]:
    """A three-handed match ``count`` moves in: the peers, and the one to move."""
    peers = table_peers("three-handed")
    moves = lambda relay: sum(  # noqa: E731
        msg.decode(r.body, r.author).TYPE == "move" for r in relay.records
    )
    relay = run_table(peers, choosers(peers), until=lambda relay: moves(relay) >= count)
    assert relay.refused is None and not relay.over
    return peers, next(p for p in peers if p.needs_move)


def _mid_hand() -> tuple[list[Peer], Peer, Peer]:
    """A three-handed match two moves in: the peers, the mover, and another player."""
    peers, mover = _moves_in(2)
    view = mover.table_view()
    assert view is not None
    mover.play(choosers(peers)[mover.seat](view))
    leaver = next(p for p in peers if p is not mover)
    leaver.resign("leaving")
    return peers, mover, leaver


def _deliver(peers: list[Peer], sender: Peer) -> None:
    for record in sender.data_to_send():
        for peer in peers:
            if peer is not sender:
                peer.receive_data(record.encode(), via=sender.seat)


def _same_chain(peers: list[Peer]) -> list[str]:
    chains = {tuple(r.digest for r in p.machine.records) for p in peers}
    assert len(chains) == 1
    last = peers[0].machine.records[-1]
    return [msg.decode(last.body, last.author).TYPE]


def test_the_resignation_placed_first_voids_the_move_it_crossed() -> None:
    peers, mover, leaver = _mid_hand()
    move = mover.data_to_send()  # never relayed: the host placed the resignation first
    _deliver(peers, leaver)
    assert mover.voided == move and mover.machine.over
    assert _same_chain(peers) == ["resign"]
    assert all(p.machine.resigned == leaver.seat for p in peers)


def test_the_move_placed_first_voids_the_resignation_which_is_signed_again() -> None:
    peers, mover, leaver = _mid_hand()
    first = leaver.data_to_send()  # void: the host placed the move first
    _deliver(peers, mover)
    assert leaver.voided == first and not leaver.machine.over
    assert leaver.machine.resigned is None
    leaver.resign("leaving")
    _deliver(peers, leaver)
    assert _same_chain(peers) == ["resign"]
    assert all(p.machine.over and p.machine.resigned == leaver.seat for p in peers)


NOT_WITHDRAWN = "not a resignation or claim that can be withdrawn"


def test_only_a_table_seat_s_last_record_a_resignation_can_be_withdrawn() -> None:
    with pytest.raises(LocalProtocolError, match=NOT_WITHDRAWN):
        Machine(seats=2).withdraw(0)
    _, mover, _ = _mid_hand()
    with pytest.raises(LocalProtocolError, match=NOT_WITHDRAWN):
        mover.machine.withdraw(mover.machine.chain.next_seq - 1)  # a move, not a resignation


def test_a_resignation_placed_before_the_host_s_claim_of_abandonment_ends_the_match() -> None:
    """The host claims the silent mover abandoned the match while a third seat resigns on
    the same head; the host's hub kept the resignation first, so the claim is void: the
    host withdraws it and every seat ends with the resignation."""
    peers, mover = next(found for count in range(1, 9) if (found := _moves_in(count))[1].seat != 0)
    host = peers[0]
    leaver = next(p for p in peers if p is not host and p is not mover)
    host.claim_abandoned()
    claim = host.data_to_send()  # refused by the hub: the resignation was placed first
    leaver.resign("leaving")
    _deliver(peers, leaver)
    assert host.voided == claim
    assert _same_chain(peers) == ["resign"]
    assert all(p.machine.over and p.machine.resigned == leaver.seat for p in peers)
    assert host.machine.abandoned is None
