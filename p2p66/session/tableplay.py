"""N peers around an in-memory relay: whole matches of the games for three and four.

The two-player ``pair`` wires two peers back to back; a table of three or
four needs somebody to carry every record to everybody. ``MemoryRelay`` is
the simplest such carrier: it takes each record a peer sends and hands it,
in the order it took them, to every other peer (a star without a host that
could lie: the network's relay through the host, with its chain-head
cross-checks, is ``p2p66/net/star``). Since every record has one
deterministic author, at most one peer has something to send at a time, so
every peer ends with the same records in the same order.

Used by tests (every peer's records identical, every cheat caught), the
benchmark and the in-process ``play`` of the table presets.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from p2p66.session import events as ev
from p2p66.session.errors import ProtocolError
from p2p66.session.peer import Peer
from p2p66.session.records import Record
from p2p66.session.tablegame import TableSeatView

TableChooser = Callable[[TableSeatView], int | str]
"""A seat's decision: from its view (``TableView`` or ``ThreeHandedView``) to a move."""

Tap = Callable[[int, Record], Sequence[bytes]]
"""What the relay hands on for a record from ``seat``: its bytes, others, several, or none."""


@dataclass
class Delivery:
    """Where the relay stopped on a refused record: who refused it and why."""

    receiver: int
    data: bytes
    error: ProtocolError


@dataclass
class MemoryRelay:
    """Forwards every record to every other peer in one order; stops at the first refusal."""

    peers: Sequence[Peer]
    tap: Tap | None = None
    records: list[Record] = field(default_factory=list)
    """Every record the relay carried, in order (what each honest peer holds)."""
    events: list[list[ev.Event]] = field(default_factory=list)
    refused: Delivery | None = None
    on_events: Callable[[int, list[ev.Event]], None] | None = None

    def __post_init__(self) -> None:
        self.events = [[] for _ in self.peers]

    def heard(self, seat: int, new: list[ev.Event]) -> None:
        self.events[seat].extend(new)
        if self.on_events is not None and new:
            self.on_events(seat, new)

    def start(self) -> None:
        for peer in self.peers:
            self.heard(peer.seat, peer.start())
        self.pump()

    def pump(self) -> bool:
        """Carry records until no peer has any to send; False once a record was refused."""
        queue: deque[tuple[int, Record]] = deque()
        while self.refused is None:
            for peer in self.peers:
                queue.extend((peer.seat, r) for r in peer.data_to_send())
            if not queue:
                return True
            sender, record = queue.popleft()
            sent = [record.encode()] if self.tap is None else self.tap(sender, record)
            for data in sent:
                if not self.deliver(sender, data):
                    return False
        return False

    def deliver(self, sender: int, data: bytes) -> bool:
        """Hand one record's bytes from ``sender`` to every other peer; False if refused."""
        for peer in self.peers:
            if peer.seat == sender:
                continue
            try:
                self.heard(peer.seat, peer.receive_data(data, via=sender))
            except ProtocolError as exc:
                self.refused = Delivery(peer.seat, data, exc)
                return False
        self.records.append(Record.decode(data))
        return True

    @property
    def over(self) -> bool:
        return all(p.machine.over for p in self.peers)


def run_table(
    peers: Sequence[Peer],
    choosers: Sequence[TableChooser],
    *,
    tap: Tap | None = None,
    max_moves: int = 20_000,
    on_events: Callable[[int, list[ev.Event]], None] | None = None,
    until: Callable[[MemoryRelay], bool] | None = None,
) -> MemoryRelay:
    """Play until the match ends, a record is refused, nobody can move, or ``until(relay)``.

    ``choosers[seat]`` decides for a seat whose turn it is; ``tap`` lets a
    test play the lying network or a cheater's link.
    """
    relay = MemoryRelay(peers, tap, on_events=on_events)
    relay.start()
    for _ in range(max_moves):
        if relay.refused is not None or relay.over or (until is not None and until(relay)):
            break
        mover = next((p for p in peers if p.needs_move), None)
        if mover is None:
            break
        view = mover.table_view()
        if view is None:
            break
        relay.heard(mover.seat, mover.play(choosers[mover.seat](view)))
        relay.pump()
    return relay
