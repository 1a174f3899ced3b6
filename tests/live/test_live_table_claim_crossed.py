"""The host's claim that a silent seat abandoned the match can cross another seat's
resignation at its own hub: the hub keeps what came first, the claim is refused, and the
host's seat must end with the resignation every other seat holds, not with its claim."""

from __future__ import annotations

import asyncio

from p2p66.live.starlink import SeatLost
from p2p66.live.tablenet import play_seat
from p2p66.net.errors import ConnectionLost
from p2p66.session import messages as msg
from p2p66.session.peer import Peer
from p2p66.session.records import Record
from p2p66.session.tableplay import MemoryRelay, run_table
from tests.session.tablekit import choosers, table_peers


class CrossedHub:
    """The host's end of the star at the moment of the race: the mover is gone past its
    grace, and the hub already kept another seat's resignation when the claim comes."""

    def __init__(self, gone: int, resignation: Record) -> None:
        self.gone, self.resignation = gone, resignation
        self.told_lost = False
        self.sent: list[Record] = []

    async def send_own(self, record: Record) -> bool:
        self.sent.append(record)
        return False  # the hub holds the resignation at this position

    async def placed(self, record: Record) -> bool:
        return True

    def ready(self) -> bool:
        return False

    async def until_ready(self) -> None:
        await asyncio.Event().wait()

    async def next_record(
        self, timeout: float | None = None, waiting_on: int | None = None
    ) -> Record:
        if not self.told_lost:
            self.told_lost = True
            raise SeatLost(self.gone, ConnectionLost("the test cut it"), 1.0)
        return self.resignation


def _moves(relay: MemoryRelay) -> int:
    return sum(msg.decode(r.body, r.author).TYPE == "move" for r in relay.records)


def _host_waiting_on_a_joiner() -> tuple[list[Peer], Peer]:
    for count in range(1, 12):
        peers = table_peers("three-handed")
        relay = run_table(peers, choosers(peers), until=lambda r, n=count: _moves(r) >= n)
        assert relay.refused is None and not relay.over
        mover = next(p for p in peers if p.needs_move)
        if mover.seat != 0:
            return peers, mover
    raise AssertionError("no deal had a joiner to move")


def test_a_claim_refused_for_a_resignation_placed_first_ends_the_host_with_the_resignation() -> (
    None
):
    peers, mover = _host_waiting_on_a_joiner()
    host = peers[0]
    leaver = next(p for p in peers if p is not host and p is not mover)
    leaver.resign("leaving")
    (resignation,) = leaver.data_to_send()
    link = CrossedHub(mover.seat, resignation)

    async def never(peer: Peer) -> int:
        raise AssertionError("the host is not to move")

    end = asyncio.run(
        play_seat(host, link, never, restored=list(host.machine.records), durable=False)
    )
    assert [r.seq for r in link.sent] == [resignation.seq]  # the claim went, and was refused
    assert end.resigned == leaver.seat and end.culprit == leaver.seat
    assert end.records[-1] == resignation
    assert host.machine.abandoned is None
    assert "resigned" in end.verdict and "abandoned" not in end.verdict
