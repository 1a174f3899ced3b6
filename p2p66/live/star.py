"""The star relay's two ends, sans-IO: the host's hub and each joiner's spoke.

With three or four players every record goes through the host: a joiner
sends its own records to the host, and the host checks each one (signed by
the seat of the channel it came on, chained to the host's head), keeps it,
and sends it on to every other joiner, each time with its *receipt* (its
signed head acknowledgement of that record); the author gets the receipt
alone. Every joiner acknowledges every record it takes in, its own after
the receipt, with the host's receipt inside, and the host relays those
acknowledgements to the other joiners. The hub reads only the record
headers (seq, prev, author, signature), never a body.

The host cannot forge a record, but it could show different records to
different joiners, drop, delay, repeat or reorder them. A spoke takes
nothing on trust: each record must come with a valid receipt, in chain
order, and every acknowledgement or receipt goes into a ``StatementLog``, so
the first two host statements about one position that disagree are a
``ForkProof`` at once (``ForkProven``). Everything else the relay can do
wrong on a joiner's link (a bad signature passed on, a record out of order
or repeated, a missing receipt, an acknowledgement of a record not yet
delivered) is ``RelayFault`` naming the host: only the host talks on that
link. The hub blames the joiner of the channel for whatever arrives on it
(``SeatFault``). What this proves and what it only detects: protocol/SPEC.md,
"N-party topology and equivocation".
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from p2p66.live.starwire import (
    AckMessage,
    LinkNotice,
    RecordMessage,
    ResumeReply,
    ResumeRequest,
    StarMessage,
    StarWireError,
    decode_star_message,
)
from p2p66.replay.fork import Evidence, ForkProof, StatementLog
from p2p66.session.errors import CheatingDetected, LocalProtocolError, RemoteProtocolError
from p2p66.session.headacks import HOST_SEAT, HeadAck, make_head_ack
from p2p66.session.records import GENESIS, Chain, Record, RecordError

Sign = Callable[[bytes], bytes]
Outgoing = tuple[int, bytes]
"""A message for one joiner's link: ``(seat, bytes)``."""
MAX_PENDING_OWN: Final = 64


class SeatFault(RemoteProtocolError):
    """What arrived on a joiner's channel breaks the star protocol: that joiner's fault."""


class RelayFault(RemoteProtocolError):
    """The host relayed something an honest relay never would (detected; blamed on seat 0)."""

    def __init__(self, message: str, *, kind: str) -> None:
        super().__init__(f"the host broke the relay protocol: {message}", HOST_SEAT, kind=kind)


class Displaced(LocalProtocolError):
    """Our record came too late: the host already relayed another record at its place
    (``seq``), which waits in the spoke's queue to be read."""

    def __init__(self, seq: int) -> None:
        super().__init__(f"our record {seq} came too late: the host relayed another in its place")
        self.seq = seq


class ForkProven(CheatingDetected):
    """A seat signed two different chains; ``proof`` is the file any verifier accepts."""

    def __init__(self, proof: ForkProof) -> None:
        who = "the host" if proof.seat == HOST_SEAT else f"seat {proof.seat}"
        super().__init__(
            f"{who} showed different records to different players (equivocation): "
            "proven by two of its own signed statements",
            proof.seat,
            kind="fork",
        )
        self.proof = proof


@dataclass(frozen=True, slots=True)
class Seats:
    """The table everybody signed: its id, and every seat's identity key (host = seat 0)."""

    table: bytes
    keys: tuple[bytes, ...]

    def __post_init__(self) -> None:
        if not 3 <= len(self.keys) <= 8:
            raise ValueError("a star has 3 to 8 seats")

    @property
    def joiners(self) -> range:
        return range(1, len(self.keys))


def receipt_for(seats: Seats, record: Record, sign: Sign) -> HeadAck:
    """The host's signed head acknowledgement of ``record``."""
    return make_head_ack(seats.table, HOST_SEAT, record.seq, record.digest, sign)


class StarHub:
    """The host's side: check what each joiner sends, keep it, pass it on (sans-IO).

    ``receive(seat, data)`` takes a message from joiner ``seat``'s channel and
    returns the record for the host's own session (or ``None`` for an
    acknowledgement) and the messages to send; ``own(record)`` does the same
    for the host's own records. Any fault names the joiner of the channel.
    """

    def __init__(self, seats: Seats, sign: Sign) -> None:
        self.seats = seats
        self._sign = sign
        self.chain = Chain()
        self.digests: list[bytes] = []
        self.records: list[Record] = []
        self.receipts: list[bytes] = []
        """Our receipt signature for every record kept, by position (a resync sends it again)."""
        self.acked: dict[int, int] = dict.fromkeys(seats.joiners, -1)
        """The last position each joiner acknowledged (-1: none yet)."""
        self.dropped: list[tuple[int, Record]] = []
        """Joiners' records that crossed a record the host had already passed on: void."""
        self._void: dict[int, set[bytes]] = {s: set() for s in range(len(seats.keys))}
        self.journal: Callable[[Record], None] | None = None
        """Told each record before the hub receipts or passes it on: a restartable host keeps
        its chain durably first (``p2p66.live.hostresume``), so no joiner ever holds a
        receipt for a record the restarted hub lacks."""
        self.restored = 0
        """Records restored from the journal by a restarted hub (``restore``)."""

    def restore(self, records: Sequence[Record]) -> None:
        """A restarted host: the chain as its journal kept it (checked), each receipt signed
        again (Ed25519 signatures are deterministic: the very bytes the joiners hold).

        Which acknowledgements the dead hub held and relayed is lost: every seat's
        position starts at -1 again, and no acknowledgement of a restored record is
        relayed (the others may hold it already; a repeat would be a relay fault).
        """
        if self.chain.next_seq:
            raise LocalProtocolError("only a fresh hub is restored")
        for record in records:
            key = self.seats.keys[record.author] if record.author < len(self.seats.keys) else b""
            if not key or not record.verify_signature(key):
                raise LocalProtocolError(
                    f"record {record.seq} of our chain is not signed by its seat"
                )
            try:
                self.chain.check_next(record)
            except RecordError as exc:
                raise LocalProtocolError(f"our chain does not chain: {exc}") from None
            self._keep(record, author=None)
        self.restored = len(records)

    def own(self, record: Record) -> list[Outgoing]:
        """The host's own next record: to every joiner, with its receipt.

        A record of ours that crossed a joiner's (the host's session wrote it on a
        head it had not yet seen passed) is void like a joiner's: nothing is sent,
        it goes to ``dropped``, and the session re-signs on the new head.
        """
        if record.author != HOST_SEAT:
            raise LocalProtocolError("the hub's own records are the host's (seat 0)")
        if self._crossed(HOST_SEAT, record):
            self.dropped.append((HOST_SEAT, record))
            return []
        try:
            self.chain.check_next(record)
        except RecordError as exc:
            raise LocalProtocolError(f"our own record does not chain: {exc}") from None
        return self._keep(record, author=None)

    def _from_seat(self, seat: int, data: bytes, malformed: str) -> StarMessage:
        """One message from a joiner's channel; a malformed one is that seat's fault."""
        if seat not in self.seats.joiners:
            raise LocalProtocolError(f"seat {seat} has no channel at this table")
        try:
            return decode_star_message(data)
        except StarWireError as exc:
            raise SeatFault(f"seat {seat} {malformed}: {exc}", seat) from None

    def receive(self, seat: int, data: bytes) -> tuple[Record | None, list[Outgoing]]:
        message = self._from_seat(seat, data, "sent a malformed star message")
        if isinstance(message, AckMessage):
            return None, self._relay_ack(seat, message.ack)
        if not isinstance(message, RecordMessage):
            raise SeatFault(
                f"seat {seat} sent {type(message).__name__} in the middle of play", seat
            )
        record = message.record
        if record.author != seat:
            raise SeatFault(
                f"seat {seat} sent a record of seat {record.author} on its own channel "
                "(a joiner sends only its own records)",
                seat,
                kind="wrong-seat",
            )
        if message.receipt:
            raise SeatFault(f"seat {seat} sent a receipt: only the host signs those", seat)
        if not record.verify_signature(self.seats.keys[seat]):
            raise CheatingDetected(
                f"record {record.seq} from seat {seat} is not signed by its key", seat
            )
        if self._crossed(seat, record):
            self.dropped.append((seat, record))
            return None, []
        try:
            self.chain.check_next(record)
        except RecordError as exc:
            raise SeatFault(f"seat {seat}: {exc}", seat, kind="unchained") from None
        return record, self._keep(record, author=seat)

    def _crossed(self, seat: int, record: Record) -> bool:
        """True if ``record`` lost a race: it chains to a head the host held, since passed
        (or to such a record of the same seat); the host's order wins and it is void."""
        if record.prev in self._void[seat]:
            self._void[seat].add(record.digest)
            return True
        if not record.seq < self.chain.next_seq:
            return False
        parent = self.digests[record.seq - 1] if record.seq > 0 else GENESIS
        if record.prev != parent:
            return False
        self._void[seat].add(record.digest)
        return True

    def _keep(self, record: Record, author: int | None) -> list[Outgoing]:
        if self.journal is not None:
            self.journal(record)
        self.chain.advance(record)
        self.digests.append(record.digest)
        receipt = receipt_for(self.seats, record, self._sign)
        self.records.append(record)
        self.receipts.append(receipt.signature)
        out: list[Outgoing] = []
        for seat in self.seats.joiners:
            if seat == author:
                out.append((seat, AckMessage(receipt).encode()))
            else:
                out.append((seat, RecordMessage(record, receipt.signature).encode()))
        return out

    def catch_up(self, seat: int, data: bytes) -> list[bytes]:
        """What a reconnected joiner lacks, from its first message (a ``ResumeRequest``).

        Our ``ResumeReply`` first, then every record from where it stands, each
        exactly as it went live: another seat's record with its receipt, the
        joiner's own with the receipt alone. Everything comes from the one chain
        the receipts already signed, so the joiner sees nothing new about a
        position it holds (SPEC "Reconnecting through the star").
        """
        request = self._from_seat(seat, data, "resumed with a malformed message")
        if not isinstance(request, ResumeRequest):
            raise SeatFault(f"seat {seat} reconnected without resynchronising first", seat)
        have = request.have
        if have > len(self.digests):
            raise SeatFault(
                f"seat {seat} resumed holding {have} receipted records; the chain has "
                f"{len(self.digests)}",
                seat,
                kind="diverged",
            )
        if request.head != (self.digests[have - 1] if have else GENESIS):
            raise SeatFault(
                f"seat {seat} resumed with another record {have - 1} than the chain's",
                seat,
                kind="diverged",
            )
        out = [ResumeReply(len(self.digests), self.acked[seat]).encode()]
        for record, sig in zip(self.records[have:], self.receipts[have:], strict=True):
            if record.author == seat:
                receipt = HeadAck(HOST_SEAT, record.seq, record.digest, sig)
                out.append(AckMessage(receipt).encode())
            else:
                out.append(RecordMessage(record, sig).encode())
        return out

    def _relay_ack(self, seat: int, ack: HeadAck) -> list[Outgoing]:
        if ack.seat != seat:
            raise SeatFault(
                f"seat {seat} sent an acknowledgement signed for seat {ack.seat}",
                seat,
                kind="wrong-seat",
            )
        keys, table = self.seats.keys, self.seats.table
        if not ack.verify_signature(keys[seat], table):
            raise CheatingDetected(f"seat {seat}'s acknowledgement is not signed by its key", seat)
        receipt = ack.host_receipt()
        known = self.digests[ack.seq] if ack.seq < len(self.digests) else None
        if receipt is None or ack.head != known or not receipt.verify_signature(keys[0], table):
            raise SeatFault(
                f"seat {seat} acknowledged record {ack.seq} as a record the host never showed it",
                seat,
                kind="false-ack",
            )
        if ack.seq <= self.acked[seat]:
            raise SeatFault(f"seat {seat} acknowledged record {ack.seq} twice", seat)
        self.acked[seat] = ack.seq
        if ack.seq < self.restored:  # the dead hub may have relayed it: not again
            return []
        encoded = AckMessage(ack).encode()
        return [(other, encoded) for other in self.seats.joiners if other != seat]


@dataclass(frozen=True, slots=True)
class Delivery:
    """What a spoke made of one message: a record for the session (or ``None``), and the
    acknowledgement to send back to the host (or ``None``)."""

    record: Record | None
    reply: bytes | None
    notice: LinkNotice | None = None


class StarSpoke:
    """A joiner's side: trust nothing the host relays (sans-IO).

    ``own(record)`` returns the bytes to send for our own record;
    ``receive(data)`` checks one message from the host. Records come out in
    chain order, each checked for its author's signature and the host's receipt.
    """

    def __init__(self, seats: Seats, seat: int, sign: Sign) -> None:
        if seat not in seats.joiners:
            raise ValueError(f"seat {seat} is not a joiner's seat")
        self.seats = seats
        self.seat = seat
        self._sign = sign
        self.chain = Chain()
        self.digests: list[bytes] = []
        self.log = StatementLog(seats.table, seats.keys)
        self.pending: deque[Record] = deque()
        """Our own records the host has not receipted yet, oldest first."""
        self.acked: dict[int, int] = {s: -1 for s in seats.joiners if s != seat}
        """The last position each other joiner acknowledged, as relayed to us."""
        self.voided: list[Record] = []
        """Our records that crossed another on the way and lost (the host's order wins):
        they are not in the chain; the session re-signs what still matters on the new head."""
        self.last_ack: HeadAck | None = None
        self.live_from = 0
        self.restored = False
        """Records from this position on came live; those before, in a resync's catch-up."""
        self._resend_from: int | None = None
        self._host_holds_ack = -1
        """The last record the host holds our acknowledgement of, as its resync told us: a
        restarted process acknowledged records it had not yet written, and acknowledging
        them again when the catch-up brings them back would be a repeat."""

    def own(self, record: Record) -> bytes:
        """Our own next record (already signed): what to send to the host."""
        if record.author != self.seat:
            raise LocalProtocolError(f"our records are seat {self.seat}'s")
        if len(self.pending) >= MAX_PENDING_OWN:
            raise LocalProtocolError("too many of our records wait for the host's receipt")
        if record.seq < self.chain.next_seq and not self.pending:
            raise Displaced(record.seq)
        try:
            self.chain.check_next(record)
        except RecordError as exc:
            raise LocalProtocolError(f"our own record does not chain: {exc}") from None
        self.chain.advance(record)
        self.digests.append(record.digest)
        self.pending.append(record)
        return RecordMessage(record).encode()

    def receive(self, data: bytes) -> Delivery:
        try:
            message = decode_star_message(data)
        except StarWireError as exc:
            raise RelayFault(f"it sent a malformed message: {exc}", kind="malformed") from None
        if isinstance(message, AckMessage):
            return self._on_ack(message.ack)
        if isinstance(message, LinkNotice):
            if message.seat == self.seat or message.seat not in self.seats.joiners:
                raise RelayFault(f"it sent a link notice about seat {message.seat}", kind="seat")
            return Delivery(None, None, message)
        if not isinstance(message, RecordMessage):
            raise RelayFault(
                f"it sent {type(message).__name__} in the middle of play", kind="order"
            )
        return self._on_record(message.record, message.receipt)

    def restore(self, records: list[Record]) -> None:
        """A restarted joiner: the chain as its replay holds it (checked). Our records at
        its end may never have reached the host: they wait for its receipt, or go again.
        The receipts the killed process held are gone: what it saw is the replay's chain,
        which the resynchronisation's head check holds the host to."""
        if self.chain.next_seq:
            raise LocalProtocolError("only a fresh spoke is restored")
        self.restored = True
        for record in records:
            try:
                self.chain.check_next(record)
            except RecordError as exc:
                raise LocalProtocolError(f"our replay does not chain: {exc}") from None
            self.chain.advance(record)
            self.digests.append(record.digest)
        for record in reversed(records):
            if record.author != self.seat:
                break
            self.pending.appendleft(record)

    @property
    def receipted(self) -> int:
        """How many records of the chain we hold that the host has receipted."""
        return self.chain.next_seq - len(self.pending)

    def resume_request(self) -> bytes:
        """The first message on a new channel to the host: where we stand."""
        have = self.receipted
        return ResumeRequest(have, self.digests[have - 1] if have else GENESIS).encode()

    def resumed(self, data: bytes) -> list[bytes]:
        """The host's ``ResumeReply``: our last acknowledgement if it lacks it (to send
        now); our records it lacks go once its catch-up reaches them (``resends``)."""
        try:
            reply = decode_star_message(data)
        except StarWireError as exc:
            raise RelayFault(
                f"it resumed with a malformed message: {exc}", kind="malformed"
            ) from None
        if not isinstance(reply, ResumeReply):
            raise RelayFault("it did not answer our resynchronisation", kind="order")
        if reply.have < self.receipted:
            raise RelayFault(
                f"it resumed holding {reply.have} records, fewer than the {self.receipted} "
                "it had receipted to us (it dropped records)",
                kind="order",
            )
        # a restarted process lost its acknowledgements, and it acknowledged records it had
        # not yet written to its replay: the host may hold one of ours for any record it has
        ours = self.last_ack.seq if self.last_ack is not None else -1
        if reply.acked > (reply.have - 1 if self.restored else ours):
            raise RelayFault(
                f"it holds our acknowledgement of record {reply.acked}, which we never sent",
                kind="false-ack",
            )
        self.live_from = reply.have
        self._resend_from = reply.have
        self._host_holds_ack = reply.acked
        last = self.last_ack
        return [AckMessage(last).encode()] if last is not None and last.seq > reply.acked else []

    def resends(self) -> list[bytes]:
        """Our records the host lacked at the resync, once its catch-up has reached them
        (those that crossed another record in the meantime are void, not sent)."""
        if self._resend_from is None or self.receipted < self._resend_from:
            return []
        self._resend_from = None
        return [RecordMessage(record).encode() for record in self.pending]

    @property
    def head(self) -> int:
        """The last position we hold (-1: none)."""
        return self.chain.next_seq - 1

    def waiting_for_receipt(self) -> Record | None:
        """Our oldest record the host has not receipted: withheld, if it stays so."""
        return self.pending[0] if self.pending else None

    def behind(self) -> dict[int, int]:
        """Other joiners whose last relayed acknowledgement trails our head, and where it is."""
        return {seat: pos for seat, pos in self.acked.items() if pos < self.head}

    def _log(self, evidence: Evidence) -> None:
        proof = self.log.add(evidence)
        if proof is not None:
            raise ForkProven(proof)

    def _on_record(self, record: Record, receipt_sig: bytes) -> Delivery:
        keys, table = self.seats.keys, self.seats.table
        where = f"record {record.seq} (seat {record.author})"
        if record.author >= len(keys):
            raise RelayFault(f"it relayed {where}, but the table has no such seat", kind="seat")
        if not record.verify_signature(keys[record.author]):
            raise RelayFault(f"it relayed {where} with a wrong signature", kind="signature")
        receipt = HeadAck(HOST_SEAT, record.seq, record.digest, receipt_sig)
        if not receipt_sig or not receipt.verify_signature(keys[HOST_SEAT], table):
            raise RelayFault(f"it relayed {where} without its valid receipt", kind="receipt")
        self._log(Evidence(receipt, record))  # a fork against an earlier receipt: proven here
        if record.author == self.seat:
            raise RelayFault(f"it sent us {where}, our own, back", kind="echo")
        if self.pending and self._crossing(record):
            self._void_pending()
        if self.pending:
            raise RelayFault(
                f"it relayed {where} before its receipt for our record {self.pending[0].seq}",
                kind="order",
            )
        if record.seq < self.chain.next_seq:
            raise RelayFault(f"it relayed {where} again (a duplicate)", kind="duplicate")
        if record.seq > self.chain.next_seq:
            raise RelayFault(
                f"it relayed {where} while record {self.chain.next_seq} was due "
                "(records dropped or reordered)",
                kind="order",
            )
        if record.prev != self.chain.head:  # unreachable: the receipt's claim clashed above
            raise RelayFault(f"{where} does not chain to the head it showed us", kind="fork")
        self.chain.advance(record)
        self.digests.append(record.digest)
        return Delivery(record, self._acknowledge(record, receipt_sig))

    def _crossing(self, record: Record) -> bool:
        """True if ``record`` takes the place of our oldest unreceipted one (same seq and
        parent): the two crossed, and the host's order put the other one first."""
        mine = self.pending[0]
        return (record.seq, record.prev) == (mine.seq, mine.prev)

    def _void_pending(self) -> None:
        first = self.pending[0].seq
        self.voided.extend(self.pending)
        self.pending.clear()
        del self.digests[first:]
        self.chain.next_seq = first
        self.chain.head = self.digests[-1] if self.digests else GENESIS

    def _acknowledge(self, record: Record, receipt_sig: bytes) -> bytes | None:
        ack = make_head_ack(
            self.seats.table, self.seat, record.seq, record.digest, self._sign, receipt=receipt_sig
        )
        self._log(Evidence(ack, record))
        self.last_ack = ack
        return AckMessage(ack).encode() if record.seq > self._host_holds_ack else None

    def _on_ack(self, ack: HeadAck) -> Delivery:
        keys, table = self.seats.keys, self.seats.table
        if ack.seat == HOST_SEAT:
            return self._on_receipt(ack)
        if ack.seat == self.seat or ack.seat not in self.acked:
            raise RelayFault(f"it relayed an acknowledgement of seat {ack.seat}", kind="seat")
        receipt = ack.host_receipt()
        assert receipt is not None  # a joiner's acknowledgement always carries one
        if not ack.verify_signature(keys[ack.seat], table) or not receipt.verify_signature(
            keys[HOST_SEAT], table
        ):
            raise RelayFault(
                f"it relayed seat {ack.seat}'s acknowledgement with a wrong signature",
                kind="signature",
            )
        self._log(Evidence(ack))  # the host's receipt inside clashes with ours: proven
        if ack.seq > self.head:
            raise RelayFault(
                f"it relayed seat {ack.seat}'s acknowledgement of record {ack.seq} before "
                "the record itself",
                kind="order",
            )
        if ack.seq <= self.acked[ack.seat]:
            raise RelayFault(
                f"it relayed seat {ack.seat}'s acknowledgement of record {ack.seq} after a "
                "later one (repeated or reordered)",
                kind="order",
            )
        if ack.head != self.digests[ack.seq]:  # unreachable: the receipts clashed above
            raise RelayFault(f"seat {ack.seat} saw another record {ack.seq}", kind="fork")
        self.acked[ack.seat] = ack.seq
        return Delivery(None, None)

    def _on_receipt(self, receipt: HeadAck) -> Delivery:
        if not receipt.verify_signature(self.seats.keys[HOST_SEAT], self.seats.table):
            raise RelayFault("it sent a receipt with a wrong signature", kind="signature")
        mine = self.pending[0] if self.pending else None
        if mine is None or (receipt.seq, receipt.head) != (mine.seq, mine.digest):
            self._log(Evidence(receipt))  # it contradicts an earlier statement: proven
            raise RelayFault(
                f"it sent a receipt for record {receipt.seq}, which is not our record "
                "waiting for one",
                kind="receipt",
            )
        self._log(Evidence(receipt, mine))
        self.pending.popleft()
        return Delivery(None, self._acknowledge(mine, receipt.signature))
