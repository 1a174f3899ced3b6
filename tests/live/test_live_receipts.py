"""Joiners keep the host's receipts: a host that showed two joiners different histories, and
relayed nothing that would have caught it live, is proven afterwards from their two files."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from starkit import TABLE, Star, identities

from p2p66.live.receiptlog import keeper
from p2p66.live.star import Seats, StarHub, StarSpoke, receipt_for
from p2p66.live.starlink import HubLinks, SpokeLink
from p2p66.live.starwire import RecordMessage
from p2p66.net.channel import ChannelConfig
from p2p66.net.memory import memory_channel_pair
from p2p66.replay.fork import ForkProof, check_fork_proof
from p2p66.replay.receipt_fork import Agreement, find_fork
from p2p66.replay.receipts import ReceiptsHeader, ReceiptsWriter, read_receipts
from p2p66.session.records import Chain, make_record

CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=5)


def _writers(star: Star, folder: Path) -> dict[int, ReceiptsWriter]:
    host_key = star.seats.keys[0]
    return {
        s: ReceiptsWriter(folder / f"p{s}.receipts", ReceiptsHeader(TABLE, host_key, s))
        for s in star.seats.joiners
    }


def _step_all(star: Star, writers: dict[int, ReceiptsWriter]) -> None:
    """Every spoke takes what waits for it; each acknowledgement goes through the keeper."""
    for seat in star.spokes:
        while star.to_spoke[seat]:
            reply = star.step_spoke(seat).reply
            if reply is not None:
                keeper(writers[seat])(reply)


@pytest.mark.parametrize("n", [3, 4])
def test_an_equivocating_host_is_proven_from_two_receipts_files(n: int, tmp_path: Path) -> None:
    star = Star.of(n)
    writers = _writers(star, tmp_path)
    for i, author in enumerate([0, 1, 2, 0]):  # an honest start: every seat agrees
        record = star.record(author, f"move {i}".encode())
        star.host_writes(record) if author == 0 else star.joiner_writes(record)
        while star.to_hub or any(star.to_spoke.values()):
            _step_all(star, writers)
            while star.to_hub:
                star.step_hub()
    fork_at = star.hub.chain.next_seq
    honest, lie = star.record(0, b"the last trick, for seat 1"), star.record(0, b"a lie")
    star.hub.own(honest)
    for seat in star.seats.joiners:  # seat 1 is shown the truth, every other seat the lie
        shown = honest if seat == 1 else lie
        receipt = receipt_for(star.seats, shown, star.ids[0].sign).signature
        star.to_spoke[seat].append(RecordMessage(shown, receipt).encode())
    _step_all(star, writers)  # each takes it: nothing relayed could clash, so nobody knows
    star.to_hub.clear()  # and the host relays none of their acknowledgements
    for writer in writers.values():
        writer.close()
    a, b = (read_receipts(tmp_path / f"p{s}.receipts") for s in (1, 2))
    assert [r.seq for r in a.entries] == list(range(fork_at + 1))
    proof = find_fork(a, b)
    assert isinstance(proof, ForkProof)
    verdict = check_fork_proof(proof.encode(), expect_table=TABLE, expect_key=star.seats.keys[0])
    assert (verdict.seat, verdict.position) == (0, fork_at)
    assert {verdict.first, verdict.second} == {honest.digest, lie.digest}
    if n == 4:  # two seats shown the same lie agree to the end
        same = find_fork(b, read_receipts(tmp_path / "p3.receipts"))
        assert isinstance(same, Agreement) and same.upto == fork_at


@pytest.mark.timeout(30)
def test_a_spoke_link_hands_every_acknowledgement_to_its_callback_before_sending(
    tmp_path: Path,
) -> None:
    """Over channels: a receipt for every position, the joiner's own records included."""

    async def main() -> None:
        ids = identities(3)
        seats = Seats(TABLE, tuple(i.public_key for i in ids))
        header = ReceiptsHeader(TABLE, seats.keys[0], 1)
        writer = ReceiptsWriter(tmp_path / "p1.receipts", header, fsync=False)
        host_ends, spokes = {}, {}
        for seat in seats.joiners:
            host_end, joiner_end = await memory_channel_pair(ids[0], ids[seat], config=CONFIG)
            host_ends[seat] = host_end
            hook = keeper(writer) if seat == 1 else None
            spokes[seat] = SpokeLink(
                StarSpoke(seats, seat, ids[seat].sign), joiner_end, on_reply=hook
            )
        hub = HubLinks(StarHub(seats, ids[0].sign), host_ends)
        chain = Chain()
        async with hub, contextlib.AsyncExitStack() as stack:
            for spoke in spokes.values():
                await stack.enter_async_context(spoke)
            for i, author in enumerate([0, 1, 2, 1, 0]):
                record = make_record(
                    chain.next_seq, chain.head, author, f"r{i}".encode(), ids[author].sign
                )
                chain.advance(record)
                if author == 0:
                    await hub.send_own(record)
                else:
                    await spokes[author].send_own(record)
                    await hub.next_record(timeout=5)
                for seat, spoke in spokes.items():
                    if seat != author:
                        await spoke.next_record(timeout=5)
            async with asyncio.timeout(10):
                while spokes[1].spoke.waiting_for_receipt() or writer.last < 4:
                    await asyncio.sleep(0.01)
        writer.close()
        kept = read_receipts(tmp_path / "p1.receipts")
        assert [r.head for r in kept.entries] == hub.hub.digests
        assert all(r.verify_signature(seats.keys[0], TABLE) for r in kept.entries)

    asyncio.run(main())
