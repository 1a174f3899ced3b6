"""Leaving a table of three or four is a signed resignation, in memory over the star.

A seat that leaves (``Leaving``) signs ``resign`` at once, whatever the phase
(the coin flip before the first deal, mid-deal, its own turn, another's
turn); the match ends for every seat with "resigned by seat k", and every
seat holds the same replay, which verifies with the resignation reported.
A resignation that crosses another seat's record on the way to the host is
ordered by the host: the record that lost is void in its author's replay
too, and a resignation that lost is signed again on the new head.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from dropkit import MemoryTable

from p2p66.live.star import StarHub
from p2p66.live.starlink import HubLinks
from p2p66.live.tableleave import Leaving
from p2p66.live.tablenet import Attach, Chooser, RecordLink, TableEnd
from p2p66.net.channel import SecureChannel
from p2p66.replay.fileio import read_replay
from p2p66.replay.report import Ending, Status
from p2p66.replay.verify import verify_file
from p2p66.session import events as ev
from p2p66.session import messages as msg
from p2p66.session.machine import Stage
from p2p66.session.peer import Peer
from p2p66.session.records import Record

REASON = "the test leaves"


def kinds(records: list[Record] | tuple[Record, ...]) -> list[str]:
    return [msg.decode(r.body, r.author).TYPE for r in records]


class Watch:
    """Every seat's peer and link as the match starts; the leaver's ``Leaving``, set once
    ``when`` holds of the leaver's peer after a record it took in."""

    def __init__(
        self,
        leaver: int,
        when: Callable[[Peer], bool] | None = None,
        then: Callable[[], None] = lambda: None,
    ) -> None:
        self.leaver = leaver
        self.when = when
        self.then = then
        self.leaving = Leaving()
        self.peers: dict[int, Peer] = {}
        self.links: dict[int, RecordLink] = {}

    def attach(self, seat: int) -> Attach:
        def bind(peer: Peer, link: RecordLink) -> None:
            self.peers[seat], self.links[seat] = peer, link
            when = self.when
            if seat == self.leaver and when is not None:
                real = peer.receive_data

                def receive(data: bytes, via: int | None = None) -> list[ev.Event]:
                    events = real(data, via)
                    if self.leaving.reason is None and when(peer):
                        self.then()
                        self.leaving.leave(REASON)
                    return events

                peer.receive_data = receive  # type: ignore[method-assign]

        return bind

    @property
    def hub(self) -> HubLinks:
        link = self.links[0]
        assert isinstance(link, HubLinks)
        return link


class Gate:
    """A joiner's channel from the host that holds what arrives while closed (a slow link)."""

    def __init__(self, channel: SecureChannel) -> None:
        self.opened = asyncio.Event()
        self.opened.set()
        real = channel.recv

        async def recv() -> bytes:
            data = await real()
            await self.opened.wait()
            return data

        channel.recv = recv  # type: ignore[method-assign]


class Freeze:
    """Gates on every channel end but the leaver's: from ``hold`` on, the other seats hear
    nothing more (so make nothing more) until the leaver's resignation is in the chain;
    the resignation then comes in the phase the test chose, however fast the bots are."""

    def __init__(self, table: MemoryTable, leaver: int) -> None:
        ends = [table.links[s] for s in table.joiners if s != leaver]
        ends += [c for s, c in table.host.channels.items() if s != leaver or leaver == 0]
        self.gates = [Gate(end) for end in ends]

    def hold(self) -> None:
        for gate in self.gates:
            gate.opened.clear()

    def release(self) -> None:
        for gate in self.gates:
            gate.opened.set()


def check_resigned(folder: Path, ends: list[TableEnd], leaver: int) -> list[Record]:
    """Every seat ended with the leaver's resignation, one replay, verified as resigned."""
    for end in ends:
        assert end.resigned == leaver, end.fault
        assert end.left == (end.seat == leaver)
        assert f"resigned by seat {leaver} (p{leaver})" in (end.fault or "")
        assert not end.cheat and not end.lost
    replays = {(folder / f"p{end.seat}.p66").read_bytes() for end in ends}
    assert len(replays) == 1
    report = verify_file(folder / "p0.p66").report
    assert report.status is Status.VALID and report.ending is Ending.RESIGNED, report.headline()
    assert f"seat {leaver} (p{leaver}) resigned ({REASON})" in report.headline()
    records = read_replay(folder / "p0.p66").records
    last = records[-1]
    assert last.author == leaver and kinds([last]) == ["resign"]
    return records


def moves_made(peer: Peer) -> int:
    return kinds(peer.machine.records).count("move")


PHASES: dict[str, Callable[[Peer], bool]] = {
    "before the deal": lambda p: p.machine.stage == Stage.COIN,
    "mid-deal": lambda p: (
        p.machine.hand is not None  # of 2n-1 flights, 1 or 2 made
        and p.machine.hand.dealing
        and 1 <= kinds(p.machine.records).count("deal") <= 2
    ),
    "on another's turn": lambda p: (
        moves_made(p) >= 2
        and (owed := p.machine.expected()) is not None
        and owed.author != p.seat
        and owed.kinds[0] is msg.Move
    ),
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("leaver", [0, 2])
@pytest.mark.parametrize("phase", sorted(PHASES))
def test_a_seat_that_leaves_resigns_and_every_seat_records_it(
    tmp_path: Path, phase: str, leaver: int
) -> None:
    async def main() -> None:
        table = await MemoryTable.seat("three-handed", 3)
        freeze = Freeze(table, leaver)
        watch = Watch(leaver, PHASES[phase], freeze.hold)

        async def thaw() -> str | None:  # once the host holds the resignation
            await watch.leaving.wait()
            try:
                await _until(lambda: kinds(watch.hub.hub.records[-1:]) == ["resign"])
            except TimeoutError:  # the others hear again, so that the test ends and says so
                held = kinds(watch.hub.hub.records[-3:])
                return f"the host held no resignation 30 s after the leave: {held}"
            finally:
                freeze.release()
            return None

        thawing = asyncio.create_task(thaw())
        ends = await table.play(
            tmp_path, target=3, leavings={leaver: watch.leaving}, attach=watch.attach
        )
        stuck = await thawing
        assert stuck is None, (stuck, [(e.seat, e.fault) for e in ends])
        records = check_resigned(tmp_path, ends, leaver)
        before = kinds(records[:-1])
        if phase == "before the deal":
            assert "deal" not in before and "coin-commit" in before
        elif phase == "mid-deal":
            assert "deal" in before and "move" not in before, " ".join(before)
            assert before.count("deal") < 5  # three-handed: 2n-1 flights
        else:
            assert before.count("move") >= 2

    asyncio.run(main())


@pytest.mark.timeout(120)
@pytest.mark.parametrize("leaver", [0, 1])
def test_a_seat_that_leaves_on_its_own_turn_resigns_instead_of_moving(
    tmp_path: Path, leaver: int
) -> None:
    async def main() -> None:
        table = await MemoryTable.seat("north-american", 4)
        watch = Watch(leaver)
        asked = 0

        async def choose(peer: Peer) -> int | str:
            nonlocal asked
            asked += 1
            if asked == 3:  # the person types q while thinking: never answers
                watch.leaving.leave(REASON)
                await asyncio.Event().wait()
            return await table.chooser(leaver)(peer)

        ends = await table.play(
            tmp_path, leavings={leaver: watch.leaving}, choosers={leaver: choose},
            attach=watch.attach,
        )  # fmt: skip
        records = check_resigned(tmp_path, ends, leaver)
        report = verify_file(tmp_path / "p1.p66").report
        assert report.winner == 1 - leaver % 2  # the other partnership wins
        assert kinds(records[:-1]).count("move") >= 2

    asyncio.run(main())


def _first_move_of_a_joiner(table: MemoryTable, act: Callable[[int], object]) -> dict[int, Chooser]:
    """Both joiners' bots; the first joiner asked for a move runs ``act(its seat)`` first
    (awaited if it returns a coroutine)."""
    fired: list[int] = []

    def wrap(seat: int) -> Chooser:
        inner = table.chooser(seat)

        async def choose(peer: Peer) -> int | str:
            if not fired and moves_made(peer) >= 1:
                fired.append(seat)
                done = act(seat)
                if asyncio.iscoroutine(done):
                    await done
            return await inner(peer)

        return choose

    return {1: wrap(1), 2: wrap(2)}


async def _until(test: Callable[[], bool]) -> None:
    async with asyncio.timeout(30):
        while not test():
            await asyncio.sleep(0.005)


class Crossing:
    """A three-handed match whose first joiner asked for a move (the mover) meets the other
    joiner's resignation (the leaver's) at the host; ``arrange`` sets it up with the gates."""

    def __init__(self, table: MemoryTable) -> None:
        self.table = table
        self.gates = {s: Gate(table.links[s]) for s in (1, 2)}
        self.leavings = {1: Leaving(), 2: Leaving()}
        self.watch = Watch(0)
        self.leaver = 0
        self.tasks: list[asyncio.Task[None]] = []

    @property
    def hub(self) -> StarHub:
        return self.watch.hub.hub

    def dropped(self, seat: int) -> list[Record]:
        return [r for s, r in self.hub.dropped if s == seat]

    async def play(self, folder: Path, arrange: Callable[[int, int], object]) -> list[TableEnd]:
        def act(mover: int) -> object:
            self.leaver = 3 - mover
            return arrange(mover, self.leaver)

        choosers = _first_move_of_a_joiner(self.table, act)
        return await self.table.play(
            folder, target=3, leavings=self.leavings, choosers=choosers,
            attach=self.watch.attach,
        )  # fmt: skip


@pytest.mark.timeout(120)
def test_a_resignation_the_host_places_first_voids_the_move_it_crossed(tmp_path: Path) -> None:
    """The mover signs its move before it sees the resignation, which the host kept first:
    the move is void (out of the mover's replay too) and the match ends resigned."""

    async def main() -> None:
        match = Crossing(await MemoryTable.seat("three-handed", 3))

        async def arrange(mover: int, leaver: int) -> None:
            match.gates[mover].opened.clear()  # the mover does not see the resignation come
            kept = match.hub.chain.next_seq
            match.leavings[leaver].leave(REASON)
            await _until(lambda: match.hub.chain.next_seq > kept)  # the host kept it

            async def open_once_void() -> None:
                await _until(lambda: bool(match.dropped(mover)))
                match.gates[mover].opened.set()

            match.tasks.append(asyncio.create_task(open_once_void()))

        ends = await match.play(tmp_path, arrange)
        mover = 3 - match.leaver
        check_resigned(tmp_path, ends, match.leaver)
        dropped = match.dropped(mover)
        assert kinds(dropped)[0] == "move"  # with the keys it owed after it, if any
        mine = read_replay(tmp_path / f"p{mover}.p66").records
        assert not set(dropped) & set(mine)
        assert dropped[0].seq == read_replay(tmp_path / "p0.p66").records[-1].seq

    asyncio.run(main())


@pytest.mark.timeout(120)
def test_a_resignation_that_crossed_a_move_the_host_placed_first_is_signed_again(
    tmp_path: Path,
) -> None:
    """The leaver signs before it sees the move the host kept first: its resignation is void
    and withdrawn, it takes the move in, and resigns again on the new head."""

    async def main() -> None:
        match = Crossing(await MemoryTable.seat("three-handed", 3))

        def arrange(mover: int, leaver: int) -> None:
            match.gates[leaver].opened.clear()  # the leaver does not see the move come
            kept = match.hub.chain.next_seq

            async def leave_late() -> None:
                await _until(lambda: match.hub.chain.next_seq > kept)  # the move is kept
                match.leavings[leaver].leave(REASON)
                await _until(lambda: bool(match.dropped(leaver)))
                match.gates[leaver].opened.set()

            match.tasks.append(asyncio.create_task(leave_late()))

        ends = await match.play(tmp_path, arrange)
        leaver = match.leaver
        records = check_resigned(tmp_path, ends, leaver)
        void = match.dropped(leaver)
        assert set(kinds(void)) == {"resign"} and not set(void) & set(records)
        assert records[void[0].seq].author == 3 - leaver  # the move took its place
        assert kinds([records[void[0].seq]]) == ["move"]
        assert records[-1].seq > void[0].seq

    asyncio.run(main())
