"""The star relay: an honest host passes everything on; a lying one is caught at once.

Every lie the host can tell (different records to different joiners, drops,
repeats, reorders, stripped receipts, acknowledgements out of turn) is
either a ``ForkProven`` whose proof any verifier accepts, or a ``RelayFault``
naming the host; a joiner that sends what is not its own is ``SeatFault``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starkit import TABLE, Star

from p2p66.live.star import ForkProven, RelayFault, SeatFault, Seats, receipt_for
from p2p66.live.starwire import (
    AckMessage,
    RecordMessage,
    StarWireError,
    decode_star_message,
)
from p2p66.replay.fork import check_fork_proof
from p2p66.session.errors import CheatingDetected
from p2p66.session.headacks import HeadAck, make_head_ack
from p2p66.session.records import Record, make_record


def _round(star: Star, authors: list[int]) -> None:
    for i, author in enumerate(authors):
        record = star.record(author, f"move {i} by {author}".encode())
        if author == 0:
            star.host_writes(record)
        else:
            star.joiner_writes(record)
        star.flush()


@pytest.mark.parametrize("n", [3, 4])
def test_an_honest_host_gives_every_seat_the_same_chain_in_order(n: int) -> None:
    star = Star.of(n)
    authors = [0, 1, 1, *range(n), 2, 0]
    _round(star, authors)
    everything = [r.digest for r in star.delivered[0]]
    for seat, spoke in star.spokes.items():
        assert spoke.digests == star.hub.digests
        mine = [r.digest for r in star.delivered[seat]]
        assert mine == [d for d, a in zip(star.hub.digests, authors, strict=True) if a != seat]
        assert spoke.behind() == {}
        assert spoke.waiting_for_receipt() is None
    assert len(everything) == sum(1 for a in authors if a != 0)
    assert star.hub.acked == dict.fromkeys(star.seats.joiners, len(authors) - 1)


def test_a_host_showing_two_records_at_one_seq_is_proven_at_the_first_relayed_ack() -> None:
    star = Star.of(4)
    _round(star, [0, 1, 2])
    seq, prev = star.hub.chain.next_seq, star.hub.chain.head
    honest = star.record(0, b"the real move")
    lie = star.record(0, b"a lie for seat 3")
    assert (lie.seq, lie.prev) == (honest.seq, honest.prev) == (seq, prev)
    outgoing = star.hub.own(honest)
    # The host sends the honest record to seats 1 and 2 and the lie (receipted) to seat 3.
    lie_message = RecordMessage(lie, receipt_for(star.seats, lie, star.ids[0].sign).signature)
    for seat, data in outgoing:
        star.to_spoke[seat].append(lie_message.encode() if seat == 3 else data)
    for seat in (1, 2, 3):
        star.step_spoke(seat)  # each accepts what it was shown and acknowledges it
    star.step_hub()  # seat 1's ack: the hub relays it to 2 and 3
    star.step_spoke(2)
    with pytest.raises(ForkProven) as caught:
        star.step_spoke(3)
    assert caught.value.culprit == 0
    verdict = check_fork_proof(caught.value.proof.encode(), expect_table=TABLE)
    assert (verdict.seat, verdict.position) == (0, seq)
    assert {verdict.first, verdict.second} == {honest.digest, lie.digest}


def test_a_joiner_that_double_signs_with_the_hosts_help_convicts_the_host() -> None:
    star = Star.of(4)
    _round(star, [0])
    one = star.record(1, b"seat 1 plays the ace")
    two = star.record(1, b"seat 1 plays the ten")
    star.joiner_writes(one)
    star.step_hub()  # the hub keeps `one`, receipts it, sends it to 2 and 3
    star.to_spoke[3][-1] = RecordMessage(two, receipt_for_record(star, two)).encode()
    star.step_spoke(2)
    star.step_spoke(3)  # seat 3 is shown `two`, receipted too
    seat2_ack = next(data for seat, data in star.to_hub if seat == 2)
    with pytest.raises(ForkProven) as caught:
        star.spokes[3].receive(seat2_ack)  # a lying host relays without checking
    assert caught.value.culprit == 0  # the host receipted two records at one seq
    assert check_fork_proof(caught.value.proof.encode()).seat == 0


def receipt_for_record(star: Star, record: Record) -> bytes:
    return receipt_for(star.seats, record, star.ids[0].sign).signature


def test_a_record_chained_to_a_hidden_fork_is_proven_even_if_no_ack_is_relayed() -> None:
    star = Star.of(3)
    _round(star, [0])
    honest, lie = star.record(0, b"for seat 1"), star.record(0, b"for seat 2")
    star.hub.own(honest)
    star.to_spoke[1].append(RecordMessage(honest, receipt_for_record(star, honest)).encode())
    star.to_spoke[2].append(RecordMessage(lie, receipt_for_record(star, lie)).encode())
    star.step_spoke(1)
    star.step_spoke(2)
    star.to_hub.clear()  # the host relays no acknowledgement at all
    follow = star.record(1, b"seat 1 answers the honest record")
    star.joiner_writes(follow)
    star.step_hub()
    with pytest.raises(ForkProven) as caught:
        star.step_spoke(2)  # the record, with the host's receipt, names the honest head
    assert caught.value.culprit == 0
    assert check_fork_proof(caught.value.proof.encode()).position == honest.seq


def _lying(star: Star, seat: int, lie: str) -> None:
    """After the next outgoing message to ``seat``: apply ``lie`` to its queue."""
    queue = star.to_spoke[seat]
    if lie == "drop":
        del queue[0]
    elif lie == "reorder":
        queue[0], queue[1] = queue[1], queue[0]
    elif lie == "repeat":
        queue.insert(1, queue[0])


@pytest.mark.parametrize(
    ("lie", "kind"), [("drop", "order"), ("reorder", "order"), ("repeat", "duplicate")]
)
def test_drops_reorders_and_repeats_are_blamed_on_the_host_at_once(lie: str, kind: str) -> None:
    star = Star.of(4)
    _round(star, [0, 1])
    star.host_writes(star.record(0, b"first"))
    star.host_writes(star.record(0, b"second"))
    _lying(star, 2, lie)
    with pytest.raises(RelayFault) as caught:
        while star.to_spoke[2]:
            star.step_spoke(2)
    assert (caught.value.culprit, caught.value.kind) == (0, kind)
    for seat in (1, 3):  # the others saw nothing wrong
        while star.to_spoke[seat]:
            star.step_spoke(seat)


@pytest.mark.parametrize("lie", ["altered body", "no receipt", "receipt of another record"])
def test_a_relayed_record_with_a_broken_signature_or_receipt_is_the_hosts_fault(lie: str) -> None:
    star = Star.of(3)
    _round(star, [0])
    record = star.record(0, b"x")
    altered = Record(record.seq, record.prev, 0, b"y", record.signature)
    message, kind = {
        "altered body": (RecordMessage(altered, receipt_for_record(star, altered)), "signature"),
        "no receipt": (RecordMessage(record, b""), "receipt"),
        "receipt of another record": (
            RecordMessage(record, receipt_for_record(star, altered)),
            "receipt",
        ),
    }[lie]
    with pytest.raises(RelayFault) as caught:
        star.spokes[1].receive(message.encode())
    assert (caught.value.culprit, caught.value.kind) == (0, kind)


def test_an_acknowledgement_relayed_before_its_record_is_the_hosts_fault() -> None:
    star = Star.of(3)
    _round(star, [0])
    star.host_writes(star.record(0, b"one"))
    star.step_spoke(1)
    ack_message = star.to_hub.pop()[1]
    with pytest.raises(RelayFault) as caught:
        star.spokes[2].receive(ack_message)  # seat 2 has not got record 1 yet
    assert caught.value.kind == "order"


def test_a_joiner_sending_another_seats_record_is_blamed_on_that_joiner() -> None:
    star = Star.of(4)
    _round(star, [0])
    record = star.record(2, b"seat 2's move")
    with pytest.raises(SeatFault) as caught:
        star.hub.receive(3, RecordMessage(record).encode())
    assert (caught.value.culprit, caught.value.kind) == (3, "wrong-seat")
    bad = Record(record.seq, record.prev, 3, record.body, record.signature)
    with pytest.raises(CheatingDetected) as cheat:
        star.hub.receive(3, RecordMessage(bad).encode())
    assert cheat.value.culprit == 3


def test_a_joiner_acknowledging_a_record_it_was_never_shown_is_blamed_on_it() -> None:
    star = Star.of(3)
    _round(star, [0])
    fake = make_head_ack(TABLE, 2, 0, b"\x01" * 32, star.ids[2].sign, receipt=b"\x02" * 64)
    with pytest.raises(SeatFault) as caught:
        star.hub.receive(2, AckMessage(fake).encode())
    assert (caught.value.culprit, caught.value.kind) == (2, "false-ack")
    with pytest.raises(SeatFault):
        star.hub.receive(2, b"\xc1junk")


def test_a_record_receipted_to_its_author_but_replaced_for_the_others_is_proven() -> None:
    star = Star.of(3)
    _round(star, [0])
    mine = star.record(1, b"seat 1's move")
    star.joiner_writes(mine)
    star.step_hub()  # receipt to seat 1, record to seat 2: the host keeps back the latter
    star.to_spoke[2].clear()
    star.step_spoke(1)  # seat 1 acknowledges its own record, the host's receipt inside
    seat1_ack = star.to_hub.pop()[1]
    # The host claims the move never came and writes its own record at that seq for seat 2.
    claim = make_record(mine.seq, mine.prev, 0, b"seat 1 abandoned", star.ids[0].sign)
    star.spokes[2].receive(RecordMessage(claim, receipt_for_record(star, claim)).encode())
    with pytest.raises(ForkProven) as caught:
        star.spokes[2].receive(AckMessage(decode_ack(seat1_ack)).encode())
    assert caught.value.culprit == 0
    assert check_fork_proof(caught.value.proof.encode()).position == mine.seq


def decode_ack(data: bytes) -> HeadAck:
    message = decode_star_message(data)
    assert isinstance(message, AckMessage)
    return message.ack


def test_seats_are_three_to_eight() -> None:
    with pytest.raises(ValueError, match="3 to 8"):
        Seats(TABLE, (b"k" * 32,) * 2)


@given(st.binary(max_size=300))
def test_star_messages_decode_or_fail_cleanly(data: bytes) -> None:
    try:
        message = decode_star_message(data)
    except StarWireError:
        return
    assert message.encode() == data


@given(
    st.binary(min_size=1, max_size=200),
    st.integers(0, 2**63 - 1),
    st.binary(min_size=64, max_size=64),
)
def test_star_messages_round_trip(body: bytes, seq: int, sig: bytes) -> None:
    record = Record(seq, b"\x00" * 32, 1, body, sig)
    for message in (RecordMessage(record), RecordMessage(record, sig)):
        assert decode_star_message(message.encode()) == message


def test_records_that_cross_on_the_way_are_void_for_their_author_and_blame_nobody() -> None:
    star = Star.of(4)
    _round(star, [0, 1])
    host_move = star.record(0, b"the host's move")
    resign = star.record(2, b"seat 2 resigns")
    after = make_record(resign.seq + 1, resign.digest, 2, b"and says why", star.ids[2].sign)
    star.joiner_writes(resign)  # sent at the same moment as the host's move...
    star.joiner_writes(after)  # ...with a second record chained on it
    star.host_writes(host_move)  # ...but the host's move comes first in the host's order
    star.flush()
    assert [r for _, r in star.hub.dropped] == [resign, after]
    assert star.spokes[2].voided == [resign, after]
    for spoke in star.spokes.values():
        assert spoke.digests == star.hub.digests
        assert spoke.waiting_for_receipt() is None
    again = star.record(2, b"seat 2 resigns")  # re-signed on the head it now holds
    star.joiner_writes(again)
    star.flush()
    assert star.delivered[1][-1] == again and star.delivered[3][-1] == again


def test_the_hosts_own_record_that_crossed_a_joiners_is_void_and_nothing_is_sent() -> None:
    star = Star.of(3)
    _round(star, [0])
    stale = star.record(0, b"the host writes on the head it knows")
    resign = star.record(1, b"seat 1 resigns")
    star.joiner_writes(resign)
    star.step_hub()  # the pump passes the resignation on first
    assert star.hub.own(stale) == []
    assert star.hub.dropped == [(0, stale)]
    star.flush()
    assert all(spoke.digests == star.hub.digests for spoke in star.spokes.values())
