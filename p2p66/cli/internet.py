"""What ``host`` and ``join`` do to get across home routers, with no server of ours.

- ``map_for_host``: map the host's port on its router (``--upnp`` must, ``--no-upnp``
  never, default: try for a moment), learn the external address, and name a
  carrier-grade NAT plainly.
- ``host_codes``: the codes to print, the one for the internet first (IPv6 and
  the external IPv4 address in one code).
- ``accept_or_reply``: the host waits for a joiner and, meanwhile, for a reply
  code typed at its prompt, which it dials from its own port (``Hosted``
  remembers it: after a dropped link the host dials it again).
- ``join_or_reply``: the joiner tries every address of the code side by side
  and, when none answers within ``NO_ANSWER_YET`` s, offers a reply code (its
  own mapping or a TCP simultaneous open) while it goes on trying; ``Joined``
  keeps the reply port open for the match and knows how to get back.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final

from p2p66.net.channel import SecureChannel
from p2p66.net.errors import AuthenticationError, ConnectFailed, NetworkError, PeerTimeout
from p2p66.net.eyeballs import format_codes, join_first, parse_codes
from p2p66.net.identity import Identity, KnownPeers
from p2p66.net.joincode import JoinCode, JoinCodeError
from p2p66.net.portmap import SEARCH_TIMEOUT, PortMapError, PortMapping
from p2p66.net.reach import global_ipv6_addresses, is_carrier_grade, scope
from p2p66.net.redial import Target, dial_first, host_rejoin, targets
from p2p66.net.reply import ReplyPoint, parse_reply_code
from p2p66.net.tcp import Listener

Say = Callable[[str], None]

REPLY_WAIT: Final = 600.0
NO_ANSWER_YET: Final = 2.5
"""Seconds without an answer from the host's addresses before a reply code is offered."""
WHAT_WORKS: Final = (
    "What works instead: IPv6 (if both of you have it), a reply code (the other player "
    "runs 'p2p66 join' with your code and gives you the reply code it prints), or a VPN "
    "you both join."
)


def carrier_grade_message(external: str, *, hosting: bool = True) -> str:
    return (
        f"Your router's outside address {external} is itself behind your provider's NAT "
        "(carrier-grade NAT, shared or private address space): nobody on the internet can "
        f"reach you through a port mapping.{' ' + WHAT_WORKS if hosting else ''}"
    )


@dataclass
class HostReach:
    """How the internet can reach this host: a mapping, the router's address, IPv6."""

    mapping: PortMapping | None = None
    external: str | None = None
    ipv6: list[str] = field(default_factory=list)

    @property
    def public_ipv4(self) -> tuple[str, int] | None:
        """The mapped external address and port, unless it is carrier-grade (unreachable)."""
        if self.mapping is None or self.external is None or is_carrier_grade(self.external):
            return None
        return self.external, self.mapping.mapping.external_port


async def map_for_host(port: int, mode: bool | None, say: Say, *, role: str = "host") -> HostReach:
    """Map ``port``; ``mode`` True: must (``PortMapError``), False: skip, None: try quietly.

    ``role``: ``host``, or ``join`` for a joiner's reply port (other words, same work).
    """
    reach = HostReach(ipv6=global_ipv6_addresses())
    if mode is False:
        return reach
    hosting = role == "host"
    try:
        reach.mapping = await PortMapping.open(
            port, ipv6=reach.ipv6, timeout=SEARCH_TIMEOUT, on_problem=say
        )
    except PortMapError as exc:
        reach.external = exc.external_address
        if mode:
            raise
        if hosting:
            say(f"No port mapping ({exc}). A joiner across the internet may not reach you; "
                "if not, their 'p2p66 join' prints a reply code for you to type here.")  # fmt: skip
        else:
            say(f"No port mapping on your router either ({exc}).")
        if reach.external is not None and is_carrier_grade(reach.external):
            say(carrier_grade_message(reach.external, hosting=hosting))
        return reach
    m = reach.mapping.mapping
    reach.external = m.external_address
    if m.carrier_grade and m.external_address is not None:
        await reach.mapping.aclose()  # a mapping nobody can reach: do not keep it
        reach.mapping = None
        if mode:
            raise PortMapError(carrier_grade_message(m.external_address))
        say(carrier_grade_message(m.external_address, hosting=hosting))
    else:
        kept = "while you host" if hosting else "for this match"
        say(f"Port {port} mapped on your router ({m.method}) to {m.external_address}:"
            f"{m.external_port}, kept {kept}.")  # fmt: skip
    return reach


def host_codes(
    reach: HostReach, words: tuple[str, ...], port: int, *, unopened_ipv6: bool = True
) -> list[str]:
    """The internet code (IPv6 and public IPv4 in one), first; empty if there is none.

    ``unopened_ipv6``: list global IPv6 addresses even without a pinhole (a joiner
    just tries them; a reply code should not send the host to a closed door).
    """
    opened = {p.address for p in reach.mapping.pinholes} if reach.mapping else set()
    ipv6 = [a for a in reach.ipv6 if unopened_ipv6 or a in opened]
    codes = [JoinCode(words, address, port) for address in ipv6]
    public = reach.public_ipv4
    if public is not None:
        codes.append(JoinCode(words, *public))
    elif reach.external is not None and not is_carrier_grade(reach.external):
        codes.append(JoinCode(words, reach.external, port))  # no mapping: a reply code's aim
    return [format_codes(codes)] if codes else []


@dataclass(frozen=True, slots=True)
class Hosted:
    """The joiner's channel, and the reply codes the host dialled (to redial after a drop)."""

    channel: SecureChannel
    reply_to: tuple[Target, ...] = ()


async def accept_or_reply(listener: Listener, timeout: float | None, say: Say) -> Hosted:
    """The first joiner, or the host connecting out to a reply code typed meanwhile."""
    accept = asyncio.create_task(listener.accept(timeout))
    lines = await _stdin_lines()
    if lines is None:
        return Hosted(await accept)
    reader, close = lines
    words = listener.words or ()
    say("If the other player sends you a reply code, type it here and press Enter.")
    dials: set[asyncio.Task[None]] = set()
    dialled: list[JoinCode] = []
    try:
        while True:
            line = asyncio.create_task(reader.readline())
            done, _ = await asyncio.wait({accept, line}, return_when=asyncio.FIRST_COMPLETED)
            if accept in done:
                line.cancel()
                return Hosted(accept.result(), targets(dialled))
            text = line.result().decode(errors="replace").strip()
            if not line.result():
                return Hosted(await accept, targets(dialled))  # stdin closed: joiners only
            if not text:
                continue
            try:
                codes = parse_reply_code(text, words)
            except JoinCodeError as exc:
                say(f"That is not a reply code ({exc}); type the reply code again.")
                continue
            say(f"Connecting to the joiner at {', '.join(code.address for code in codes)} ...")
            dialled[:] = codes
            task = asyncio.create_task(_dial(listener, codes, say))
            dials.add(task)
            task.add_done_callback(dials.discard)
    finally:
        accept.cancel()
        for task in dials:
            task.cancel()
        close()


async def _dial(listener: Listener, codes: list[JoinCode], say: Say) -> None:
    """Dial every address of the reply code from our port, staggered; adopt the first up."""
    try:
        reader, writer = await dial_first(listener.port, targets(codes))
    except ConnectFailed as exc:
        say(f"Cannot reach the reply code's address ({exc}); check it, or type it again.")
        return
    await listener.adopt(reader, writer)


async def _stdin_lines() -> tuple[asyncio.StreamReader, Callable[[], None]] | None:
    """Lines typed on stdin, read without a thread (none if stdin is a file or closed)."""
    try:
        fd = sys.stdin.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, AttributeError):
        return None
    # a terminal, a pipe or a socket; not /dev/null (a character device epoll refuses)
    terminal = stat.S_ISCHR(mode) and os.isatty(fd)
    if not (stat.S_ISFIFO(mode) or terminal or stat.S_ISSOCK(mode)):
        return None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    pipe = os.fdopen(os.dup(fd), "rb", buffering=0)
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
    except (OSError, ValueError):
        pipe.close()
        os.set_blocking(fd, True)
        return None

    def close() -> None:
        transport.close()
        os.set_blocking(fd, True)  # the dup shares the file: give the terminal back as it was

    return reader, close


@dataclass
class Joined:
    """The joiner's channel, and how to get it back after a dropped link.

    ``point`` is set when the host connected to us (a reply code or a TCP
    simultaneous open): it keeps listening, and its port mapped, until
    ``aclose``, because the host redials it after a drop. Otherwise we dial
    the host's code addresses again, side by side. Either way with the
    known-peer handshake and only the first channel's key (the opponent).
    """

    channel: SecureChannel
    codes: list[JoinCode]
    me: Identity
    peers: KnownPeers
    point: ReplyPoint | None = None
    punch: tuple[Target, ...] = ()
    """The host addresses the reply point dialled (its half of a simultaneous open)."""
    stack: contextlib.AsyncExitStack = field(default_factory=contextlib.AsyncExitStack)

    @property
    def path(self) -> str:
        if self.point is None:
            return "direct"
        return "reply code" if self.point.came_by == "incoming" else "simultaneous open"

    async def reconnect(self) -> SecureChannel:
        opponent = self.channel.peer
        if self.point is None:
            return await join_first(
                self.codes, self.me, known_peers=self.peers, expect_key=opponent
            )
        return await self.point.rejoin(opponent, self.punch)

    async def aclose(self) -> None:
        await self.stack.aclose()


def host_reconnect(listener: Listener, hosted: Hosted) -> Callable[[], Awaitable[SecureChannel]]:
    """The host's way back after a drop: accept, and redial a reply code it had dialled."""

    async def reconnect() -> SecureChannel:
        return await host_rejoin(listener, hosted.reply_to)

    return reconnect


def _punch_targets(codes: list[JoinCode]) -> tuple[Target, ...]:
    return tuple((code.host, code.port) for code in codes if scope(code.host) == "global")


async def join_or_reply(
    code_text: str,
    me: Identity,
    peers: KnownPeers,
    say: Say,
    *,
    reply: bool = True,
    wait: float = REPLY_WAIT,
) -> Joined:
    """Join by every address of the code; if none answers soon, also offer a reply code.

    A refused or unreachable address fails at once; a silent one (a router
    that drops unasked connections) would take the whole connect timeout. So
    after ``NO_ANSWER_YET`` s without an answer the reply code is offered while
    the host's addresses are still tried: whichever connection authenticates
    first is the match.
    """
    codes = parse_codes(code_text)
    direct = asyncio.create_task(join_first(codes, me, known_peers=peers))
    try:
        if not reply or all(scope(code.host) == "loopback" for code in codes):
            # a host on this machine: no router between us, a reply code cannot help
            return Joined(await direct, codes, me, peers)
        await asyncio.wait({direct}, timeout=NO_ANSWER_YET)
        if not direct.done():
            say(f"No answer from the host yet (after {NO_ANSWER_YET:g} s; its router may "
                "drop connections it was not asked for). Still trying; meanwhile:")  # fmt: skip
            return await _offer_reply(codes, me, peers, say, wait, direct=direct)
        try:
            return Joined(direct.result(), codes, me, peers)
        except AuthenticationError:
            raise
        except NetworkError as exc:
            inside = all(scope(code.host) == "private" for code in codes)
            where = " (that is an address inside the host's own network)" if inside else ""
            say(f"Cannot reach the host: {exc}{where}.")
        return await _offer_reply(codes, me, peers, say, wait, direct=None)
    finally:
        direct.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await direct


NO_REPLY_POSSIBLE: Final = (
    "Neither of you can be reached from the internet: the host's router did not "
    "map its port, and yours did not either (or it is behind carrier-grade NAT), "
    "so no reply code can work. Switch on UPnP or NAT-PMP on one of the routers, "
    "forward a port by hand, use IPv6, or join a VPN together."
)


async def _offer_reply(
    codes: list[JoinCode],
    me: Identity,
    peers: KnownPeers,
    say: Say,
    wait: float,
    *,
    direct: asyncio.Task[SecureChannel] | None,
) -> Joined:
    """Listen on a reply port (mapped if our router lets us) for the host to dial.

    ``direct``: the attempt on the host's own addresses, still running; if it
    succeeds first, that is the match (the reply port closes again). The
    simultaneous open (dialling the host from the reply port) starts once it
    has failed, so that the host's one code attempt is not raced by ourselves.
    """
    point = await ReplyPoint.open(me, codes[0].words, known_peers=peers)
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(point.aclose)
        reach = await map_for_host(point.port, None, say, role="join")
        if reach.mapping is not None:
            stack.push_async_callback(reach.mapping.aclose)
        reply = host_codes(reach, codes[0].words, point.port, unopened_ipv6=False)
        if not reply and direct is None:
            raise ConnectFailed(NO_REPLY_POSSIBLE)
        punch = _punch_targets(codes)
        accepting = asyncio.create_task(point.accept(wait))
        stack.callback(accepting.cancel)
        if reply:
            say("Give the host this reply code; they type it at their 'p2p66 host' prompt "
                "and press Enter:")  # fmt: skip
            print(reply[0], flush=True)
            say("Waiting for the host to connect ...")
        else:
            accepting.cancel()
            say("No reply code is possible (neither router maps ports); still trying the "
                "host's address.")  # fmt: skip
        if direct is None:
            _punch_all(point, punch)
        while True:
            pending = {accepting} if reply else set()
            if direct is not None:
                pending.add(direct)
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            if direct is not None and direct in done:
                try:
                    channel = direct.result()
                except AuthenticationError:
                    raise
                except NetworkError as exc:
                    if not reply:
                        raise ConnectFailed(
                            f"Cannot reach the host ({exc}). {NO_REPLY_POSSIBLE}"
                        ) from None
                    why = "still no answer" if isinstance(exc, PeerTimeout) else str(exc)
                    say(f"The host's address: {why}. Waiting for the host to type your "
                        "reply code.")  # fmt: skip
                    direct = None
                    _punch_all(point, punch)
                    continue
                say("Reached the host at its own address after all.")
                return Joined(channel, codes, me, peers)
            channel = accepting.result()
            return Joined(channel, codes, me, peers, point, punch, stack.pop_all())
    raise AssertionError("unreachable")  # pragma: no cover (mypy: the with block returns)


def _punch_all(point: ReplyPoint, targets: tuple[Target, ...]) -> None:
    for host, port in targets:
        point.punch(host, port)
