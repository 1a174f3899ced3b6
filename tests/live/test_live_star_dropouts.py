"""Dropouts at a table of three or four, in memory: a dropped joiner comes back and the match
goes on; only its own identity may; past the grace the host claims it abandoned the match,
and a host that claims so while the joiner is there is caught by those who can see it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from dropkit import MemoryTable, cut_for_good, cutting_chooser, first_move_sets_off
from starkit import Star

from p2p66.live.star import SeatFault
from p2p66.live.starlink import HubLinks, SeatLost, SpokeLink
from p2p66.live.starwire import LinkNotice, ResumeRequest, decode_star_message
from p2p66.net.errors import ConnectionLost, PeerClosed
from p2p66.net.identity import Identity
from p2p66.net.memory import memory_channel_pair
from p2p66.replay.fileio import read_replay
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_file
from p2p66.session import messages as msg
from p2p66.session.peer import Peer
from p2p66.session.records import Record

from dropkit import CONFIG  # isort: skip


def _replays(folder: Path, seats: range) -> set[bytes]:
    return {(folder / f"p{s}.p66").read_bytes() for s in seats}


# ------------------------------------------------------------------ sans-IO catch-up


def test_a_joiner_that_missed_records_is_caught_up_from_the_receipted_chain() -> None:
    star = Star.of(3)
    star.host_writes(star.record(0, b"a"))
    star.flush()
    star.relay = lambda seat, data: [] if seat == 2 else [data]  # seat 2's link is down
    star.host_writes(star.record(0, b"b"))
    star.flush()
    star.joiner_writes(star.record(1, b"c"))
    star.flush()
    star.relay = None
    spoke = star.spokes[2]
    assert spoke.head == 0
    messages = star.hub.catch_up(2, spoke.resume_request())
    assert spoke.resumed(messages[0]) == []
    star.to_spoke[2].extend(messages[1:])
    star.flush()
    assert spoke.digests == star.hub.digests
    assert spoke.live_from == 3


def test_a_joiner_whose_own_record_the_host_kept_gets_its_receipt_and_one_it_lacks_goes_again() -> (
    None
):
    star = Star.of(3)
    star.host_writes(star.record(0, b"a"))
    star.flush()
    spoke = star.spokes[1]
    kept = star.record(1, b"kept")
    star.joiner_writes(kept)
    star.step_hub()  # the host kept it; the receipt is lost with the link
    star.to_spoke[1].clear()
    chain = spoke.chain
    from p2p66.session.records import make_record

    lacked = make_record(chain.next_seq, chain.head, 1, b"lacked", star.ids[1].sign)
    spoke.own(lacked)  # sent into the dropped link
    assert spoke.receipted == 1 and len(spoke.pending) == 2
    messages = star.hub.catch_up(1, spoke.resume_request())
    assert spoke.resumed(messages[0]) == []
    for data in messages[1:]:
        spoke.receive(data)
    assert [decode_star_message(d).record for d in spoke.resends()] == [lacked]  # type: ignore[union-attr]


def test_a_joiner_resuming_with_another_history_is_refused_and_blamed() -> None:
    star = Star.of(3)
    star.host_writes(star.record(0, b"a"))
    star.flush()
    forged = ResumeRequest(1, bytes(32)).encode()
    with pytest.raises(SeatFault) as caught:
        star.hub.catch_up(2, forged)
    assert (caught.value.culprit, caught.value.kind) == (2, "diverged")
    with pytest.raises(SeatFault, match="holding 5"):
        star.hub.catch_up(2, ResumeRequest(5, bytes(32)).encode())


def test_a_link_notice_is_checked() -> None:
    star = Star.of(3)
    spoke = star.spokes[1]
    assert spoke.receive(LinkNotice(2, "reconnecting").encode()).notice == LinkNotice(
        2, "reconnecting"
    )
    from p2p66.live.star import RelayFault

    with pytest.raises(RelayFault):
        spoke.receive(LinkNotice(1, "back").encode())  # about ourselves: nonsense


# ------------------------------------------------------------------ whole matches in memory


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("preset", "players"), [("three-handed", 3), ("north-american", 4)])
def test_a_dropped_joiner_reconnects_and_the_match_ends_with_identical_valid_replays(
    tmp_path: Path, preset: str, players: int
) -> None:
    async def main() -> None:
        table = await MemoryTable.seat(preset, players)

        def cut_two() -> None:
            table.cuts.append(2)
            table.cut(2)

        again = {2: cutting_chooser(table, 2, {3})}  # and again at its third move, if any
        choosers = first_move_sets_off(table, cut_two, again)
        ends = await table.play(tmp_path, target=3, choosers=choosers)
        for end in ends:
            assert end.fault is None, end.fault
        assert len(_replays(tmp_path, range(players))) == 1
        report = verify_file(tmp_path / "p0.p66").report
        assert report.status is Status.VALID, report.headline()
        observers = {o for o, seat, state in table.notices if seat == 2 and state == "reconnecting"}
        assert observers >= {0, 1}  # the host saw it, and told the others
        backs = [n for n in table.notices if n == (0, 2, "back")]
        assert len(backs) == len(table.cuts)  # back after every cut
        assert (0, 2, "gone") not in table.notices  # nor taken for gone at the end

    asyncio.run(main())


@pytest.mark.timeout(120)
def test_past_the_grace_the_host_claims_the_missing_seat_abandoned_and_verify_says_so(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        table = await MemoryTable.seat("three-handed", 3)
        choosers = first_move_sets_off(table, cut_for_good(table, 2))
        ends = await table.play(tmp_path, grace=0.5, choosers=choosers)
        host, one, two = ends
        assert host.culprit == 2 and host.lost and "abandoned by seat 2 (p2)" in (host.fault or "")
        assert one.culprit == 2 and "abandoned by seat 2 (p2)" in (one.fault or "")
        assert two.culprit == 0 and "the host" in (two.fault or "")  # it could not get back
        assert len(_replays(tmp_path, range(2))) == 1
        report = verify_file(tmp_path / "p1.p66").report
        assert report.status is Status.VALID, report.headline()
        assert "abandoned by seat 2 (p2)" in report.headline()
        claim = read_replay(tmp_path / "p0.p66").records[-1]
        assert claim.author == 0  # the host's signed claim is the evidence

    asyncio.run(main())


class _LyingHub:
    """A host's hub that, from the trigger on, stops reading seat 2 and claims it left."""

    def __init__(self, hub: HubLinks, victim: int, peer: Peer, on_move: bool) -> None:
        self.hub = hub
        self.victim = victim
        self.lying = False
        self.peer = peer
        self.on_move = on_move
        """Lie only when the victim owes a move (it is choosing as the claim comes)."""

    def deafen(self) -> None:
        """From now on the host reads nothing more of the victim (after the read under way)."""
        link = self.hub.links[self.victim]
        real_recv = link.recv

        async def deaf() -> bytes:
            await asyncio.Event().wait()
            return await real_recv()

        link.recv = deaf  # type: ignore[method-assign]

    async def send_own(self, record: Record) -> bool:
        return await self.hub.send_own(record)

    def __getattr__(self, name: str) -> object:
        return getattr(self.hub, name)  # the rest as the real hub

    async def next_record(
        self, timeout: float | None = None, waiting_on: int | None = None
    ) -> Record:
        owed = self.peer.machine.expected()
        move = owed is not None and owed.kinds[0] is msg.Move
        if self.lying and waiting_on == self.victim and (move or not self.on_move):
            self.deafen()
            raise SeatLost(self.victim, ConnectionLost("made up by the host"))
        return await self.hub.next_record(timeout, waiting_on)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("on_move", [False, True])
def test_a_host_claiming_a_linked_joiner_left_is_blamed_by_it_and_by_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, on_move: bool
) -> None:
    """The claim comes while the victim's record is on its way, or (``on_move``) while the
    victim is still choosing its move, so that its record comes after the claim."""
    from p2p66.live import starlink, tablenet

    real, real_spoke_for = tablenet.play_seat, starlink.spoke_for
    lying: list[_LyingHub] = []
    spokes: dict[int, SpokeLink] = {}

    async def play_seat(peer, link, choose, **kw):  # type: ignore[no-untyped-def]
        if isinstance(link, HubLinks):
            link = _LyingHub(link, 2, peer, on_move)
            lying.append(link)
        return await real(peer, link, choose, **kw)

    def spoke_for(table, identity, **kw):  # type: ignore[no-untyped-def]
        spokes[table.seat] = real_spoke_for(table, identity, **kw)
        return spokes[table.seat]

    monkeypatch.setattr(tablenet, "play_seat", play_seat)
    monkeypatch.setattr(starlink, "spoke_for", spoke_for)

    async def main() -> None:
        table = await MemoryTable.seat("three-handed", 3)

        def lie() -> None:  # from here the host claims seat 2 left when it owes a record;
            lying[0].lying = True  # on a move only, it reads seat 2 until it lies
            if not on_move:
                lying[0].deafen()

        victim = table.chooser(2)

        async def stalls(peer: Peer) -> int | str:  # until the claim has reached its spoke
            if on_move and lying and lying[0].lying:
                async with asyncio.timeout(30):
                    while spokes[2].spoke.chain.next_seq <= peer.machine.chain.next_seq:
                        await asyncio.sleep(0.01)
            return await victim(peer)

        choosers = first_move_sets_off(table, lie, {2: stalls})
        ends = await table.play(tmp_path, target=3, choosers=choosers)
        host, one, two = ends
        assert host.culprit == 2  # the liar's own story
        assert two.culprit == 0 and two.cheat and "false claim" in (two.fault or "")
        assert one.culprit == 0 and one.cheat and "suspect claim" in (one.fault or "")

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_only_the_seated_identity_may_come_back_and_only_while_its_seat_is_lost() -> None:
    async def main() -> None:
        table = await MemoryTable.seat("three-handed", 3)
        from p2p66.live.starlink import hub_for

        async with hub_for(table.host, table.ids[0], grace=10) as hub:
            stranger = Identity.from_seed("mallory", bytes([7]) * 32)
            host_end, joiner_end = await memory_channel_pair(table.ids[0], stranger, config=CONFIG)
            assert await hub.rejoin(host_end) is None
            with pytest.raises(PeerClosed, match="does not sit at this table"):
                await joiner_end.recv()
            host_end, joiner_end = await memory_channel_pair(
                table.ids[0], table.ids[1], config=CONFIG
            )
            assert await hub.rejoin(host_end) is None  # seat 1 is still linked
            with pytest.raises(PeerClosed, match="still linked"):
                await joiner_end.recv()
            table.cut(1)
            async with asyncio.timeout(10):
                while 1 not in hub.lost:
                    await asyncio.sleep(0.01)
            host_end, joiner_end = await memory_channel_pair(
                table.ids[0], table.ids[1], config=CONFIG
            )
            await joiner_end.send(ResumeRequest(0, bytes(32)).encode())
            assert await hub.rejoin(host_end) is None  # it claims a chain the host never had
            with pytest.raises(PeerClosed, match="another record"):
                await joiner_end.recv()

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_joiners_wait_the_grace_for_a_host_that_dropped_off_then_blame_it(tmp_path: Path) -> None:
    async def main() -> None:
        table = await MemoryTable.seat("three-handed", 3)

        def vanish() -> None:  # every link of the host ends, and it never answers again
            table.refuse_redial.update({1, 2})
            table.cut(1)
            table.cut(2)

        choosers = first_move_sets_off(table, vanish)
        ends = await table.play(tmp_path, grace=0.5, choosers=choosers)
        for end in ends[1:]:
            assert end.culprit == 0 and end.lost and "abandoned by the host" in (end.fault or "")
        assert {(s, state) for o, s, state in table.notices if o == 1} >= {(0, "reconnecting")}
        report = verify_file(tmp_path / "p1.p66").report
        assert report.status is Status.UNFINISHED, report.headline()  # no joiner can claim

    asyncio.run(main())


def test_a_host_answering_a_reconnection_with_another_history_is_proven() -> None:
    from p2p66.live.star import ForkProven, receipt_for
    from p2p66.live.starwire import RecordMessage, ResumeReply
    from p2p66.replay.fork import check_fork_proof
    from p2p66.session.records import make_record

    star = Star.of(3)
    star.host_writes(star.record(0, b"a"))
    star.host_writes(star.record(0, b"b"))
    star.flush()
    spoke = star.spokes[2]
    spoke.resume_request()
    spoke.resumed(ResumeReply(2, spoke.last_ack.seq if spoke.last_ack else -1).encode())
    other = make_record(1, star.hub.digests[0], 0, b"another b", star.ids[0].sign)
    receipt = receipt_for(star.seats, other, star.ids[0].sign)
    with pytest.raises(ForkProven) as caught:
        spoke.receive(RecordMessage(other, receipt.signature).encode())
    assert caught.value.culprit == 0
    check_fork_proof(caught.value.proof.encode(), expect_table=star.seats.table)


def test_a_host_resuming_with_fewer_records_than_it_receipted_is_blamed() -> None:
    from p2p66.live.star import RelayFault
    from p2p66.live.starwire import ResumeReply

    star = Star.of(3)
    star.host_writes(star.record(0, b"a"))
    star.host_writes(star.record(0, b"b"))
    star.flush()
    spoke = star.spokes[1]
    with pytest.raises(RelayFault, match="dropped records") as caught:
        spoke.resumed(ResumeReply(1, -1).encode())
    assert caught.value.culprit == 0
    with pytest.raises(RelayFault, match="never sent"):
        star.spokes[2].resumed(ResumeReply(2, 7).encode())


@pytest.mark.parametrize(
    "data",
    [
        [2, 0, "reconnecting"],  # the host's seat is no joiner
        [2, 1, "asleep"],
        [3, -1, bytes(32)],
        [3, 1, b"short"],
        [4, 1, -2],
        [4, True, 0],
        [3, 1, bytes(32), 0],
    ],
)
def test_malformed_resynchronisation_and_notice_messages_are_refused(data: list[object]) -> None:
    import msgpack

    from p2p66.live.starwire import StarWireError

    with pytest.raises(StarWireError):
        decode_star_message(msgpack.packb(data))


def test_resynchronisation_and_notice_messages_round_trip() -> None:
    from p2p66.live.starwire import ResumeReply

    for message in (LinkNotice(3, "back"), ResumeRequest(7, bytes(32)), ResumeReply(9, -1)):
        assert decode_star_message(message.encode()) == message


def test_a_resynchronisation_in_the_middle_of_play_is_a_protocol_error() -> None:
    from p2p66.live.star import RelayFault
    from p2p66.live.starwire import ResumeReply

    star = Star.of(3)
    with pytest.raises(SeatFault):
        star.hub.receive(1, ResumeRequest(0, bytes(32)).encode())
    with pytest.raises(RelayFault):
        star.spokes[1].receive(ResumeReply(0, -1).encode())


@pytest.mark.timeout(180)
def test_two_joiners_dropped_at_once_both_come_back(tmp_path: Path) -> None:
    async def main() -> None:
        table = await MemoryTable.seat("north-american", 4)

        def also_three() -> None:
            table.cut(3)

        choosers = {1: cutting_chooser(table, 1, {1, 4}, then=also_three)}
        ends = await table.play(tmp_path, choosers=choosers)
        for end in ends:
            assert end.fault is None, end.fault
        assert len(_replays(tmp_path, range(4))) == 1
        assert verify_file(tmp_path / "p2.p66").report.status is Status.VALID
        backs = {seat for o, seat, state in table.notices if o == 2 and state == "back"}
        assert backs == {1, 3}

    asyncio.run(main())


def test_a_restored_spoke_takes_the_host_holding_its_ack_of_a_record_not_yet_in_its_replay() -> (
    None
):
    """Killed after acknowledging a record it had not yet written: not the host's lie."""
    from p2p66.live.star import RelayFault, StarSpoke
    from p2p66.live.starwire import ResumeReply

    star = Star.of(3)
    first, second = star.record(0, b"a"), star.record(0, b"b")
    star.host_writes(first)
    star.host_writes(second)
    star.flush()
    spoke = StarSpoke(star.seats, 1, star.ids[1].sign)
    spoke.restore([first])  # the replay had only the first; the second was acknowledged
    assert spoke.resumed(ResumeReply(2, 1).encode()) == []
    beyond = StarSpoke(star.seats, 1, star.ids[1].sign)
    beyond.restore([first])
    with pytest.raises(RelayFault, match="never sent") as caught:  # past the host's own chain
        beyond.resumed(ResumeReply(2, 2).encode())
    assert caught.value.culprit == 0


@pytest.mark.timeout(30)
def test_a_restored_spokes_unreceipted_record_is_timed_from_the_restart() -> None:
    from p2p66.live.star import RelayFault, StarSpoke
    from p2p66.live.starlink import SpokeLink

    star = Star.of(3)
    first = star.record(0, b"a")
    star.host_writes(first)
    star.flush()
    mine = star.record(1, b"mine, sent just before the process died")

    async def main() -> None:
        spoke = StarSpoke(star.seats, 1, star.ids[1].sign)
        spoke.restore([first, mine])
        assert spoke.receipted == 1 and list(spoke.pending) == [mine]
        _, joiner_end = await memory_channel_pair(star.ids[0], star.ids[1], config=CONFIG)
        async with SpokeLink(spoke, joiner_end, receipt_timeout=0.2) as link:
            with pytest.raises(RelayFault) as caught:  # the silent host end never receipts it
                await link.next_record(timeout=10)
            assert caught.value.kind == "withheld"

    asyncio.run(main())


@pytest.mark.timeout(120)
def test_a_joiner_away_when_another_seat_dropped_learns_it_and_accepts_the_later_claim(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        table = await MemoryTable.seat("three-handed", 3)

        fired: list[bool] = []

        def both() -> None:  # seat 1 is away while the host announces that seat 2 is
            if not fired:  # (runs before either spoke can redial: no await in between)
                fired.append(True)
                table.refuse_redial.update({1, 2})
                table.cut(1)
                table.cut(2)

        async def let_one_back() -> None:
            lost = {(0, 1, "reconnecting"), (0, 2, "reconnecting")}
            while not lost <= set(table.notices):
                await asyncio.sleep(0.01)
            table.refuse_redial.discard(1)

        back = asyncio.create_task(let_one_back())
        # whichever of seats 1 and 2 moves first (the first dealer sits out) sets it off
        choosers = {s: cutting_chooser(table, s, {1}, both) for s in (1, 2)}
        ends = await table.play(tmp_path, grace=3, target=3, choosers=choosers)
        async with asyncio.timeout(5):
            await back
        host, one, _ = ends
        assert host.culprit == 2 and "abandoned by seat 2" in (host.fault or "")
        assert one.culprit == 2 and not one.cheat, one.fault  # no "suspect claim" here
        assert (1, 2, "reconnecting") in table.notices  # told in its catch-up

    asyncio.run(main())


def test_a_restored_spoke_does_not_acknowledge_again_what_the_host_holds_its_ack_of() -> None:
    """Killed after acknowledging records it had not yet written: the catch-up brings them
    back, and acknowledging them again would be a repeat the host rightly refuses."""
    from p2p66.live.star import StarSpoke

    star = Star.of(3)
    first = star.record(0, b"a")
    star.host_writes(first)
    second = star.record(0, b"b")
    star.host_writes(second)
    star.flush()  # both spokes acknowledged both records
    star.relay = lambda seat, data: [] if seat == 1 else [data]  # seat 1 has died
    star.host_writes(star.record(0, b"c"))
    star.flush()
    star.relay = None
    spoke = StarSpoke(star.seats, 1, star.ids[1].sign)
    spoke.restore([first])  # its replay had only the first
    star.spokes[1] = spoke
    messages = star.hub.catch_up(1, spoke.resume_request())
    assert spoke.resumed(messages[0]) == []
    replies = [spoke.receive(data).reply for data in messages[1:]]
    assert replies[0] is None  # the host holds our acknowledgement of the second record
    assert replies[1] is not None  # the third is new to us: acknowledged
    for reply in replies:
        if reply is not None:
            star.to_hub.append((1, reply))
    star.flush()  # no fault at the host, and the other spoke takes the relayed ack
    assert star.hub.acked[1] == 2 and star.spokes[2].acked[1] == 2
    assert spoke.digests == star.hub.digests
