"""Hosting on the open internet, over real loopback TCP: ports, families, junk, stalls, floods."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st
from netkit import WORDS, ipv6_loopback_available
from spake2 import SPAKE2_A

from p2p66.net import addresses
from p2p66.net.addresses import BindError, Bound, bind_one_port, check_port, join_addresses
from p2p66.net.channel import ChannelConfig
from p2p66.net.errors import ListenFailed, MalformedHandshake, PeerTimeout, WrongJoinCode
from p2p66.net.framing import encode_frame
from p2p66.net.gate import Entry, Gate, source_of
from p2p66.net.handshake import PROTOCOL, SPAKE2_MESSAGE_SIZE, VERSION, encode_message
from p2p66.net.identity import Identity
from p2p66.net.tcp import Listener, NobodyJoined, join

CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=10)
needs_ipv6 = pytest.mark.skipif(not ipv6_loopback_available(), reason="no IPv6 loopback")


def _hello(pake: bytes) -> bytes:
    return encode_frame(encode_message("hello", proto=PROTOCOL, v=VERSION, mode="code", pake=pake))


# --- one port for every family ----------------------------------------------------------


@needs_ipv6
@pytest.mark.timeout(60)
def test_port_0_gives_both_families_the_same_port_every_time(alice: Identity) -> None:
    async def main() -> None:
        for _ in range(25):
            async with await Listener.open(alice, words=WORDS, port=0, config=CONFIG) as lis:
                bound = lis.bound
                assert {b.address for b in bound} == {"::", "0.0.0.0"}
                assert len({b.port for b in bound}) == 1
                for address in ("127.0.0.1", "::1"):  # both answer at the printed port
                    _, writer = await asyncio.open_connection(address, lis.port)
                    writer.close()
                    await writer.wait_closed()

    asyncio.run(main())


@needs_ipv6
@pytest.mark.timeout(30)
def test_binding_ipv6_only_never_offers_an_ipv4_code(
    alice: Identity, bob: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(addresses, "local_addresses", lambda families=(4,), **_: [])

    async def main() -> None:
        async with await Listener.open(alice, words=WORDS, bind="::", port=0, config=CONFIG) as lis:
            assert [b.address for b in lis.bound] == ["::"]
            codes = lis.join_codes()
            assert [c.host for c in codes] == ["::1"]  # not 127.0.0.1: nobody listens there
            joining = asyncio.ensure_future(join(codes[0], bob, config=CONFIG))
            hosted = await lis.accept(timeout=10)
            joined = await joining
            assert hosted.peer.name == "bob" and joined.peer.name == "alice"
            await hosted.aclose()
            await joined.aclose()

    asyncio.run(main())


def test_a_code_for_each_usable_address_global_ipv6_included(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found = {4: ["192.0.2.7"], 6: ["2001:db8::1", "fd00::5"]}

    def local(families: tuple[int, ...] = (4,), include_loopback: bool = False) -> list[str]:
        return [a for f in families for a in found[f]]

    monkeypatch.setattr(addresses, "local_addresses", local)
    bound = [Bound("::", 6666), Bound("0.0.0.0", 6666)]
    assert [str(b.address) for b in join_addresses(bound)] == [
        "192.0.2.7",
        "2001:db8::1",
        "fd00::5",
    ]
    found[4] = []
    found[6] = []
    assert join_addresses(bound) == [Bound("127.0.0.1", 6666), Bound("::1", 6666)]
    assert join_addresses([Bound("::", 7)]) == [Bound("::1", 7)]
    assert join_addresses([Bound("10.0.0.2", 7)]) == [Bound("10.0.0.2", 7)]


def test_local_addresses_leave_out_link_local_and_loopback() -> None:
    for text in addresses.local_addresses((4, 6)):
        assert not text.startswith(("fe80", "127.")) and text != "::1"


@pytest.mark.parametrize("port", [-1, 65536, 99999])
def test_ports_outside_0_65535_are_refused_clearly(port: int, alice: Identity) -> None:
    with pytest.raises(BindError, match=r"outside 0\.\.65535"):
        check_port(port)
    with pytest.raises(BindError, match=r"outside 0\.\.65535"):
        bind_one_port("localhost", port)

    async def main() -> None:
        await Listener.open(alice, words=WORDS, bind="localhost", port=port)

    with pytest.raises(ListenFailed, match=r"outside 0\.\.65535"):
        asyncio.run(main())


# --- junk and stalled code attempts -----------------------------------------------------


@pytest.mark.timeout(30)
def test_a_hello_with_a_junk_spake2_message_does_not_spend_the_code(
    alice: Identity, bob: Identity
) -> None:
    async def main() -> None:
        async with await Listener.open(
            alice, words=WORDS, bind="127.0.0.1", port=0, config=CONFIG
        ) as lis:
            reader, writer = await asyncio.open_connection("127.0.0.1", lis.port)
            writer.write(_hello(b"\xff" * SPAKE2_MESSAGE_SIZE))  # not a group element
            await writer.drain()
            await asyncio.wait_for(reader.read(), 10)  # the host answers and hangs up
            writer.close()
            assert lis.code_armed
            assert isinstance(lis.rejected[-1][1], MalformedHandshake)
            joining = asyncio.ensure_future(join(lis.join_code(), bob, config=CONFIG))
            hosted = await lis.accept(timeout=10)
            await (await joining).aclose()
            await hosted.aclose()

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_a_stalled_code_attempt_holds_the_code_only_briefly(
    alice: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    from p2p66.net import handshake

    monkeypatch.setattr(handshake, "CODE_HOLD_TIMEOUT", 0.5)

    async def main() -> BaseException:
        async with await Listener.open(
            alice, words=WORDS, bind="127.0.0.1", port=0, config=CONFIG
        ) as lis:
            _, writer = await asyncio.open_connection("127.0.0.1", lis.port)
            writer.write(_hello(SPAKE2_A(b"a-wrong-guess").start()))  # then never confirms
            await writer.drain()
            try:
                await lis.accept(timeout=8)  # far less than the 10 s handshake limit
            except PeerTimeout as exc:
                writer.close()
                return exc
        raise AssertionError("the stalled attempt was not ended")

    exc = asyncio.run(main())
    assert not isinstance(exc, NobodyJoined) and "'confirm'" in str(exc)


@pytest.mark.timeout(30)
def test_after_a_wrong_guess_a_fresh_code_lets_the_real_joiner_in(
    alice: Identity, bob: Identity
) -> None:
    async def main() -> None:
        async with await Listener.open(
            alice, words=WORDS, bind="127.0.0.1", port=0, config=CONFIG
        ) as lis:
            code = lis.join_code()
            wrong = code.__class__(("fox", "lamp", "raven"), code.host, code.port)
            guess = asyncio.ensure_future(join(wrong, bob, config=CONFIG))
            with pytest.raises(WrongJoinCode):
                await lis.accept(timeout=10)
            with contextlib.suppress(WrongJoinCode):
                await guess
            assert not lis.code_armed
            lis.renew_code()
            joining = asyncio.ensure_future(join(lis.join_code(), bob, config=CONFIG))
            hosted = await lis.accept(timeout=10)
            await (await joining).aclose()
            await hosted.aclose()

    asyncio.run(main())


# --- nobody can fill the door -----------------------------------------------------------


def test_the_gate_drops_the_oldest_of_the_crowding_source_first() -> None:
    gate = Gate(per_source=3, total=5)
    dropped: list[str] = []

    def entry(source: str, name: str, protected: bool = False) -> Entry:
        return Entry(source, lambda: dropped.append(name), protected=lambda: protected)

    assert gate.admit(entry("evil", "e0", protected=True))  # holds the code: kept
    for i in range(1, 6):
        assert gate.admit(entry("evil", f"e{i}"))
    assert dropped == ["e1", "e2", "e3"] and gate.from_source("evil") == 3
    assert gate.admit(entry("friend", "f0")) and gate.admit(entry("friend", "f1"))
    assert gate.admit(entry("friend", "f2"))  # the total is full: the oldest droppable goes
    assert dropped[-1] == "e4" and gate.from_source("friend") == 3
    assert len(gate) == 5


@given(st.lists(st.tuples(st.integers(0, 4), st.booleans(), st.booleans()), max_size=80))
def test_the_gate_never_holds_more_than_its_limits(
    steps: list[tuple[int, bool, bool]],
) -> None:
    gate = Gate(per_source=3, total=6)
    live: list[Entry] = []
    for source, protected, leave in steps:
        if leave and live:
            gate.leave(live.pop(0))
            continue
        e = Entry(str(source), lambda: None, protected=lambda p=protected: p)  # type: ignore[misc]
        if gate.admit(e):
            live.append(e)
        assert len(gate) <= 6
        assert all(gate.from_source(str(s)) <= 3 for s in range(5))


async def _idle(port: int, stop: asyncio.Event, opened: list[int]) -> None:
    """Open a connection and say nothing; open another whenever the host drops it."""
    while not stop.is_set():
        with contextlib.suppress(OSError):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            opened.append(1)
            try:
                await reader.read()  # until the host hangs up
            finally:
                writer.close()
        await asyncio.sleep(0.5)


async def _trickle(port: int, stop: asyncio.Event, opened: list[int]) -> None:
    """Send a well-formed hello one byte every 0.3 s; reconnect when dropped."""
    hello = _hello(SPAKE2_A(b"slow").start())
    while not stop.is_set():
        with contextlib.suppress(OSError):
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            opened.append(1)
            try:
                for byte in hello[:-1]:
                    writer.write(bytes([byte]))
                    await writer.drain()
                    await asyncio.sleep(0.3)
            finally:
                writer.close()
        await asyncio.sleep(0.5)


@pytest.mark.timeout(90)
def test_idle_and_trickling_crowds_do_not_keep_the_real_joiner_out(
    alice: Identity, bob: Identity
) -> None:
    async def main() -> tuple[str, int, int]:
        async with await Listener.open(
            alice, words=WORDS, bind="127.0.0.1", port=0, config=CONFIG
        ) as lis:
            stop, opened = asyncio.Event(), []
            crowd = [asyncio.create_task(_idle(lis.port, stop, opened)) for _ in range(200)]
            crowd += [asyncio.create_task(_trickle(lis.port, stop, opened)) for _ in range(200)]
            while len(opened) < 400 or lis.gate.dropped + len(lis.gate) < 400:
                await asyncio.sleep(0.05)  # until the whole crowd has come through the door
            try:
                # The joiner's normal limits: the default connect and handshake timeouts.
                joining = asyncio.ensure_future(join(lis.join_code(), bob))
                hosted = await lis.accept(timeout=30)
                joined = await joining
            finally:
                stop.set()
                for task in crowd:
                    task.cancel()
                await asyncio.gather(*crowd, return_exceptions=True)
            name = hosted.peer.name
            await joined.aclose()
            await hosted.aclose()
            return name, lis.gate.dropped, lis.gate.per_source

    name, dropped, per_source = asyncio.run(main())
    assert name == "bob"
    assert dropped >= 400 - per_source  # the crowd was pushed out, not the joiner


@pytest.mark.timeout(30)
def test_a_connection_that_never_says_hello_is_dropped_soon(
    alice: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    from p2p66.net import handshake

    monkeypatch.setattr(handshake, "HELLO_TIMEOUT", 0.3)

    async def main() -> None:
        async with await Listener.open(
            alice, words=WORDS, bind="127.0.0.1", port=0, config=CONFIG
        ) as lis:
            reader, writer = await asyncio.open_connection("127.0.0.1", lis.port)
            try:
                assert await asyncio.wait_for(reader.read(), 8) == b""  # long before 10 s
            finally:
                writer.close()
            assert "did not send its 'hello'" in str(lis.rejected[-1][1])
            assert lis.code_armed and len(lis.gate) == 0

    asyncio.run(main())


@pytest.mark.parametrize(
    ("remote", "source"),
    [
        ("192.0.2.7:5000", "192.0.2.7"),
        ("[2001:db8::1]:5000", "2001:db8::/64"),
        ("[2001:db8::ffff:1]:6000", "2001:db8::/64"),  # one subscriber's /64 is one source
        ("[2001:db8:0:1::1]:6000", "2001:db8:0:1::/64"),
        ("[::ffff:192.0.2.7]:5000", "192.0.2.7"),
    ],
)
def test_sources_are_ipv4_addresses_and_ipv6_networks(remote: str, source: str) -> None:
    assert source_of(remote) == source


def test_listening_everywhere_skips_a_family_that_is_switched_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = addresses._bound_socket

    def no_ipv6(family: socket.AddressFamily, address: str, port: int) -> socket.socket:
        if family == socket.AF_INET6:
            raise OSError(errno.EADDRNOTAVAIL, "Cannot assign requested address")
        return real(family, address, port)

    monkeypatch.setattr(addresses, "_bound_socket", no_ipv6)
    sockets = bind_one_port(None, 0)
    try:
        assert [s.family for s in sockets] == [socket.AF_INET]
    finally:
        for sock in sockets:
            sock.close()
    with pytest.raises(BindError, match="Cannot assign"):
        bind_one_port("::", 0)  # asked for by name: no silent fallback
