"""Who can reach an address: public, shared (carrier-grade NAT), private, or IPv6 global.

Decided by the ranges themselves, not by ``ipaddress.is_private`` /
``is_global``: those also call the documentation ranges (192.0.2.0/24,
198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) non-global, which would make
every address of a test network look private. The rule here is the one that
matters for reaching a home router from the internet:

- ``shared``: 100.64.0.0/10 (RFC 6598), the carrier's side of a carrier-grade NAT;
- ``private``: 10/8, 172.16/12, 192.168/16 (RFC 1918), 169.254/16 (link-local),
  fc00::/7 (unique local) and fe80::/10 (link-local);
- ``loopback``: 127/8 and ::1;
- ``global``: any other IPv4 address, and IPv6 global unicast 2000::/3.
"""

from __future__ import annotations

import ipaddress
from typing import Final, Literal

import ifaddr

Scope = Literal["global", "shared", "private", "loopback", "other"]

SHARED_V4: Final = (ipaddress.IPv4Network("100.64.0.0/10"),)
PRIVATE_V4: Final = tuple(
    ipaddress.IPv4Network(net)
    for net in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16")
)
PRIVATE_V6: Final = tuple(ipaddress.IPv6Network(net) for net in ("fc00::/7", "fe80::/10"))
GLOBAL_V6: Final = ipaddress.IPv6Network("2000::/3")
UNUSABLE_V4: Final = tuple(
    ipaddress.IPv4Network(net) for net in ("0.0.0.0/8", "224.0.0.0/3", "255.255.255.255/32")
)


def scope(address: str) -> Scope:
    """Where ``address`` can be reached from (``ValueError`` if it is not an IP address)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip.is_loopback:
        return "loopback"
    if isinstance(ip, ipaddress.IPv4Address):
        if any(ip in net for net in SHARED_V4):
            return "shared"
        if any(ip in net for net in PRIVATE_V4):
            return "private"
        if any(ip in net for net in UNUSABLE_V4):
            return "other"
        return "global"
    if ip.ipv4_mapped is not None:
        return scope(str(ip.ipv4_mapped))
    if any(ip in net for net in PRIVATE_V6):
        return "private"
    return "global" if ip in GLOBAL_V6 else "other"


def is_carrier_grade(external: str) -> bool:
    """True when a router's *external* address is itself shared or private (a NAT behind a NAT)."""
    return scope(external) in ("shared", "private")


def local_addresses() -> tuple[list[str], list[str]]:
    """This machine's (IPv4, IPv6) addresses, loopback and link-local left out."""
    v4: list[str] = []
    v6: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                if scope(ip.ip) != "loopback":
                    v4.append(ip.ip)
            else:
                text = ip.ip[0]
                if scope(text) not in ("loopback", "other") and not text.startswith("fe80"):
                    v6.append(text)
    return v4, v6


def global_ipv6_addresses() -> list[str]:
    """This machine's global IPv6 addresses (what a joiner across the internet can try)."""
    return [address for address in local_addresses()[1] if scope(address) == "global"]


def interface_index(address: str) -> int:
    """The index of the interface holding ``address`` (0 if none does)."""
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            if text == address:
                return int(adapter.index or 0)
    return 0
