"""What ``p2p66 net check`` finds out: can someone across the internet reach this machine?

``check`` asks the routers (UPnP and NAT-PMP separately, so the report can
say which answered), maps a test port and removes it again, opens and closes
an IPv6 pinhole, and from that derives what a join code would contain and the
one thing to try next. Nothing is sent anywhere but to our own router.
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass, field
from typing import Any

from async_upnp_client.exceptions import UpnpError

from p2p66.net.eyeballs import format_codes
from p2p66.net.joincode import JoinCode
from p2p66.net.portmap import (
    SEARCH_TIMEOUT,
    PortMapError,
    PortMapping,
    find_natpmp,
    find_upnp,
)
from p2p66.net.reach import global_ipv6_addresses, is_carrier_grade, local_addresses

EXAMPLE_WORDS = ("fox", "lamp", "river")


@dataclass(frozen=True, slots=True)
class NetReport:
    """Everything ``net check`` prints, as plain values (also its ``--json``)."""

    ipv4: list[str]
    ipv6: list[str]
    ipv6_global: list[str]
    upnp_router: str | None
    natpmp_router: str | None
    external_address: str | None
    carrier_grade: bool
    mapping_test: str
    mapped: str | None
    pinholes: list[str]
    join_code: list[str]
    next_step: str
    problems: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


async def _external(port_router: Any) -> str | None:
    with contextlib.suppress(PortMapError, UpnpError, OSError, TimeoutError):
        found: str | None = await port_router.external_address()
        return found
    return None


async def check(port: int, timeout: float = SEARCH_TIMEOUT) -> NetReport:
    """Probe the routers and try a mapping of TCP ``port`` (removed before returning)."""
    v4, v6 = local_addresses()
    v6_global = global_ipv6_addresses()
    upnp = await find_upnp(timeout)
    natpmp = await find_natpmp()
    external = None
    for router in (upnp, natpmp):
        if router is not None and external is None:
            external = await _external(router)
    problems: list[str] = []
    mapped = None
    pinholes: list[str] = []
    if upnp is None and natpmp is None:
        test = "not tried: no router answered UPnP or NAT-PMP"
    else:
        try:
            session = await PortMapping.open(
                port, ipv6=v6_global, timeout=timeout, on_problem=problems.append
            )
        except PortMapError as exc:
            test = f"failed: {exc}"
        else:
            m = session.mapping
            mapped = f"{m.external_address}:{m.external_port}"
            pinholes = [f"[{p.address}]:{p.port}" for p in session.pinholes]
            test = f"ok: {mapped} -> {m.internal_address}:{m.internal_port} ({m.method}), removed"
            await session.aclose()
    cgnat = external is not None and is_carrier_grade(external)
    if cgnat and mapped is not None:
        test += f" (but {external} is carrier-grade: nobody on the internet reaches it)"
    codes = [JoinCode(EXAMPLE_WORDS, a, port) for a in v6_global]
    if mapped is not None and not cgnat and external is not None:
        codes.append(JoinCode(EXAMPLE_WORDS, external, port))
    code_line = [format_codes(codes)] if codes else []
    code_line += [str(JoinCode(EXAMPLE_WORDS, a, port)) for a in v4]
    return NetReport(
        ipv4=v4,
        ipv6=v6,
        ipv6_global=v6_global,
        upnp_router=upnp.address if upnp else None,
        natpmp_router=natpmp.address if natpmp else None,
        external_address=external,
        carrier_grade=cgnat,
        mapping_test=test,
        mapped=mapped,
        pinholes=pinholes,
        join_code=code_line,
        next_step=_next_step(upnp is not None or natpmp is not None, mapped, cgnat, v6_global),
        problems=problems,
    )


def _next_step(router: bool, mapped: str | None, cgnat: bool, v6: list[str]) -> str:
    if cgnat:
        return (
            "Your provider puts you behind carrier-grade NAT: nobody can reach you by IPv4. "
            + ("Host over IPv6 if the other player has it, or " if v6 else "Ask ")
            + "the other player to host, or use the reply code 'p2p66 join' offers, or a VPN."
        )
    if mapped is not None:
        return "Host with 'p2p66 host': your join code works across the internet."
    if router:
        return (
            "Your router answers but refuses to map ports: allow UPnP/NAT-PMP port mapping "
            "for this machine in its settings (or forward the port by hand); meanwhile a "
            "reply code from the other player can still work."
        )
    return (
        "No router answered UPnP or NAT-PMP: switch one on in your router's settings (or "
        "forward the TCP port by hand), or let the other player host, or use a reply code."
    )
