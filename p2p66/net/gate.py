"""Admission of unauthenticated connections: nobody can fill the host's door.

Before the handshake proves who a joiner is, a connection costs the host
memory and a slot but proves nothing, so strangers can open many. The gate
keeps at most ``per_source`` such connections from one address and
``total`` overall. When a new connection would go over a limit, the
*oldest* unauthenticated connection (from the same address for the
per-source limit, from anywhere for the total) is dropped to make room: a
flood only pushes out the flood, and a real joiner, who needs a few round
trips, gets in whatever else is connected. The one connection holding the
join code (a well-formed SPAKE2 attempt, see ``CodeSlot``) is never
dropped: it is a real guess and ends within seconds anyway.
"""

from __future__ import annotations

import ipaddress
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

MAX_PER_SOURCE: Final = 128
MAX_TOTAL: Final = 512


@dataclass(eq=False)
class Entry:
    """One connection waiting to authenticate; ``drop`` closes it."""

    source: str
    drop: Callable[[], None]
    order: int = 0
    protected: Callable[[], bool] = field(default=lambda: False)


class Gate:
    """The unauthenticated connections in arrival order, within the limits."""

    def __init__(self, per_source: int = MAX_PER_SOURCE, total: int = MAX_TOTAL) -> None:
        if not 1 <= per_source <= total:
            raise ValueError("the gate needs 1 <= per_source <= total")
        self.per_source = per_source
        self.total = total
        self.dropped = 0
        """How many connections were pushed out so far (for messages and tests)."""
        self._entries: dict[int, Entry] = {}
        self._counter = itertools.count()

    def __len__(self) -> int:
        return len(self._entries)

    def from_source(self, source: str) -> int:
        return sum(1 for e in self._entries.values() if e.source == source)

    def admit(self, entry: Entry) -> bool:
        """Make room for ``entry`` and add it; False if nothing could be dropped for it."""
        crowded = self.from_source(entry.source) >= self.per_source
        if crowded and not self._drop_oldest(lambda e: e.source == entry.source):
            return False
        if len(self._entries) >= self.total and not self._drop_oldest(lambda e: True):
            return False
        entry.order = next(self._counter)
        self._entries[entry.order] = entry
        return True

    def leave(self, entry: Entry) -> None:
        """``entry`` authenticated or ended: it no longer counts."""
        self._entries.pop(entry.order, None)

    def _drop_oldest(self, which: Callable[[Entry], bool]) -> bool:
        for order, entry in self._entries.items():  # insertion order is arrival order
            if which(entry) and not entry.protected():
                del self._entries[order]
                self.dropped += 1
                entry.drop()
                return True
        return False


def source_of(remote: str) -> str:
    """What the per-source limit counts by: the IPv4 address, or the IPv6 /64 network.

    One IPv6 subscriber usually holds a whole /64, so counting single IPv6
    addresses would let one machine look like billions of sources.
    """
    host, _, _ = remote.rpartition(":")
    host = host.strip("[]") or remote
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
