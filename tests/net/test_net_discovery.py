"""LAN discovery over mDNS, kept on the loopback interface."""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import socket
import struct
import subprocess
from collections.abc import Iterator

import pytest

from p2p66.net.discovery import SERVICE_TYPE, Game, advertise, browse, open_tables, parse_seats
from p2p66.net.handshake import VERSION

LOOPBACK = ["127.0.0.1"]
MDNS_GROUP = "224.0.0.251"


def _loopback_multicast_works() -> bool:
    """Send one multicast datagram over lo and see whether it comes back (no zeroconf)."""
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        receiver.bind(("", 0))
        port = receiver.getsockname()[1]
        membership = struct.pack(
            "4s4s", socket.inet_aton(MDNS_GROUP), socket.inet_aton(LOOPBACK[0])
        )
        receiver.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
        receiver.settimeout(1.0)
        sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(LOOPBACK[0]))
        sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        token = secrets.token_bytes(8)
        sender.sendto(token, (MDNS_GROUP, port))
        while True:
            data, _ = receiver.recvfrom(64)
            if data == token:
                return True
    except OSError:
        return False
    finally:
        receiver.close()
        sender.close()


def _lo_has_multicast_flag() -> bool:
    out = subprocess.run(
        ["ip", "link", "show", "lo"], capture_output=True, text=True, timeout=10, check=False
    )
    return "MULTICAST" in out.stdout


@pytest.fixture
def loopback_multicast() -> Iterator[None]:
    """Make sure mDNS can work on lo; as root, switch lo's multicast flag on for the test."""
    if _loopback_multicast_works():
        yield
        return
    if os.geteuid() != 0 or shutil.which("ip") is None or _lo_has_multicast_flag():
        pytest.skip("multicast does not work on the loopback interface here (and we cannot fix it)")
    subprocess.run(["ip", "link", "set", "lo", "multicast", "on"], check=True, timeout=10)
    try:
        if not _loopback_multicast_works():
            pytest.skip("multicast on loopback fails even with lo's MULTICAST flag set")
        yield
    finally:
        subprocess.run(["ip", "link", "set", "lo", "multicast", "off"], check=False, timeout=10)


@pytest.mark.timeout(30)
def test_advertised_games_are_found_on_loopback_and_withdrawn(loopback_multicast: None) -> None:
    tag = secrets.token_hex(3)
    alice, mallory = f"alice-{tag}", f"mallory-{tag}"
    fp = "3f2a-9c01-77de-b4e0-1a2b"

    async def main() -> tuple[list[Game], list[Game], str]:
        ad, evil = await asyncio.gather(
            advertise(alice, 6666, fingerprint=fp, preset="sixty-six", interfaces=LOOPBACK),
            advertise(
                mallory,
                7777,
                fingerprint="0000-1111-2222-3333-4444",
                preset="evil\x1b[2J" + "x" * 100,
                interfaces=LOOPBACK,
            ),
        )
        try:
            found = await browse(1.5, interfaces=LOOPBACK)
        finally:
            await ad.close()
            await ad.close()  # closing twice is harmless
            await evil.close()
        after = await browse(1.0, interfaces=LOOPBACK)
        return found, after, ad.instance

    found, after, instance = asyncio.run(main())
    ours = [g for g in found if g.name == alice]
    assert len(ours) == 1, found
    game = ours[0]
    assert game.instance == instance and instance.endswith(SERVICE_TYPE)
    assert game.addresses == ("127.0.0.1",) and game.port == 6666
    assert (game.version, game.fingerprint, game.preset) == (str(VERSION), fp, "sixty-six")
    evil_games = [g for g in found if g.name == mallory]
    assert len(evil_games) == 1 and evil_games[0].port == 7777
    assert "\x1b" not in evil_games[0].preset and len(evil_games[0].preset) <= 64
    assert all(tag not in g.name for g in after)


@pytest.mark.timeout(30)
def test_a_table_advertises_its_free_seats_as_they_fill(loopback_multicast: None) -> None:
    tag = secrets.token_hex(3)
    name = f"table-{tag}"

    async def main() -> tuple[list[Game], list[Game]]:
        ad = await advertise(
            name, 6667, fingerprint="fp", preset="north-american", interfaces=LOOPBACK, seats=(3, 4)
        )
        try:
            before = await browse(1.5, interfaces=LOOPBACK)
            await ad.set_seats(0, 4)
            after = await browse(1.5, interfaces=LOOPBACK)
        finally:
            await ad.close()
        return before, after

    before, after = asyncio.run(main())
    ours = [g for g in open_tables(before) if g.name == name]
    assert len(ours) == 1 and (ours[0].free_seats, ours[0].total_seats) == (3, 4)
    full = [g for g in after if g.name == name]
    assert len(full) == 1 and full[0].free_seats == 0
    assert not [g for g in open_tables(after) if g.name == name]


@pytest.mark.parametrize(
    ("text", "seats"),
    [("2/4", (2, 4)), ("0/3", (0, 3)), ("5/4", None), ("x/4", None), ("12/14", None), ("", None)],
)
def test_seat_counts_from_untrusted_text(text: str, seats: tuple[int, int] | None) -> None:
    assert parse_seats(text) == seats
