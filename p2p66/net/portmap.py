"""Port mapping on the home router, so that someone across the internet can reach our port.

Two protocols, both through libraries (no SSDP, SOAP or packet layout written here):

- UPnP IGD (v1 and v2) with ``async-upnp-client``: SSDP discovery, the
  ``WANIPConnection`` port mapping and external address, and IGDv2's
  ``WANIPv6FirewallControl`` pinholes for IPv6 (found by a second SSDP search
  over IPv6, because a router only lets a client open a pinhole for the
  address it talks from).
- NAT-PMP (RFC 6886) with ``py-natpmp``'s request and response classes, sent
  over an asyncio UDP socket of ours to the default gateway: the library's
  own sender blocks for up to a minute (RFC back-off) and leaks its socket.

``PortMapping.open`` finds a router (both protocols at once, first answer
wins), maps the port with a lease, and opens IPv6 pinholes; while it is open
a task renews everything at half the lease; ``aclose`` removes it all. Every
router call has a short timeout: a silent or broken router costs seconds, not
a hang. Failures are ``PortMapError`` (culprit ``network``: the router).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import random
import socket
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol
from urllib.parse import urlparse

from natpmp import NATPMP

from p2p66.net.errors import NetworkError
from p2p66.net.reach import interface_index, is_carrier_grade

if TYPE_CHECKING:
    from async_upnp_client.exceptions import UpnpActionError
    from async_upnp_client.profiles.igd import IgdDevice
    from async_upnp_client.utils import CaseInsensitiveDict


class _NotImportedYet(Exception):
    """Stands for ``UpnpError`` until ``find_upnp`` imports async-upnp-client (which
    brings aiohttp, a large import): before that, nothing can raise a UPnP error."""


UpnpError: type[Exception] = _NotImportedYet


def _import_upnp() -> None:
    global UpnpError  # the stand-in above becomes the real class
    from async_upnp_client.exceptions import UpnpError as imported

    UpnpError = imported


SEARCH_TIMEOUT: Final = 1.5
CALL_TIMEOUT: Final = 3.0
LEASE: Final = 1200
MIN_RENEW = 1.0  # seconds between renewals at the least, whatever lease the router grants
DESCRIPTION: Final = "p2p66"
IGD_SEARCH: Final = "urn:schemas-upnp-org:device:InternetGatewayDevice:1"
SSDP_V6: Final = "ff02::c"
NATPMP_PORT: Final = 5351
NATPMP_WAITS: Final = (0.25, 0.5, 1.0)
UPNP_CONFLICT: Final = 718
UPNP_ONLY_PERMANENT: Final = 725
PROTOCOL_TCP: Final = 6


class PortMapError(NetworkError):
    """No router mapped the port: none answered, or it refused (the message says which).

    ``external_address`` is the router's outside address when it told us one
    before refusing (enough for a reply code and a simultaneous open).
    """

    def __init__(self, message: str, external_address: str | None = None) -> None:
        super().__init__(message)
        self.external_address = external_address


@dataclass(frozen=True, slots=True)
class Mapping:
    """One TCP port forwarded by the router: ``external_address:external_port`` -> ours."""

    method: str
    router: str
    external_address: str | None
    external_port: int
    internal_address: str
    internal_port: int
    lease: int

    @property
    def carrier_grade(self) -> bool:
        """The router's outside is itself behind a NAT: the mapping is not reachable."""
        return self.external_address is not None and is_carrier_grade(self.external_address)


@dataclass(frozen=True, slots=True)
class Pinhole:
    """An IPv6 firewall opening on the router for ``address``:``port`` (IGDv2)."""

    address: str
    port: int
    unique_id: int
    lease: int


class Router(Protocol):
    """What a mapping needs from a router, whichever protocol it speaks."""

    method: str
    address: str

    async def external_address(self) -> str | None: ...

    async def add(
        self, internal_address: str, port: int, external_port: int, lease: int
    ) -> Mapping: ...

    async def remove(self, mapping: Mapping) -> None: ...

    async def close(self) -> None: ...


def _source_address(router: str) -> str:
    """Our address on the path to ``router`` (a connected UDP socket sends nothing)."""
    family = socket.AF_INET6 if ":" in router else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as sock:
        sock.connect((router, 9))
        return str(sock.getsockname()[0])


# --- UPnP IGD ---------------------------------------------------------------------------


class UpnpRouter:
    """An Internet Gateway Device found by SSDP, driven through async-upnp-client."""

    method = "UPnP IGD"

    def __init__(self, igd: IgdDevice, address: str) -> None:
        self.igd = igd
        self.address = address

    async def external_address(self) -> str | None:
        async with asyncio.timeout(CALL_TIMEOUT):
            found = await self.igd.async_get_external_ip_address()
        return found or None

    async def add(
        self, internal_address: str, port: int, external_port: int, lease: int
    ) -> Mapping:
        from async_upnp_client.exceptions import UpnpActionError

        action = self.igd._any_action(["WANIPC", "WANPPPC"], "AddPortMapping")
        if action is None:
            raise PortMapError(f"the router at {self.address} has no port-mapping service")
        for lease_asked in (lease, 0):
            try:
                async with asyncio.timeout(CALL_TIMEOUT):
                    # Called directly, not through IgdDevice.async_add_port_mapping, for
                    # NewRemoteHost "" (any remote host, as the spec writes it): with
                    # "0.0.0.0" miniupnpd refuses the renewal of its own mapping (718).
                    await action.async_call(
                        NewRemoteHost="",
                        NewExternalPort=external_port,
                        NewProtocol="TCP",
                        NewInternalPort=port,
                        NewInternalClient=str(ipaddress.IPv4Address(internal_address)),
                        NewEnabled=True,
                        NewPortMappingDescription=DESCRIPTION,
                        NewLeaseDuration=lease_asked,
                    )
            except UpnpActionError as exc:
                if exc.error_code == UPNP_ONLY_PERMANENT and lease_asked:
                    continue  # an old router: permanent leases only (we remove it at the end)
                raise _refused(self, exc) from None
            break
        external = await self.external_address()
        return Mapping(
            self.method, self.address, external, external_port, internal_address, port, lease
        )

    async def remove(self, mapping: Mapping) -> None:
        async with asyncio.timeout(CALL_TIMEOUT):
            await self.igd.async_delete_port_mapping(
                remote_host=ipaddress.IPv4Address("0.0.0.0"),
                external_port=mapping.external_port,
                protocol="TCP",
            )

    async def add_pinhole(self, address: str, port: int, lease: int) -> Pinhole:
        from async_upnp_client.exceptions import UpnpActionError

        action = self.igd._action("WANIP6FC", "AddPinhole")
        if action is None:
            raise PortMapError(f"the router at {self.address} has no IPv6 firewall control")
        try:
            async with asyncio.timeout(CALL_TIMEOUT):
                result = await action.async_call(
                    RemoteHost="",  # any remote host ("::" would mean only the source ::)
                    RemotePort=0,
                    InternalClient=address,
                    InternalPort=port,
                    Protocol=PROTOCOL_TCP,
                    LeaseTime=lease,
                )
        except UpnpActionError as exc:
            raise _refused(self, exc) from None
        return Pinhole(address, port, int(result["UniqueID"]), lease)

    async def renew_pinhole(self, pinhole: Pinhole) -> None:
        async with asyncio.timeout(CALL_TIMEOUT):
            await self.igd.async_update_pinhole(pinhole.unique_id, pinhole.lease)

    async def remove_pinhole(self, pinhole: Pinhole) -> None:
        async with asyncio.timeout(CALL_TIMEOUT):
            await self.igd.async_delete_pinhole(pinhole.unique_id)

    async def close(self) -> None:
        return None


def _refused(router: UpnpRouter, exc: UpnpActionError) -> PortMapError:
    reason = exc.error_desc or "refused"
    return PortMapError(
        f"the router at {router.address} refused the mapping (UPnP error {exc.error_code}: "
        f"{reason})"
    )


async def find_upnp(
    timeout: float = SEARCH_TIMEOUT, source: str | None = None
) -> UpnpRouter | None:
    """The first Internet Gateway Device that answers an SSDP search within ``timeout`` s.

    ``source``: an IPv6 address to search from (link-local multicast on its
    interface), to talk to the router over IPv6; default IPv4 multicast.
    """
    # Imported here, not at the top: async-upnp-client brings aiohttp (a large import),
    # and ``host`` with --no-upnp, --help or on loopback never needs it.
    _import_upnp()
    from async_upnp_client.aiohttp import AiohttpRequester
    from async_upnp_client.client_factory import UpnpFactory
    from async_upnp_client.profiles.igd import IgdDevice
    from async_upnp_client.search import SsdpSearchListener

    loop = asyncio.get_running_loop()
    found: asyncio.Future[str] = loop.create_future()

    def on_response(headers: CaseInsensitiveDict) -> None:
        location = headers.get_lower("location")
        if location and not found.done():
            found.set_result(str(location))

    if source is None:
        listener = SsdpSearchListener(callback=on_response, search_target=IGD_SEARCH, timeout=1)
    else:
        scope = interface_index(source)
        listener = SsdpSearchListener(
            callback=on_response,
            search_target=IGD_SEARCH,
            timeout=1,
            source=(source, 0, 0, scope),
            target=(SSDP_V6, 1900, 0, scope),
        )
    try:
        await listener.async_start()
    except (OSError, UpnpError):
        return None
    try:
        async with asyncio.timeout(timeout):
            listener.async_search()
            location = await asyncio.shield(found)
    except TimeoutError:
        return None
    except OSError:
        return None
    finally:
        listener.async_stop()
    try:
        async with asyncio.timeout(CALL_TIMEOUT):
            factory = UpnpFactory(AiohttpRequester(int(CALL_TIMEOUT)), non_strict=True)
            device = await factory.async_create_device(location)
    except (TimeoutError, UpnpError, OSError):
        return None
    host = urlparse(location).hostname or "?"
    return UpnpRouter(IgdDevice(device, None), host)


# --- NAT-PMP ----------------------------------------------------------------------------


def default_gateway(route_file: Path = Path("/proc/net/route")) -> str | None:
    """The IPv4 default gateway (Linux's routing table; ``None`` elsewhere or without one)."""
    try:
        lines = route_file.read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) > 3 and fields[1] == "00000000" and int(fields[3], 16) & 2:
            return socket.inet_ntoa(struct.pack("<I", int(fields[2], 16)))
    return None


class _Datagram(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.replies: asyncio.Queue[bytes] = asyncio.Queue()

    def datagram_received(self, data: bytes, addr: tuple[str | object, ...]) -> None:
        self.replies.put_nowait(data)


class NatPmpRouter:
    """A gateway that answers NAT-PMP on UDP 5351."""

    method = "NAT-PMP"

    def __init__(self, gateway: str, external: str | None = None) -> None:
        self.address = gateway
        self._external = external

    async def _ask(self, request: bytes, opcode: int, size: int) -> bytes:
        loop = asyncio.get_running_loop()
        transport, protocol = await loop.create_datagram_endpoint(
            _Datagram, remote_addr=(self.address, NATPMP_PORT)
        )
        try:
            for wait in NATPMP_WAITS:
                transport.sendto(request)
                try:
                    async with asyncio.timeout(wait):
                        while True:
                            data = await protocol.replies.get()
                            if len(data) >= size and data[1] == 128 + opcode:
                                return data
                except TimeoutError:
                    continue
        finally:
            transport.close()
        raise PortMapError(f"the gateway {self.address} does not answer NAT-PMP")

    async def external_address(self) -> str | None:
        if self._external is None:
            data = await self._ask(NATPMP.PublicAddressRequest().toBytes(), 0, 12)
            reply = NATPMP.PublicAddressResponse(data[:12])
            if reply.result != 0:
                raise PortMapError(
                    f"the gateway {self.address} has no external address via NAT-PMP: "
                    f"{NATPMP.error_str(reply.result)}"
                )
            self._external = str(reply.ip)
        return self._external

    async def add(
        self, internal_address: str, port: int, external_port: int, lease: int
    ) -> Mapping:
        reply = await self._map(port, external_port, lease)
        if reply.result != 0:
            raise PortMapError(
                f"the gateway {self.address} refused the mapping (NAT-PMP: "
                f"{NATPMP.error_str(reply.result).strip()})"
            )
        external = await self.external_address()
        return Mapping(
            self.method,
            self.address,
            external,
            int(reply.public_port),
            internal_address,
            port,
            int(reply.lifetime),
        )

    async def _map(self, port: int, external_port: int, lease: int) -> NATPMP.PortMapResponse:
        request = NATPMP.PortMapRequest(NATPMP.NATPMP_PROTOCOL_TCP, port, external_port, lease)
        data = await self._ask(request.toBytes(), NATPMP.NATPMP_PROTOCOL_TCP, 16)
        return NATPMP.PortMapResponse(data[:16])

    async def remove(self, mapping: Mapping) -> None:
        await self._map(mapping.internal_port, 0, 0)

    async def close(self) -> None:
        return None


async def find_natpmp(gateway: str | None = None) -> NatPmpRouter | None:
    """The default gateway, if it answers a NAT-PMP external-address request."""
    gateway = gateway or default_gateway()
    if gateway is None:
        return None
    router = NatPmpRouter(gateway)
    try:
        await router.external_address()
    except (PortMapError, OSError):
        return None
    return router


async def find_router(timeout: float = SEARCH_TIMEOUT) -> Router | None:
    """UPnP and NAT-PMP at once: the first router that answers (UPnP if both do)."""
    natpmp = asyncio.create_task(find_natpmp())  # first: its request leaves before the
    upnp = asyncio.create_task(find_upnp(timeout))  # UPnP library is imported
    try:
        router: Router | None = await upnp
        if router is None:
            router = await natpmp
        return router
    finally:
        natpmp.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await natpmp


# --- the mapping kept while hosting -----------------------------------------------------


@dataclass
class PortMapping:
    """A port forwarded (and IPv6 pinholes opened) for as long as this object is open."""

    router: Router
    mapping: Mapping
    pinholes: list[Pinhole] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    on_problem: Callable[[str], None] | None = None
    pinhole_router: UpnpRouter | None = None
    _renewer: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls,
        port: int,
        *,
        ipv6: Sequence[str] = (),
        timeout: float = SEARCH_TIMEOUT,
        lease: int = LEASE,
        on_problem: Callable[[str], None] | None = None,
    ) -> PortMapping:
        """Find a router and map TCP ``port``; ``PortMapError`` if none could."""
        router = await find_router(timeout)
        if router is None:
            raise PortMapError(
                f"no router answered UPnP or NAT-PMP within {timeout:g} s (switched off on "
                "the router, or there is none)"
            )
        internal = _source_address(router.address)
        try:
            external = await router.external_address()
        except (PortMapError, UpnpError, OSError, TimeoutError):
            external = None
        try:
            mapping = await _add_with_fallback(router, internal, port, lease)
        except PortMapError as exc:
            raise PortMapError(str(exc), external) from None
        session = cls(router, mapping, on_problem=on_problem)
        for address in ipv6:
            await session._open_pinhole(address, port, lease, timeout)
        session.start_renewing()
        return session

    def start_renewing(self) -> None:
        """Renew at half the lease from now on, until ``aclose``."""
        if self._renewer is None:
            self._renewer = asyncio.create_task(self._renew_forever())

    async def _open_pinhole(self, address: str, port: int, lease: int, timeout: float) -> None:
        router = await find_upnp(timeout, source=address)
        if router is None:
            self._problem(f"no router answered UPnP over IPv6 for {address}: no IPv6 pinhole")
            return
        try:
            self.pinholes.append(await router.add_pinhole(address, port, lease))
            self.pinhole_router = router
        except (PortMapError, UpnpError, TimeoutError) as exc:
            self._problem(f"no IPv6 pinhole for [{address}]:{port}: {exc}")

    def _problem(self, text: str) -> None:
        self.problems.append(text)
        if self.on_problem is not None:
            self.on_problem(text)

    async def renew(self) -> None:
        """Ask for the same mapping (and pinholes) again, which restarts their leases."""
        m = self.mapping
        self.mapping = await self.router.add(
            m.internal_address, m.internal_port, m.external_port, m.lease or LEASE
        )
        if self.pinhole_router is not None:
            for pinhole in self.pinholes:
                await self.pinhole_router.renew_pinhole(pinhole)

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(max(MIN_RENEW, (self.mapping.lease or LEASE) / 2))
            try:
                await self.renew()
            except (PortMapError, UpnpError, OSError, TimeoutError) as exc:
                self._problem(f"renewing the port mapping failed (will retry): {exc}")

    async def aclose(self) -> None:
        """Stop renewing and remove the mapping and pinholes (best effort, a few seconds).

        A cancellation (the stop signal arriving while we already clean up) waits
        for the removal to finish first, then goes on: it must not leave the
        mapping on the router. Every router call has a timeout, so this is bounded.
        """
        removing = asyncio.ensure_future(self._remove())
        cancelled = False
        while not removing.done():
            try:
                await asyncio.shield(removing)
            except asyncio.CancelledError:
                cancelled = True
        removing.result()
        if cancelled:
            raise asyncio.CancelledError

    async def _remove(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
            self._renewer = None
        with contextlib.suppress(PortMapError, UpnpError, OSError, TimeoutError):
            await self.router.remove(self.mapping)
        if self.pinhole_router is not None:
            for pinhole in self.pinholes:
                with contextlib.suppress(PortMapError, UpnpError, OSError, TimeoutError):
                    await self.pinhole_router.remove_pinhole(pinhole)
        self.pinholes.clear()
        await self.router.close()

    async def __aenter__(self) -> PortMapping:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


async def _add_with_fallback(router: Router, internal: str, port: int, lease: int) -> Mapping:
    """The same external port if free, else a random high one (another machine may hold it)."""
    try:
        return await router.add(internal, port, port, lease)
    except PortMapError as exc:
        first = exc
    except (UpnpError, OSError, TimeoutError) as exc:
        raise PortMapError(f"the router at {router.address} failed: {exc}") from None
    try:
        return await router.add(internal, port, random.randrange(20000, 60000), lease)
    except (PortMapError, UpnpError, OSError, TimeoutError):
        raise first from None
