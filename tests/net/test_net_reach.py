"""Address scopes by range (not ipaddress.is_private), codes with several addresses."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st
from netkit import WORDS

from p2p66.net.errors import ConnectFailed
from p2p66.net.eyeballs import format_codes, join_first, parse_codes
from p2p66.net.identity import Identity
from p2p66.net.joincode import JoinCode, JoinCodeError
from p2p66.net.reach import is_carrier_grade, scope
from p2p66.net.reply import parse_reply_code
from p2p66.net.tcp import Listener


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("198.51.100.1", "global"),  # documentation range: is_private says True, still global
        ("203.0.113.9", "global"),
        ("8.8.8.8", "global"),
        ("100.64.0.2", "shared"),
        ("100.127.255.254", "shared"),
        ("100.128.0.1", "global"),
        ("10.1.2.3", "private"),
        ("172.31.0.1", "private"),
        ("192.168.1.2", "private"),
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("2001:db8:a::2", "global"),  # documentation prefix, still global unicast
        ("fd00::1", "private"),
        ("fe80::1", "private"),
        ("::ffff:100.64.1.1", "shared"),
        ("ff02::c", "other"),
        ("224.0.0.1", "other"),
    ],
)
def test_scope_by_range(address: str, expected: str) -> None:
    assert scope(address) == expected


def test_carrier_grade_means_shared_or_private_outside() -> None:
    assert is_carrier_grade("100.64.0.2") and is_carrier_grade("10.0.0.1")
    assert not is_carrier_grade("198.51.100.1")


@given(st.lists(st.ip_addresses(), min_size=1, max_size=8, unique=True))
def test_codes_round_trip_ipv6_first(addresses: list[object]) -> None:
    codes = [JoinCode(WORDS, str(a), 6666) for a in addresses]
    parsed = parse_codes(format_codes(codes))
    assert sorted(map(str, parsed)) == sorted(map(str, codes))
    families = [":" in code.host for code in parsed]
    assert families == sorted(families, reverse=True)


@pytest.mark.parametrize(
    "text",
    [
        "fox-lamp-river@1.2.3.4,",
        "fox-lamp-river@,1.2.3.4",
        "fox-lamp-river@" + ",".join(["1.1.1.1"] * 9),
    ],
)
def test_bad_address_lists_are_refused(text: str) -> None:
    with pytest.raises(JoinCodeError):
        parse_codes(text)


def test_a_reply_code_must_carry_our_words() -> None:
    assert parse_reply_code("fox-lamp-river@198.51.100.2:7000", WORDS)[0].port == 7000
    with pytest.raises(JoinCodeError, match="another game"):
        parse_reply_code("fox-lamp-raven@198.51.100.2:7000", WORDS)


@pytest.mark.timeout(30)
def test_join_first_skips_a_dead_address(alice: Identity, bob: Identity) -> None:
    """One address refuses, the other is the host: the joiner gets through on the second."""

    async def main() -> None:
        async with await Listener.open(alice, words=WORDS, bind="127.0.0.1", port=0) as host:
            dead = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
            dead_port = dead.sockets[0].getsockname()[1]
            dead.close()
            await dead.wait_closed()
            codes = [
                JoinCode(WORDS, "127.0.0.1", dead_port),
                JoinCode(WORDS, "127.0.0.1", host.port),
            ]
            joined, hosted = await asyncio.gather(join_first(codes, bob), host.accept(10))
            assert joined.peer.name == "alice" and hosted.peer.name == "bob"
            joined.close()
            hosted.close()

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_join_first_reports_every_failure(bob: Identity) -> None:
    async def main() -> None:
        ports = []
        for _ in range(2):
            server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
            ports.append(server.sockets[0].getsockname()[1])
            server.close()
            await server.wait_closed()
        codes = [JoinCode(WORDS, "127.0.0.1", port) for port in ports]
        with pytest.raises(
            ConnectFailed, match=f"{ports[0]}.*refused.*{ports[1]}|{ports[1]}.*refused.*{ports[0]}"
        ):
            await join_first(codes, bob, connect_timeout=5)

    asyncio.run(main())
