"""Whole matches across the lab's home routers, by each path ``host`` and ``join`` know.

Each test builds its own lab (tests/router/lab.py) with the routers it needs,
runs ``p2p66 host`` in one home and ``p2p66 join`` in the other (random bots,
a match to 2, proofs off) and checks who reached whom, and that the router's
port mapping is gone when the host is. The lab fixture stops every player a
test started, pass or fail (``players.kill_all``), so the tests need no
``try``/``finally`` of their own.
"""

from __future__ import annotations

import signal
from pathlib import Path

import players
import pytest
from lab import RouterLab

pytestmark = [pytest.mark.netns, pytest.mark.timeout(150)]

PINHOLE_A = "0x20010db8000a00000000000000000002"  # how nft shows 2001:db8:a::2 in a rule


def _host_ns(lab: RouterLab, home: str = "a") -> str:
    return lab.homes[home].machine_ns


def _no_mapping_left(lab: RouterLab, router: str) -> bool:
    return "dnat" not in lab.forwarded_ports(router)


def test_both_routers_map_and_the_joiner_joins_by_the_public_code(
    lab: RouterLab, tmp_path: Path
) -> None:
    lab.upnp("a", True)
    lab.upnp("b", True)
    lab.block_ipv6_between_homes()
    host = players.host(_host_ns(lab), tmp_path)
    code = host.read_line("198.51.100.1:")
    assert "dnat" in lab.forwarded_ports("a")
    joiner = players.join(_host_ns(lab, "b"), tmp_path, code)
    players.both_finish(host, joiner)
    assert "mapped on your router (UPnP IGD) to 198.51.100.1" in host.err
    assert "reply code" not in joiner.err.lower()
    assert players.same_replays(tmp_path)
    assert _no_mapping_left(lab, "a")


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_host_removes_its_mapping(
    lab: RouterLab, tmp_path: Path, stop: signal.Signals
) -> None:
    lab.upnp("a", True)
    host = players.host(_host_ns(lab), tmp_path)
    host.read_line("198.51.100.1:")
    assert "dnat" in lab.forwarded_ports("a")
    assert PINHOLE_A in lab.pinholes("a")
    host.proc.send_signal(stop)
    assert host.finish(30) != 0
    assert _no_mapping_left(lab, "a")
    assert PINHOLE_A not in lab.pinholes("a")
    assert "Traceback" not in host.err


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("moment", ["during the match", "after the match"])
def test_sigterm_during_and_after_the_match_removes_the_mapping(
    lab: RouterLab, tmp_path: Path, moment: str, stop: signal.Signals
) -> None:
    """The match's own handler (a resignation) hands the signal back when it ends."""
    lab.upnp("a", True)
    lab.block_ipv6_between_homes()
    host = players.host(_host_ns(lab), tmp_path, "--target", "7")
    code = host.read_line("198.51.100.1:")
    assert PINHOLE_A in lab.pinholes("a")
    joiner = players.join(_host_ns(lab, "b"), tmp_path, code)
    host.wait_err("hand 1:" if moment == "during the match" else "match over:", 120)
    host.proc.send_signal(stop)
    ended = host.finish(30)
    joiner.finish(60)
    assert _no_mapping_left(lab, "a"), host.err
    assert PINHOLE_A not in lab.pinholes("a")
    assert "Traceback" not in host.err
    if moment == "during the match":
        reason = "(SIGTERM)" if stop == signal.SIGTERM else "(Ctrl-C)"
        assert "left the match: " in host.err and reason in host.err, host.err
        assert ended == (7 if stop == signal.SIGTERM else 130)


def test_upnp_required_but_no_router_answers_fails_loudly(lab: RouterLab, tmp_path: Path) -> None:
    host = players.host(_host_ns(lab), tmp_path, "--upnp")
    assert host.finish(30) == 3
    assert "cannot host with --upnp: no router answered UPnP or NAT-PMP" in host.err


def test_nat_pmp_only_router_maps_too(lab: RouterLab, tmp_path: Path) -> None:
    lab.upnp("a", True, upnp=False)
    host = players.host(_host_ns(lab), tmp_path, "--upnp")
    host.read_line("198.51.100.1:")
    assert "dnat" in lab.forwarded_ports("a")
    assert host.terminate() == 3
    assert "(NAT-PMP)" in host.err
    assert _no_mapping_left(lab, "a")


def test_host_router_without_upnp_joiner_offers_a_reply_code(
    lab: RouterLab, tmp_path: Path
) -> None:
    lab.upnp("b", True)
    host = players.host(_host_ns(lab), tmp_path)
    code = host.read_line("@192.168.1.2:")
    joiner = players.join(_host_ns(lab, "b"), tmp_path, code)
    reply = players.hand_over_reply_code(host, joiner)
    assert reply.split("@")[0] == code.split("@")[0]
    players.both_finish(host, joiner)
    assert "No port mapping" in host.err
    assert "Cannot reach the host" in joiner.err
    assert "Connecting to the joiner at [2001:db8:b::2]:" in host.err
    assert players.same_replays(tmp_path)
    assert _no_mapping_left(lab, "b")


@pytest.mark.parametrize("path", ["reply code", "simultaneous open"])
def test_a_reply_code_match_reconnects_after_a_lost_link(
    lab: RouterLab, tmp_path: Path, path: str
) -> None:
    """The joiner listens again on its reply port (and, for a simultaneous open, dials the
    host again from it); the host redials the reply code. ``ss -K`` cuts the link."""
    if path == "reply code":
        lab.upnp("b", True)
        want = "@192.168.1.2:"
    else:  # both routers tell their address, neither maps: the SYNs cross
        lab.upnp("a", True, maps=False)
        lab.upnp("b", True, maps=False)
        lab.block_ipv6_between_homes()
        want = "198.51.100.1:"
    host = players.host(_host_ns(lab), tmp_path, "--target", "7")
    code = host.read_line(want)
    joiner = players.join(_host_ns(lab, "b"), tmp_path, code)
    players.hand_over_reply_code(host, joiner)
    joiner.wait_err("hand 1:", 120)
    assert ":6666" in lab.drop_connections(_host_ns(lab, "b"))  # the match's link
    players.both_finish(host, joiner)
    assert f"Connected by {path}" in joiner.err
    for player in (host, joiner):
        assert "connection lost: reconnecting" in player.err, player.err
    assert players.same_replays(tmp_path)
    assert _no_mapping_left(lab, "b")


def test_a_killed_joiner_of_a_reply_code_match_resumes_on_its_reply_port(
    lab: RouterLab, tmp_path: Path
) -> None:
    """``kill -9`` the joiner; ``join --resume`` listens on its reply port, the host redials."""
    lab.upnp("b", True)
    lab.block_ipv6_between_homes()
    host = players.host(_host_ns(lab), tmp_path, "--target", "7")
    code = host.read_line("@192.168.1.2:")
    joiner = players.join(_host_ns(lab, "b"), tmp_path, code)
    players.hand_over_reply_code(host, joiner)
    joiner.wait_err("hand 1:", 120)
    joiner.kill()
    again = players.start(_host_ns(lab, "b"), tmp_path, "joiner", "join", "--resume",
                          *players.BOT_MATCH)  # fmt: skip
    assert again.finish() == 0, again.err
    assert host.finish() == 0, host.err
    assert "waiting on port" in again.err and "for the host to dial you again" in again.err
    assert players.same_replays(tmp_path)
    assert _no_mapping_left(lab, "b")


def test_neither_router_maps_simultaneous_open(lab: RouterLab, tmp_path: Path) -> None:
    """Both routers tell their address but refuse mappings: the two SYNs cross."""
    lab.upnp("a", True, maps=False)
    lab.upnp("b", True, maps=False)
    lab.block_ipv6_between_homes()
    host = players.host(_host_ns(lab), tmp_path)
    code = host.read_line("198.51.100.1:")
    joiner = players.join(_host_ns(lab, "b"), tmp_path, code)
    players.hand_over_reply_code(host, joiner)
    players.both_finish(host, joiner)
    assert "refused the mapping" in host.err
    assert players.same_replays(tmp_path)


def test_a_silent_host_address_gets_a_reply_code_while_it_is_still_tried(
    lab: RouterLab, tmp_path: Path
) -> None:
    """Router A drops the joiner's SYNs (no mapping): the reply code comes before the
    connect timeout, not after it (the order of the joiner's messages shows it)."""
    lab.upnp("a", True, maps=False)
    lab.upnp("b", True)
    lab.block_ipv6_between_homes()
    host = players.host(_host_ns(lab), tmp_path)
    code = host.read_line("198.51.100.1:")
    joiner = players.join(_host_ns(lab, "b"), tmp_path, code)
    players.hand_over_reply_code(host, joiner)
    players.both_finish(host, joiner)
    offered = joiner.err.index("Give the host this reply code")
    assert joiner.err.index("No answer from the host yet") < offered
    assert "timed out" not in joiner.err[:offered]
    assert players.same_replays(tmp_path)


def test_neither_router_answers_says_so_plainly(lab: RouterLab, tmp_path: Path) -> None:
    host = players.host(_host_ns(lab), tmp_path)
    code = host.read_line("@192.168.1.2:")
    joiner = players.join(_host_ns(lab, "b"), tmp_path, code)
    assert joiner.finish(60) == 3
    assert "Neither of you can be reached from the internet" in joiner.err
    assert "Traceback" not in joiner.err


def test_carrier_grade_nat_is_named_and_a_reply_code_still_works(
    lab: RouterLab, tmp_path: Path
) -> None:
    lab.upnp("c", True)
    lab.upnp("b", True)
    host = players.host(lab.homes["c"].machine_ns, tmp_path)
    code = host.read_line("@192.168.3.2:")
    assert "100.64.0.2" not in code
    joiner = players.join(_host_ns(lab, "b"), tmp_path, code)
    players.hand_over_reply_code(host, joiner)
    players.both_finish(host, joiner)
    assert "100.64.0.2 is itself behind your provider's NAT (carrier-grade NAT" in host.err
    assert "nobody on the internet can reach you" in host.err
    assert _no_mapping_left(lab, "c")


def test_ipv6_only_between_the_homes(lab: RouterLab, tmp_path: Path) -> None:
    """IPv4 cannot cross: the joiner's IPv6 attempt (through the IGDv2 pinhole) wins."""
    lab.upnp("a", True)
    lab.block_ipv4_between_homes()
    host = players.host(_host_ns(lab), tmp_path)
    code = host.read_line("@[2001:db8:a::2]:")
    assert "198.51.100.1:" in code  # both addresses in one code
    assert PINHOLE_A in lab.pinholes("a")
    joiner = players.join(_host_ns(lab, "b"), tmp_path, code, "--no-reply")
    players.both_finish(host, joiner)
    assert players.same_replays(tmp_path)
    assert PINHOLE_A not in lab.pinholes("a")  # closed again
