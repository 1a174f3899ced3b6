"""Where a host listens and which addresses its join codes name.

A host listens on every address family at *one* port: with ``--port 0`` the
first socket picks a free port and every other family binds that same port
(retrying with a fresh port if another program holds it in that family), so
one number is right for every code. ``join_addresses`` turns what was bound
into the addresses a joiner can use: every non-loopback IPv4 address and
every global or unique-local IPv6 address of a wildcard family, the bound
address itself otherwise, and a loopback address only when nothing else is
there (``127.0.0.1`` only if IPv4 is bound at all). Link-local IPv6
addresses are left out: they need a zone (``%eth0``) that means nothing on
the joiner's machine.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

import ifaddr

PORT_RANGE: Final = range(65536)
BIND_ATTEMPTS: Final = 20
LISTEN_BACKLOG: Final = 128
WILDCARDS: Final = frozenset({"0.0.0.0", "::"})


class BindError(OSError):
    """The host cannot listen where it was asked to; the message says where and why."""


@dataclass(frozen=True, slots=True)
class Bound:
    """One listening socket's address, port and family (4 or 6)."""

    address: str
    port: int

    @property
    def family(self) -> int:
        return 6 if ":" in self.address else 4

    @property
    def wildcard(self) -> bool:
        return self.address in WILDCARDS


def check_port(port: int) -> int:
    """``port`` if it is a TCP port to listen on (0 picks a free one), else ``BindError``."""
    if port not in PORT_RANGE:
        raise BindError(f"the port {port} is outside 0..65535 (0 picks any free port)")
    return port


def _family_supported(family: socket.AddressFamily) -> bool:
    try:
        with socket.socket(family, socket.SOCK_STREAM):
            return True
    except OSError:
        return False


def listen_targets(bind: str | None) -> list[tuple[socket.AddressFamily, str]]:
    """The (family, address) pairs to listen on: both wildcards, or what ``bind`` resolves to."""
    if bind in (None, ""):
        wanted = [(socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")]
        targets = [(fam, addr) for fam, addr in wanted if _family_supported(fam)]
        if not targets:
            raise BindError("this machine supports neither IPv4 nor IPv6 sockets")
        return targets
    try:
        infos = socket.getaddrinfo(
            bind, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE | socket.AI_ADDRCONFIG
        )
    except socket.gaierror as exc:
        raise BindError(f"cannot listen on {bind!r}: {exc.strerror}") from None
    seen: list[tuple[socket.AddressFamily, str]] = []
    for family, _, _, _, sockaddr in infos:
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        target = (family, str(sockaddr[0]))
        if target not in seen:
            seen.append(target)
    if not seen:
        raise BindError(f"{bind!r} has no IPv4 or IPv6 address to listen on")
    seen.sort(key=lambda t: t[0] != socket.AF_INET6)  # IPv6 first, as for the wildcards
    return seen


def _bound_socket(family: socket.AddressFamily, address: str, port: int) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            # Each family gets its own socket, so an IPv6 wildcard must not take IPv4 too.
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((address, port))
        sock.listen(LISTEN_BACKLOG)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def bind_one_port(bind: str | None, port: int) -> list[socket.socket]:
    """Listening sockets for every target of ``bind``, all on the same port.

    With ``port`` 0 the first socket chooses the port and the others follow;
    if another program already holds that port in another family, everything
    is closed and tried again with a new port (``BIND_ATTEMPTS`` times).
    Listening everywhere (``bind`` None) skips a family this machine has
    switched off (IPv6 disabled), as long as one family listens.
    """
    check_port(port)
    targets = listen_targets(bind)
    where = f"{bind or '*'}:{port}"
    last: OSError | None = None
    for _ in range(BIND_ATTEMPTS if port == 0 else 1):
        sockets: list[socket.socket] = []
        try:
            for family, address in targets:
                chosen = sockets[0].getsockname()[1] if sockets else port
                try:
                    sockets.append(_bound_socket(family, address, chosen))
                except OSError as exc:
                    if bind not in (None, "") or exc.errno not in _FAMILY_OFF:
                        raise
                    last = exc
            if sockets:
                return sockets
        except OSError as exc:
            last = exc
            for sock in sockets:
                sock.close()
            if port != 0 or exc.errno != errno.EADDRINUSE:
                break
    reason = last.strerror if last is not None and last.strerror else str(last)
    raise BindError(f"cannot listen on {where}: {reason}")


_FAMILY_OFF: Final = frozenset({errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, errno.EPROTONOSUPPORT})


def _usable(address: ipaddress.IPv4Address | ipaddress.IPv6Address, link_local: bool) -> bool:
    if address.is_loopback or address.is_unspecified or address.is_multicast:
        return False
    ipv6 = isinstance(address, ipaddress.IPv6Address)
    return link_local or not (ipv6 and address.is_link_local)


def local_addresses(
    families: Iterable[int] = (4,),
    include_loopback: bool = False,
    *,
    include_link_local: bool = False,
) -> list[str]:
    """This machine's addresses of ``families`` (4, 6) a joiner could reach, IPv4 first.

    Loopback addresses are left out unless ``include_loopback``, link-local
    IPv6 addresses unless ``include_link_local`` (see the module docstring).
    """
    wanted = set(families)
    found: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            with contextlib.suppress(ValueError):
                address = ipaddress.ip_address(text.split("%")[0])
                if address.version not in wanted or address in found:
                    continue
                if _usable(address, include_link_local) or (
                    include_loopback and address.is_loopback
                ):
                    found.append(address)
    found.sort(key=lambda a: a.version)
    return [str(a) for a in found]


_LOOPBACK: Final = {4: "127.0.0.1", 6: "::1"}


def join_addresses(bound: Iterable[Bound]) -> list[Bound]:
    """The addresses (each with its port) to put in join codes for what was bound."""
    out: list[Bound] = []
    listening = list(bound)
    for b in listening:
        if not b.wildcard:
            out.append(b)
            continue
        out.extend(Bound(a, b.port) for a in local_addresses((b.family,)))
    if not out:  # only loopback is there: offer it for the families that listen
        out = [Bound(_LOOPBACK[b.family], b.port) for b in listening]
    unique: list[Bound] = []
    for b in out:
        if b not in unique:
            unique.append(b)
    unique.sort(key=lambda b: b.family)
    return unique
