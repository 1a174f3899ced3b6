"""``p2p66 net check``: what to run when a friend cannot join (``--json`` for tools)."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import typer

from p2p66.net.joincode import DEFAULT_PORT
from p2p66.net.netcheck import NetReport, check


def render(report: NetReport) -> str:
    """The report as a few labelled lines."""

    def listed(items: list[str]) -> str:
        return ", ".join(items) if items else "none"

    router = []
    if report.upnp_router:
        router.append(f"UPnP IGD at {report.upnp_router}")
    if report.natpmp_router:
        router.append(f"NAT-PMP at {report.natpmp_router}")
    cgnat = "yes (carrier-grade NAT)" if report.carrier_grade else "no"
    lines = [
        f"Local IPv4:        {listed(report.ipv4)}",
        f"Local IPv6:        {listed(report.ipv6)} (global: {listed(report.ipv6_global)})",
        f"Router answered:   {listed(router) if router else 'no (neither UPnP nor NAT-PMP)'}",
        f"External address:  {report.external_address or 'unknown'}",
        f"Behind a 2nd NAT:  {cgnat}",
        f"Port mapping test: {report.mapping_test}",
        f"IPv6 pinholes:     {listed(report.pinholes)}",
        "Join code would be:",
        *(f"  {code}" for code in report.join_code or ["(no address)"]),
        *(f"Note: {problem}" for problem in report.problems),
        f"Try next:          {report.next_step}",
    ]
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add ``net check`` to ``app``."""
    net = typer.Typer(help="Network diagnostics.", no_args_is_help=True)

    @net.command("check")
    def check_command(
        port: Annotated[
            int, typer.Option("--port", min=1, max=65535, help="TCP port to test-map.")
        ] = DEFAULT_PORT,
        as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
    ) -> None:
        """Local addresses, the router's answer, external address, CGNAT, a mapping test."""
        report = asyncio.run(check(port))
        typer.echo(json.dumps(report.as_json(), indent=2) if as_json else render(report))

    app.add_typer(net, name="net")
