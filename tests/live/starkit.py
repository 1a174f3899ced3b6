"""A whole star in memory, sans-IO: a hub, its spokes, and a relay the test may corrupt."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from p2p66.live.star import Delivery, Seats, StarHub, StarSpoke
from p2p66.net.identity import Identity
from p2p66.session.records import Record, make_record

TABLE = hashlib.sha256(b"test table").digest()

Filter = Callable[[int, bytes], list[bytes]]
"""What the relay really sends to ``seat`` instead of ``data`` (a lying host's choice)."""


def identities(n: int) -> list[Identity]:
    return [Identity.from_seed(f"p{i}", bytes([40 + i]) * 32) for i in range(n)]


@dataclass
class Star:
    """Host seat 0 and joiners 1..n-1; ``queues`` holds what is on its way to each spoke."""

    ids: list[Identity]
    seats: Seats
    hub: StarHub
    spokes: dict[int, StarSpoke]
    to_spoke: dict[int, list[bytes]] = field(default_factory=dict)
    to_hub: list[tuple[int, bytes]] = field(default_factory=list)
    delivered: dict[int, list[Record]] = field(default_factory=dict)
    relay: Filter | None = None

    @classmethod
    def of(cls, n: int) -> Star:
        ids = identities(n)
        seats = Seats(TABLE, tuple(i.public_key for i in ids))
        hub = StarHub(seats, ids[0].sign)
        spokes = {s: StarSpoke(seats, s, ids[s].sign) for s in seats.joiners}
        star = cls(ids, seats, hub, spokes)
        star.to_spoke = {s: [] for s in seats.joiners}
        star.delivered = {s: [] for s in range(n)}
        return star

    def record(self, author: int, body: bytes) -> Record:
        """The next record, signed by ``author`` on the hub's chain."""
        chain = self.hub.chain
        return make_record(chain.next_seq, chain.head, author, body, self.ids[author].sign)

    def _out(self, outgoing: list[tuple[int, bytes]]) -> None:
        for seat, data in outgoing:
            sent = self.relay(seat, data) if self.relay is not None else [data]
            self.to_spoke[seat].extend(sent)

    def host_writes(self, record: Record) -> None:
        self._out(self.hub.own(record))

    def joiner_writes(self, record: Record) -> None:
        self.to_hub.append((record.author, self.spokes[record.author].own(record)))

    def step_spoke(self, seat: int) -> Delivery:
        delivery = self.spokes[seat].receive(self.to_spoke[seat].pop(0))
        if delivery.record is not None:
            self.delivered[seat].append(delivery.record)
        if delivery.reply is not None:
            self.to_hub.append((seat, delivery.reply))
        return delivery

    def step_hub(self) -> None:
        seat, data = self.to_hub.pop(0)
        record, outgoing = self.hub.receive(seat, data)
        if record is not None:
            self.delivered[0].append(record)
        self._out(outgoing)

    def flush(self) -> None:
        """Deliver everything in flight, spokes and hub in turn, until nothing moves."""
        while self.to_hub or any(self.to_spoke.values()):
            for seat in self.spokes:
                while self.to_spoke[seat]:
                    self.step_spoke(seat)
            while self.to_hub:
                self.step_hub()
