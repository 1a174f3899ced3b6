"""Two peers wired back to back in memory: whole matches without sockets.

Used by tests (two sessions must end with identical states and identical
records) and by the in-process transport of the match runner. ``Chooser``
is any function from a player's view to a move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from p2p66.engine import PlayerView
from p2p66.session import events as ev
from p2p66.session.peer import Peer
from p2p66.session.records import Record

Chooser = Callable[[PlayerView], int | str]


@dataclass
class PairResult:
    """Both peers after the match, the records each holds, and the events each saw."""

    peers: tuple[Peer, Peer]
    records: tuple[list[Record], list[Record]]
    events: tuple[list[ev.Event], list[ev.Event]] = field(default_factory=lambda: ([], []))


def run_pair(
    peers: tuple[Peer, Peer],
    choosers: tuple[Chooser, Chooser],
    max_records: int = 100_000,
    on_events: Callable[[int, list[ev.Event]], None] | None = None,
) -> PairResult:
    """Shuttle records between two peers until the match ends (or nothing moves).

    ``on_events(seat, events)`` hears each seat's events as they happen (a bot
    told that its hand ended before it is asked about the next one).
    """
    records: tuple[list[Record], list[Record]] = ([], [])
    events: tuple[list[ev.Event], list[ev.Event]] = ([], [])

    def heard(seat: int, new: list[ev.Event]) -> None:
        events[seat].extend(new)
        if on_events is not None and new:
            on_events(seat, new)

    for seat in (0, 1):
        heard(seat, peers[seat].start())
    while len(records[0]) < max_records:
        moved = False
        for seat in (0, 1):
            peer, other = peers[seat], peers[1 - seat]
            for record in peer.data_to_send():
                records[seat].append(record)
                records[1 - seat].append(record)
                heard(1 - seat, other.receive_data(record.encode()))
                moved = True
        if peers[0].machine.over and peers[1].machine.over:
            break
        for seat in (0, 1):
            peer = peers[seat]
            if peer.needs_move:
                view = peer.view()
                assert view is not None
                heard(seat, peer.play(choosers[seat](view)))
                moved = True
        if not moved:
            break
    return PairResult(peers, records, events)
