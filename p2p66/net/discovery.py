"""LAN discovery with mDNS/DNS-SD (python-zeroconf): find games without typing an address.

A host ``advertise``s the service type ``_p2p66._tcp.local.`` with TXT
properties ``v`` (p2p66-net protocol version), ``name`` (the host player),
``fp`` (the host's identity fingerprint), ``preset`` (the rule preset) and,
for a table of three or more, ``seats`` (``free/total``, kept up to date by
the lobby with ``Advertisement.set_seats``; ``open_tables`` keeps the games
with a free seat);
``browse`` lists what answers within a timeout. Discovery only says *where*: a
joiner still needs the three words of the join code (or a pinned key), so a
fake advertisement can waste a click but cannot steal a game. Everything in a
TXT record is untrusted text and is shortened and cleaned before it is shown.

``interfaces`` restricts both sides to some addresses; tests use
``["127.0.0.1"]`` so multicast never leaves the loopback interface.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import zeroconf
from zeroconf import IPVersion, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from p2p66.net.addresses import local_addresses
from p2p66.net.handshake import VERSION

SERVICE_TYPE: Final = "_p2p66._tcp.local."
RESOLVE_TIMEOUT: Final = 2.0
_MAX_LABEL_BYTES: Final = 63
_MAX_TEXT: Final = 64


@dataclass(frozen=True, slots=True)
class Game:
    """One advertised game as ``browse`` found it (all text is the host's claim)."""

    instance: str
    name: str
    addresses: tuple[str, ...]
    port: int
    version: str
    fingerprint: str
    preset: str
    properties: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    free_seats: int | None = None
    """Seats still free at a table of three or more (``None``: a two-player game)."""
    total_seats: int | None = None


def parse_seats(text: str) -> tuple[int, int] | None:
    """``free/total`` from an untrusted TXT value, if it is one (0 <= free <= total <= 8)."""
    free, slash, total = text.partition("/")
    if not (slash and free.isdigit() and total.isdigit() and len(free) == len(total) == 1):
        return None
    numbers = int(free), int(total)
    return numbers if numbers[0] <= numbers[1] <= 8 else None


def open_tables(games: list[Game]) -> list[Game]:
    """The games of three or more players that still have a free seat."""
    return [g for g in games if g.free_seats]


def _ip_version(interfaces: Sequence[str] | None) -> IPVersion:
    if not interfaces:
        return IPVersion.All
    families = {ipaddress.ip_address(addr).version for addr in interfaces}
    if families == {4}:
        return IPVersion.V4Only
    if families == {6}:
        return IPVersion.V6Only
    return IPVersion.All


def _zeroconf(interfaces: Sequence[str] | None) -> AsyncZeroconf:
    if interfaces:
        return AsyncZeroconf(interfaces=list(interfaces), ip_version=_ip_version(interfaces))
    return AsyncZeroconf(ip_version=_families_here())


def _families_here() -> IPVersion:
    """Both families where both have a usable address, else the one that has (an IPv6-only LAN)."""
    v4, v6 = bool(local_addresses((4,))), bool(local_addresses((6,), include_link_local=True))
    if v6 and not v4:
        return IPVersion.V6Only
    if v4 and not v6:
        return IPVersion.V4Only
    return IPVersion.All


def _clean(text: str) -> str:
    kept = "".join(ch for ch in text if not unicodedata.category(ch).startswith("C"))
    return kept[:_MAX_TEXT]


def _label(text: str) -> str:
    """``text`` cut to fit one DNS label (63 bytes of UTF-8)."""
    data = text.encode("utf-8")[:_MAX_LABEL_BYTES]
    return data.decode("utf-8", "ignore").strip(" .") or "p2p66"


class Advertisement:
    """A registered game; ``close`` withdraws it (also on leaving ``async with``)."""

    def __init__(self, zc: AsyncZeroconf, info: AsyncServiceInfo) -> None:
        self._zc = zc
        self._info = info
        self._closed = False

    async def set_seats(self, free: int, total: int) -> None:
        """Announce how many seats are still free (best effort: a failed update is dropped,
        since discovery is only a convenience and the join code still works)."""
        if self._closed:
            return
        info = self._info
        properties = {**_decode_properties(info.properties or {}), "seats": f"{free}/{total}"}
        self._info = AsyncServiceInfo(
            info.type,
            info.name,
            addresses=info.addresses,
            port=info.port,
            properties=properties,
            server=info.server,
        )
        with contextlib.suppress(OSError, zeroconf.Error):
            await self._zc.async_update_service(self._info)

    @property
    def instance(self) -> str:
        """The full service instance name as registered (it may have been renamed)."""
        name: str = self._info.name
        return name

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._zc.async_unregister_service(self._info)
        await self._zc.async_close()

    async def __aenter__(self) -> Advertisement:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


async def advertise(
    name: str,
    port: int,
    *,
    fingerprint: str,
    preset: str,
    addresses: Sequence[str] | None = None,
    interfaces: Sequence[str] | None = None,
    seats: tuple[int, int] | None = None,
) -> Advertisement:
    """Announce a game hosted by player ``name`` on ``port``.

    ``seats`` is ``(free, total)`` for a table of three or more players.

    ``addresses`` are those a joiner should connect to (default: the
    ``interfaces`` given, else every usable IPv4 and IPv6 address here).
    """
    if addresses is None:
        addresses = list(interfaces) if interfaces else local_addresses((4, 6))
    instance = f"{_label(f'{name} {fingerprint[:4]}')}.{SERVICE_TYPE}"
    info = AsyncServiceInfo(
        SERVICE_TYPE,
        instance,
        parsed_addresses=list(addresses),
        port=port,
        properties={
            "v": str(VERSION),
            "name": name,
            "fp": fingerprint,
            "preset": preset,
            **({"seats": f"{seats[0]}/{seats[1]}"} if seats is not None else {}),
        },
        server=f"p2p66-{fingerprint[:9]}.local.",
    )
    zc = _zeroconf(interfaces)
    try:
        await zc.async_register_service(info, allow_name_change=True)
    except BaseException:
        await zc.async_close()
        raise
    return Advertisement(zc, info)


def _decode_properties(raw: dict[Any, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in raw.items():
        k = key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)
        v = value.decode("utf-8", "replace") if isinstance(value, bytes) else ""
        out[_clean(k)] = _clean(v)
    return out


def _game(info: AsyncServiceInfo) -> Game | None:
    port = info.port
    addresses = tuple(info.parsed_addresses())
    if not isinstance(port, int) or not addresses:
        return None
    props = _decode_properties(info.properties or {})
    seats = parse_seats(props.get("seats", ""))
    return Game(
        instance=_clean(str(info.name)),
        name=props.get("name", ""),
        addresses=addresses,
        port=port,
        version=props.get("v", ""),
        fingerprint=props.get("fp", ""),
        preset=props.get("preset", ""),
        properties=props,
        free_seats=seats[0] if seats else None,
        total_seats=seats[1] if seats else None,
    )


async def browse(timeout: float = 3.0, *, interfaces: Sequence[str] | None = None) -> list[Game]:
    """Games answering within ``timeout`` seconds, sorted by host name."""
    zc = _zeroconf(interfaces)
    names: set[str] = set()

    def on_change(
        zeroconf: object, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is not ServiceStateChange.Removed:
            names.add(name)

    browser = AsyncServiceBrowser(zc.zeroconf, SERVICE_TYPE, handlers=[on_change])
    try:
        await asyncio.sleep(timeout)
        infos = [AsyncServiceInfo(SERVICE_TYPE, name) for name in sorted(names)]
        answered = await asyncio.gather(
            *(info.async_request(zc.zeroconf, int(RESOLVE_TIMEOUT * 1000)) for info in infos)
        )
    finally:
        await browser.async_cancel()
        await zc.async_close()
    games = [game for info, ok in zip(infos, answered, strict=True) if ok and (game := _game(info))]
    return sorted(games, key=lambda g: (g.name, g.instance))
