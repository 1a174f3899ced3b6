"""How each other seat's link looks from this seat of the star: linked, quiet, lost, reconnecting.

Read-only: it looks at what ``HubLinks`` / ``SpokeLink`` already know and
changes nothing. What a seat can tell:

- **the host** (``hub_links``) has a channel to every joiner:
  ``reconnecting`` once it ended, while the seat's grace runs; ``lost`` past
  it; ``quiet N s`` when a joiner has not acknowledged a record the hub
  kept N seconds ago (acknowledgements are automatic, so a live link answers
  at once; a person thinking over a move owes none);
- **a joiner** (``spoke_links``) has one channel, to the host:
  ``reconnecting`` while it redials, ``lost`` once it gave up (then the
  others cannot be reached either), ``quiet N s`` when the host has not
  receipted our record for N s. The other joiners it sees only through what
  the host relays of them: the host's notices (``reconnecting``, ``gone``:
  lost) and their acknowledgements. One that has not acknowledged a record
  we have held for N s is ``quiet N s`` (the joiner, or the host not passing
  on its acknowledgement).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final, Protocol

from p2p66.live.starlink import HubLinks, SpokeLink
from p2p66.session.headacks import HOST_SEAT

QUIET_AFTER: Final = 5.0
"""Seconds an owed acknowledgement or receipt may take before the link shows as quiet."""


class LinkStatus(Enum):
    LINKED = "linked"
    QUIET = "quiet"
    LOST = "lost"
    RECONNECTING = "reconnecting"


@dataclass(frozen=True, slots=True)
class LinkState:
    """Seat ``seat``'s link as this seat sees it; ``quiet_for``: seconds owed, when quiet."""

    seat: int
    status: LinkStatus
    quiet_for: float = 0.0

    def text(self) -> str:
        """ "linked", "quiet 12 s", "lost", "reconnecting"."""
        if self.status is LinkStatus.QUIET:
            return f"quiet {int(self.quiet_for)} s"
        return str(self.status.value)


class HubView(Protocol):
    """What ``hub_links`` reads of ``HubLinks``."""

    kept_at: dict[int, float]

    @property
    def lost(self) -> Collection[int]: ...

    @property
    def gone(self) -> Collection[int]: ...

    @property
    def acked(self) -> Mapping[int, int]: ...


class SpokeView(Protocol):
    """What ``spoke_links`` reads of ``SpokeLink``."""

    held_at: dict[int, float]

    @property
    def ended(self) -> Exception | None: ...

    @property
    def reconnecting(self) -> bool: ...

    @property
    def announced(self) -> Mapping[int, str]: ...

    @property
    def acked(self) -> Mapping[int, int]: ...

    @property
    def head(self) -> int: ...

    @property
    def unreceipted(self) -> int | None: ...


def _owed(seat: int, acked: int, last: int, since: Mapping[int, float], now: float) -> LinkState:
    """Linked, or quiet for as long as ``seat`` owes an acknowledgement of ``acked + 1``."""
    owed = acked + 1
    if owed <= last and owed in since and now - since[owed] >= QUIET_AFTER:
        return LinkState(seat, LinkStatus.QUIET, now - since[owed])
    return LinkState(seat, LinkStatus.LINKED)


def hub_links(hub: HubView, now: float | None = None) -> tuple[LinkState, ...]:
    """The host's view of every joiner's link, by seat."""
    now = time.monotonic() if now is None else now
    last = max(hub.kept_at, default=-1)
    out = []
    for seat, acked in sorted(hub.acked.items()):
        if seat in hub.gone:
            out.append(LinkState(seat, LinkStatus.LOST))
        elif seat in hub.lost:
            out.append(LinkState(seat, LinkStatus.RECONNECTING))
        else:
            out.append(_owed(seat, acked, last, hub.kept_at, now))
    return tuple(out)


ANNOUNCED: Final = {"reconnecting": LinkStatus.RECONNECTING, "gone": LinkStatus.LOST}
"""The host's notices of a joiner's link (``starwire.LinkNotice``; "back" is linked)."""


def spoke_links(spoke: SpokeView, now: float | None = None) -> tuple[LinkState, ...]:
    """A joiner's view: the host's link first, then every other joiner's, by seat."""
    now = time.monotonic() if now is None else now
    seats = [HOST_SEAT, *sorted(spoke.acked)]
    if spoke.ended is not None:
        return tuple(LinkState(s, LinkStatus.LOST) for s in seats)
    pending = spoke.unreceipted
    if spoke.reconnecting:
        host = LinkState(HOST_SEAT, LinkStatus.RECONNECTING)
    elif pending is not None and pending in spoke.held_at:
        host = _owed(HOST_SEAT, pending - 1, pending, spoke.held_at, now)
    else:
        host = LinkState(HOST_SEAT, LinkStatus.LINKED)
    others = []
    for s in seats[1:]:
        told = ANNOUNCED.get(spoke.announced.get(s, ""))
        others.append(
            LinkState(s, told)
            if told is not None
            else _owed(s, spoke.acked[s], spoke.head, spoke.held_at, now)
        )
    return (host, *others)


def link_states(link: object, now: float | None = None) -> tuple[LinkState, ...]:
    """The other seats' links from ``link`` (a ``HubLinks`` or a ``SpokeLink``); () otherwise."""
    if isinstance(link, HubLinks):
        return hub_links(_HubFacts(link), now)
    if isinstance(link, SpokeLink):
        return spoke_links(_SpokeFacts(link), now)
    return ()


class _HubFacts:
    """``HubLinks`` as ``HubView``: its own sets, the hub's acknowledgements."""

    def __init__(self, link: HubLinks) -> None:
        self._link = link
        self.kept_at = link.kept_at

    @property
    def lost(self) -> Collection[int]:
        return self._link.lost

    @property
    def gone(self) -> Collection[int]:
        return self._link.gone

    @property
    def acked(self) -> Mapping[int, int]:
        return self._link.hub.acked


class _SpokeFacts:
    """``SpokeLink`` as ``SpokeView``: the spoke's chain, acknowledgements and receipts."""

    def __init__(self, link: SpokeLink) -> None:
        self._link = link
        self.held_at = link.held_at

    @property
    def ended(self) -> Exception | None:
        return self._link.ended

    @property
    def reconnecting(self) -> bool:
        return self._link.reconnecting

    @property
    def announced(self) -> Mapping[int, str]:
        return self._link.announced

    @property
    def acked(self) -> Mapping[int, int]:
        return self._link.spoke.acked

    @property
    def head(self) -> int:
        return self._link.spoke.head

    @property
    def unreceipted(self) -> int | None:
        pending = self._link.spoke.waiting_for_receipt()
        return None if pending is None else pending.seq
