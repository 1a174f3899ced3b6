"""A home-router test network in network namespaces (root only; nothing leaves them).

Built by ``RouterLab.build()`` and removed by ``close()`` (the namespaces, and
with them every veth, route, nftables table and daemon socket)::

    host ─ router A ─┐                      ┌─ router B ─ joiner
   (home A)          ├── "internet" bridge ─┤           (home B)
    cgnat host ─ router C ─ carrier NAT ────┘

- The "internet" is a bridge in its own namespace, 198.51.100.0/24 and
  2001:db8:ffff::/64; it routes the homes' IPv6 prefixes and answers STUN on
  198.51.100.254:3478 (miniupnpd learns its external address that way:
  NETLAB.md explains why an ``ext_ip=`` in a reserved range is refused).
- Home A is 192.168.1.0/24 + 2001:db8:a::/64, home B 192.168.2.0/24 +
  2001:db8:b::/64; each router masquerades IPv4, routes IPv6, and drops
  unsolicited inbound traffic except what miniupnpd opens (port mappings,
  IPv6 pinholes) — like a home router.
- Router C sits behind a carrier NAT: its outside address is 100.64.0.2
  (shared address space) and the carrier's STUN responder on 100.64.0.1 tells
  it so, as a real router reports the WAN address it was given.

Each router runs a real ``miniupnpd`` (UPnP IGD v2 and NAT-PMP) that tests
switch on and off with ``upnp(router, on)``.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

STEP_TIMEOUT: Final = 20.0
INTERNET_V4: Final = "198.51.100.254"
INTERNET_V6: Final = "2001:db8:ffff::254"
STUN_PORT: Final = 3478
CARRIER_INSIDE: Final = "100.64.0.1"

TOOLS: Final = ("ip", "nft", "miniupnpd")

STUN_SCRIPT: Final = r"""
import socket, struct, sys
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind((sys.argv[1], int(sys.argv[2])))
print("ready", flush=True)
while True:
    data, (addr, port) = sock.recvfrom(2048)
    if len(data) < 20 or data[0:2] != b"\x00\x01":
        continue
    cookie, tid = data[4:8], data[8:20]
    raw = socket.inet_aton(addr)
    xport = port ^ 0x2112
    xaddr = bytes(a ^ b for a, b in zip(raw, cookie))
    attrs = struct.pack("!HHBBH4s", 0x0001, 8, 0, 1, port, raw)
    attrs += struct.pack("!HHBBH4s", 0x0020, 8, 0, 1, xport, xaddr)
    sock.sendto(struct.pack("!HH4s12s", 0x0101, len(attrs), cookie, tid) + attrs, (addr, port))
"""


def missing_prerequisite() -> str | None:
    """Why the lab cannot be built here (``None``: it can)."""
    for sbin in ("/usr/sbin", "/sbin"):  # where ip, nft and miniupnpd live
        if sbin not in os.environ.get("PATH", "").split(os.pathsep):
            os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + sbin
    if os.geteuid() != 0:
        return "the router lab needs root (network namespaces, nftables)"
    for tool in TOOLS:
        if shutil.which(tool) is None:
            package = "miniupnpd-nftables" if tool == "miniupnpd" else tool
            return f"the router lab needs {tool!r} (Debian package {package}; .ci/run installs it)"
    return None


class LabError(RuntimeError):
    """The lab could not be built: a command failed (the message has its stderr)."""


def run(*args: str, check: bool = True, input_text: str | None = None) -> str:
    result = subprocess.run(
        list(args),
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT,
        check=False,
        input=input_text,
    )
    if check and result.returncode != 0:
        raise LabError(f"{' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout


@dataclass(frozen=True, slots=True)
class Home:
    """One home network: its router's namespace and addresses, and the machine inside."""

    name: str
    router_ns: str
    machine_ns: str
    wan_if: str
    lan_if: str
    wan_v4: str
    lan_v4: str
    machine_v4: str
    lan_prefix_v4: str
    wan_v6: str | None
    lan_v6: str | None
    machine_v6: str | None
    stun_host: str


@dataclass
class RouterLab:
    """The namespaces of one lab; ``close`` removes everything ``build`` made."""

    token: str
    workdir: Path
    namespaces: list[str] = field(default_factory=list)
    homes: dict[str, Home] = field(default_factory=dict)
    daemons: dict[str, subprocess.Popen[str]] = field(default_factory=dict)
    helpers: list[subprocess.Popen[str]] = field(default_factory=list)

    @property
    def internet_ns(self) -> str:
        return f"p66{self.token}-net"

    @property
    def carrier_ns(self) -> str:
        return f"p66{self.token}-isp"

    # -- building -------------------------------------------------------------------------

    @classmethod
    def build(cls, workdir: Path) -> RouterLab:
        lab = cls(secrets.token_hex(2), workdir)
        try:
            lab._build()
        except BaseException:
            lab.close()
            raise
        return lab

    def _ns(self, name: str) -> str:
        ns = f"p66{self.token}-{name}"
        run("ip", "netns", "add", ns)
        self.namespaces.append(ns)
        self.sh(ns, "ip link set lo up")
        return ns

    def sh(self, ns: str, command: str) -> str:
        """Run one shell-free command line (split on blanks) in ``ns``."""
        return run("ip", "netns", "exec", ns, *command.split())

    def sysctl(self, ns: str, *settings: str) -> None:
        for setting in settings:
            self.sh(ns, f"sysctl -qw {setting}")

    def _veth(self, ns_a: str, if_a: str, ns_b: str, if_b: str) -> None:
        run("ip", "link", "add", if_a, "netns", ns_a, "type", "veth", "peer", "name", if_b,
            "netns", ns_b)  # fmt: skip
        self.sh(ns_a, f"ip link set {if_a} up")
        self.sh(ns_b, f"ip link set {if_b} up")

    def _build(self) -> None:
        t = self.token
        net = self._ns("net")
        self.sh(net, "ip link add name bridge0 type bridge")
        self.sh(net, "ip link set bridge0 up")
        self.sh(net, f"ip addr add {INTERNET_V4}/24 dev bridge0")
        self.sh(net, f"ip -6 addr add {INTERNET_V6}/64 dev bridge0 nodad")
        self.sysctl(net, "net.ipv6.conf.all.forwarding=1", "net.ipv4.ip_forward=1")
        self._start_stun(net, INTERNET_V4)
        a = self._home("a", wan_v4="198.51.100.1", subnet=1, v6="2001:db8:a", wan_v6_host=1)
        b = self._home("b", wan_v4="198.51.100.2", subnet=2, v6="2001:db8:b", wan_v6_host=2)
        for home in (a, b):
            self._attach_to_internet(home.router_ns, home.wan_if, f"p{t}{home.name}u")
            self.sh(home.router_ns, f"ip addr add {home.wan_v4}/24 dev {home.wan_if}")
            self.sh(home.router_ns, f"ip route add default via {INTERNET_V4}")
            assert home.wan_v6 is not None and home.lan_v6 is not None
            self.sh(home.router_ns, f"ip -6 addr add {home.wan_v6}/64 dev {home.wan_if} nodad")
            self.sh(home.router_ns, f"ip -6 route add default via {INTERNET_V6}")
            prefix = home.lan_v6.rsplit(":", 2)[0] + "::/64"
            self.sh(net, f"ip -6 route add {prefix} via {home.wan_v6}")
        # The carrier: a second NAT between router C and the internet.
        isp = self._ns("isp")
        self._attach_to_internet(isp, f"p{t}iw", f"p{t}iu")
        self.sh(isp, f"ip addr add 198.51.100.3/24 dev p{t}iw")
        self.sh(isp, f"ip route add default via {INTERNET_V4}")
        self.sysctl(isp, "net.ipv4.ip_forward=1")
        c = self._home("c", wan_v4="100.64.0.2", subnet=3, v6=None, wan_v6_host=0)
        self._veth(isp, f"p{t}il", c.router_ns, c.wan_if)
        self.sh(isp, f"ip addr add {CARRIER_INSIDE}/24 dev p{t}il")
        self.sh(c.router_ns, f"ip addr add {c.wan_v4}/24 dev {c.wan_if}")
        self.sh(c.router_ns, f"ip route add default via {CARRIER_INSIDE}")
        self._nat_rules(isp, wan=f"p{t}iw", lan=f"p{t}il", upnp_chains=False)
        self._start_stun(isp, CARRIER_INSIDE)
        for home in (a, b, c):
            self._nat_rules(home.router_ns, wan=home.wan_if, lan=home.lan_if, upnp_chains=True)

    def _attach_to_internet(self, ns: str, inner: str, outer: str) -> None:
        self._veth(ns, inner, self.internet_ns, outer)
        self.sh(self.internet_ns, f"ip link set {outer} master bridge0")

    def _home(
        self, name: str, *, wan_v4: str, subnet: int, v6: str | None, wan_v6_host: int
    ) -> Home:
        t = self.token
        router = self._ns(f"r{name}")
        machine = self._ns(f"m{name}")
        home = Home(
            name=name,
            router_ns=router,
            machine_ns=machine,
            wan_if=f"p{t}{name}w",
            lan_if=f"p{t}{name}l",
            wan_v4=wan_v4,
            lan_v4=f"192.168.{subnet}.1",
            machine_v4=f"192.168.{subnet}.2",
            lan_prefix_v4=f"192.168.{subnet}.0/24",
            wan_v6=f"2001:db8:ffff::{wan_v6_host}" if v6 else None,
            lan_v6=f"{v6}::1" if v6 else None,
            machine_v6=f"{v6}::2" if v6 else None,
            stun_host=INTERNET_V4 if v6 else CARRIER_INSIDE,
        )
        self._veth(router, home.lan_if, machine, f"p{t}{name}m")
        self.sysctl(router, "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1")
        self.sh(router, f"ip addr add {home.lan_v4}/24 dev {home.lan_if}")
        self.sh(machine, f"ip addr add {home.machine_v4}/24 dev p{t}{name}m")
        self.sh(machine, f"ip route add default via {home.lan_v4}")
        if home.lan_v6 and home.machine_v6:
            self.sh(router, f"ip -6 addr add {home.lan_v6}/64 dev {home.lan_if} nodad")
            self.sh(machine, f"ip -6 addr add {home.machine_v6}/64 dev p{t}{name}m nodad")
            self.sh(machine, f"ip -6 route add default via {home.lan_v6}")
        self.homes[name] = home
        return home

    def _nat_rules(self, ns: str, *, wan: str, lan: str, upnp_chains: bool) -> None:
        """A home router's firewall: out and replies pass, the rest is dropped unless opened."""
        jump = "jump miniupnpd" if upnp_chains else ""
        pre = "jump prerouting_miniupnpd" if upnp_chains else ""
        post = "jump postrouting_miniupnpd" if upnp_chains else ""
        ruleset = f"""
table inet filter {{
    chain input {{
        type filter hook input priority 0; policy accept;
        iifname "{wan}" ct state established,related accept
        iifname "{wan}" meta l4proto {{ icmp, ipv6-icmp }} accept
        iifname "{wan}" drop
    }}
    chain forward {{
        type filter hook forward priority 0; policy drop;
        ct state established,related accept
        iifname "{lan}" accept
        meta l4proto ipv6-icmp accept
        {jump}
    }}
    chain miniupnpd {{
    }}
    chain prerouting {{
        type nat hook prerouting priority -100; policy accept;
        {pre}
    }}
    chain prerouting_miniupnpd {{
    }}
    chain postrouting {{
        type nat hook postrouting priority 100; policy accept;
        {post}
        oifname "{wan}" meta nfproto ipv4 masquerade
    }}
    chain postrouting_miniupnpd {{
    }}
}}
"""
        run("ip", "netns", "exec", ns, "nft", "-f", "-", input_text=ruleset)

    def _start_stun(self, ns: str, address: str) -> None:
        proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, "-c", STUN_SCRIPT, address, str(STUN_PORT)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.helpers.append(proc)
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise LabError(f"the STUN responder in {ns} did not start")

    # -- routers --------------------------------------------------------------------------

    def upnp(
        self, name: str, on: bool, *, maps: bool = True, upnp: bool = True, timeout: float = 15.0
    ) -> None:
        """Start (or stop) router ``name``'s miniupnpd; returns once it serves (or is gone).

        ``maps=False``: the router answers (external address) but refuses every
        mapping; ``upnp=False``: NAT-PMP only.
        """
        running = self.daemons.pop(name, None)
        if running is not None:
            _stop(running)
        if not on:
            return
        home = self.homes[name]
        conf = self.workdir / f"miniupnpd-{name}.conf"
        log = self.workdir / f"miniupnpd-{name}.log"
        lines = [
            f"ext_ifname={home.wan_if}",
            f"listening_ip={home.lan_if}",
            "http_port=0",
            f"enable_upnp={'yes' if upnp else 'no'}",
            "enable_natpmp=yes",
            "secure_mode=yes",
            "system_uptime=no",
            f"lease_file={self.workdir}/leases-{name}",
            f"uuid=3b4e6f60-{self.token}-4c2a-9d7e-00000000000{ord(name) % 10}",
            "ext_perform_stun=yes",
            f"ext_stun_host={home.stun_host}",
            f"ext_stun_port={STUN_PORT}",
            *([f"allow 1024-65535 {home.lan_prefix_v4} 1024-65535"] if maps else []),
            "deny 0-65535 0.0.0.0/0 0-65535",
        ]
        if not home.lan_v6:
            lines.append("ipv6_disable=yes")
        conf.write_text("\n".join(lines) + "\n")
        pidfile = self.workdir / f"miniupnpd-{name}.pid"
        out = log.open("w")
        proc = subprocess.Popen(
            ["ip", "netns", "exec", home.router_ns, "miniupnpd", "-d", "-f", str(conf),
             "-P", str(pidfile)],
            stdout=out, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        out.close()
        self.daemons[name] = proc
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = log.read_text(errors="replace")
            stunned = "Port forwarding is now enabled" in text or "STUN: ... done" in text
            http = "HTTP listening on port" in text or not upnp
            if stunned and http and "Listening for NAT-PMP" in text:
                return
            if proc.poll() is not None:
                raise LabError(f"miniupnpd on router {name} exited:\n{text}")
            time.sleep(0.05)
        raise LabError(f"miniupnpd on router {name} did not start:\n{log.read_text()}")

    def upnp_log(self, name: str) -> str:
        path = self.workdir / f"miniupnpd-{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def forwarded_ports(self, name: str) -> str:
        """The router's miniupnpd rules (to see that a mapping is there, or gone)."""
        home = self.homes[name]
        return run("ip", "netns", "exec", home.router_ns, "nft", "list", "chain", "inet",
                   "filter", "prerouting_miniupnpd")  # fmt: skip

    def pinholes(self, name: str) -> str:
        home = self.homes[name]
        return run("ip", "netns", "exec", home.router_ns, "nft", "list", "chain", "inet",
                   "filter", "miniupnpd")  # fmt: skip

    def randomize_ports(self, name: str) -> None:
        """Make router ``name`` a symmetric NAT: a random outside port for every connection."""
        home = self.homes[name]
        run("ip", "netns", "exec", home.router_ns, "nft", "flush", "chain", "inet", "filter",
            "postrouting")  # fmt: skip
        run("ip", "netns", "exec", home.router_ns, "nft", "add", "rule", "inet", "filter",
            "postrouting", "oifname", home.wan_if, "meta", "nfproto", "ipv4", "masquerade",
            "fully-random")  # fmt: skip

    def drop_connections(self, ns: str) -> str:
        """Kill every established TCP connection in ``ns`` (both ends see it end): a lost link."""
        return run("ip", "netns", "exec", ns, "ss", "-K", "-t", "state", "established")

    def block_ipv4_between_homes(self) -> None:
        """Let only IPv6 cross the internet (an IPv6-only path between the homes)."""
        self._block("ipv4")

    def block_ipv6_between_homes(self) -> None:
        """Let only IPv4 cross the internet (to test the IPv4 path alone)."""
        self._block("ipv6")

    def _block(self, family: str) -> None:
        for home in self.homes.values():
            for direction in ("iifname", "oifname"):
                run("ip", "netns", "exec", home.router_ns, "nft", "insert", "rule", "inet",
                    "filter", "forward", "meta", "nfproto", family, direction, home.wan_if,
                    "drop")  # fmt: skip

    def close(self) -> None:
        for proc in [*self.daemons.values(), *self.helpers]:
            _stop(proc)
        self.daemons.clear()
        self.helpers.clear()
        for ns in reversed(self.namespaces):
            run("ip", "netns", "del", ns, check=False)
        self.namespaces.clear()


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
