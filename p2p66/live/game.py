"""A match over a real connection: the sans-IO ``Peer`` driven by asyncio.

``LiveGame`` is the only place where the session meets sockets and clocks.
It sends the records the peer produces, feeds it the records that arrive,
appends every record (sent or received) to the replay file *before* acting
on it, asks the player (a UI or a bot) for moves, and enforces the time
limits. Because the protocol is strictly turn-based, one loop suffices:
when we must move nothing can arrive but heartbeats (handled by the channel).

When the connection drops it calls ``reconnect`` (for up to ``grace``
seconds), then both sides exchange how many records they hold and their
chain head, resend what the other lacks, and go on; if the heads disagree
the match ends with the evidence kept in the replay. Only the opponent's
identity key may resume the match (anyone else is sent away and the wait
goes on), and a link that fails again during the resynchronisation is just
another drop: the wait for a reconnection continues within the same grace.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import msgpack

from p2p66.engine import PlayerView, RuleOptions
from p2p66.net.channel import SecureChannel
from p2p66.net.errors import (
    NetworkError,
    NotThisMatch,
    PeerClosed,
    PeerFlooded,
    TransportError,
)
from p2p66.net.identity import PeerIdentity, fingerprint
from p2p66.replay.fileio import ReplayWriteError, ReplayWriter
from p2p66.session import events as ev
from p2p66.session.errors import ProtocolError, RemoteProtocolError
from p2p66.session.peer import Peer
from p2p66.session.records import GENESIS, Record, RecordError

Decider = Callable[[PlayerView], Awaitable[int]]
RulesAnswer = Callable[[RuleOptions, int], Awaitable[str | None]]
EventSink = Callable[[ev.Event], None]
Reconnect = Callable[[], Awaitable[SecureChannel]]


MOVE_MARGIN = 15.0
"""Seconds of grace over the agreed move time (network and machine delays)."""
COMPUTE_LIMIT = 120.0
"""Seconds the other side may take for what needs no decision (shuffles, keys, seeds)."""
RESYNC_LIMIT = 30.0
"""Seconds a reconnected side may take to answer the resynchronisation."""


class LiveGameError(Exception):
    """The match stopped early; ``kind`` says why, ``culprit`` whom to blame (if anyone)."""

    def __init__(self, kind: str, message: str, culprit: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.culprit = culprit


@dataclass(frozen=True, slots=True)
class Status:
    """Connection state for status bars: connected, waiting, reconnecting, closed."""

    state: str
    latency_ms: float | None = None


class LiveGame:
    """Run ``peer`` over a channel until the match ends; see the module docstring."""

    def __init__(
        self,
        peer: Peer,
        decide: Decider,
        *,
        writer: ReplayWriter | None = None,
        on_event: EventSink | None = None,
        on_status: Callable[[Status], None] | None = None,
        reconnect: Reconnect | None = None,
        grace: float = 60.0,
        wait_limit: float | None = None,
        answer_rules: RulesAnswer | None = None,
    ) -> None:
        self.peer = peer
        self.decide = decide
        self.writer = writer
        self.on_event = on_event or (lambda e: None)
        self.on_status = on_status or (lambda s: None)
        self.reconnect = reconnect
        self.grace = grace
        self.wait_limit = wait_limit
        self.records: list[Record] = []
        self.channel: SecureChannel | None = None
        self.opponent: PeerIdentity | None = None
        """Who the first channel authenticated: the only key that may resume the match."""
        self.resumes = 0
        self.answer_rules = answer_rules

    # ------------------------------------------------------------------ running

    async def run(self, channel: SecureChannel) -> None:
        """Play to the end of the match; LiveGameError if it stops early."""
        self.channel = channel
        self.opponent = channel.peer
        self._emit(self.peer.start())
        while True:
            try:
                await self._flush()
                if self.peer.machine.over:
                    await self._goodbye()
                    return
                if self.peer.needs_rules_answer:
                    await self._rules()
                elif self.peer.needs_move:
                    await self._our_move()
                else:
                    await self._their_record()
            except ReplayWriteError as exc:
                self._close()
                raise LiveGameError("replay", f"{exc}; the match stops here", None) from exc
            except PeerClosed as exc:
                why = exc.reason or "no reason given"
                raise LiveGameError("closed", f"the other player left the match ({why})") from exc
            except (NetworkError, ConnectionError) as exc:
                await self._resume(exc)
            except ProtocolError as exc:
                raise await self._broken(exc) from exc
            except PeerFlooded as exc:
                raise await self._broken(self._flood_evidence(exc)) from exc
            except TransportError as exc:
                self._close()
                raise LiveGameError("transport", str(exc), None) from exc

    async def _broken(self, exc: ProtocolError) -> LiveGameError:
        """Tell the other side why we stop; the error that ends the match, with its culprit."""
        await self._last_records()
        await self._abort(exc)
        kind = "cheating" if type(exc).__name__ == "CheatingDetected" else "protocol"
        return LiveGameError(kind, str(exc), exc.culprit)

    def _flood_evidence(self, flood: PeerFlooded) -> ProtocolError:
        """The flooder's violation: the first queued message the protocol did not call for.

        The messages that were waiting when the bound was passed are fed to
        the session in order (each record is kept in the replay first), so
        the one that breaks the protocol is named and kept as evidence; if
        every one of them was owed, the flood itself is the violation.
        """
        assert self.channel is not None
        other = 1 - self.peer.seat
        waiting = self.channel.unread()
        try:
            for data in waiting:
                self._take(data)
        except ProtocolError as exc:
            return exc
        return RemoteProtocolError(f"player {other}: {flood}", other)

    async def _rules(self) -> None:
        m = self.peer.machine
        assert m.options is not None
        refusal = await self.answer_rules(m.options, m.soundness) if self.answer_rules else None
        self._emit(self.peer.answer_rules(refusal))

    async def _our_move(self) -> None:
        view = self.peer.view()
        assert view is not None
        self.on_status(Status("your-turn", self._latency()))
        code = await self._decide_unless_ended(view)
        self._emit(self.peer.play(code))

    async def _decide_unless_ended(self, view: PlayerView) -> int:
        """Our move; but if the channel ends while we think, its failure is raised at once.

        The other player leaving (or the link dropping) is then told while the
        player is still choosing, not only when the move fails to go out.
        """
        assert self.channel is not None
        deciding = asyncio.ensure_future(self.decide(view))
        ended = asyncio.ensure_future(self.channel.ended())
        try:
            await asyncio.wait({deciding, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (deciding, ended):
                if not task.done():
                    task.cancel()
        if deciding.done():
            return deciding.result()
        raise ended.result()

    async def _their_record(self) -> None:
        assert self.channel is not None
        self.on_status(Status("waiting", self._latency()))
        limit = self._wait_limit()
        try:
            data = await asyncio.wait_for(self.channel.recv(), limit)
        except TimeoutError:
            exp = self.peer.machine.expected()
            who = exp.author if exp else 1 - self.peer.seat
            what = exp.what if exp else "answer"
            self._close()
            raise LiveGameError(
                "timeout",
                f"player {who} did not {what} within {limit:.0f} s (the per-move time limit); "
                f"the replay shows the game waiting on player {who}",
                who,
            ) from None
        self._take(data)

    def _take(self, data: bytes) -> None:
        """One message from the other side: kept in the replay (if a record), then acted on."""
        try:
            record = Record.decode(data)
        except RecordError:
            record = None
        if record is not None and record.author != self.peer.seat:
            self._keep(record)
        self._emit(self.peer.receive_data(data))

    def _wait_limit(self) -> float | None:
        """How long the other side may take: the agreed move time for a move, else a minute."""
        if self.wait_limit is not None:
            return self.wait_limit
        m = self.peer.machine
        exp = m.expected()
        if exp is not None and exp.kinds[0].TYPE in ("move", "accept") and m.move_seconds:
            return m.move_seconds + MOVE_MARGIN
        return COMPUTE_LIMIT

    async def _flush(self) -> None:
        for record in self.peer.data_to_send():
            self._keep(record)
            assert self.channel is not None
            await self.channel.send(record.encode())

    def _keep(self, record: Record) -> None:
        """Record first, act second: a crash loses at most the record being written."""
        self.records.append(record)
        if self.writer is not None:
            self.writer.append(record)

    def _emit(self, events: list[ev.Event]) -> None:
        for event in events:
            if isinstance(event, ev.PlayerJoined) and event.seat != self.peer.seat:
                self._check_identity(event)
            self.on_event(event)

    def _check_identity(self, event: ev.PlayerJoined) -> None:
        """The key in the peer's hello must be the one its channel authenticated."""
        if self.channel is not None and event.public_key != self.channel.peer.public_key:
            raise RemoteProtocolError(
                f"player {event.seat} introduced itself with another identity key than the "
                "one it authenticated with",
                event.seat,
            )

    def _latency(self) -> float | None:
        lat = self.channel.latency if self.channel is not None else None
        return None if lat is None else lat * 1000.0

    async def _goodbye(self) -> None:
        """Close the channel politely once the match is over (our last record is sent)."""
        if self.channel is not None:
            with contextlib.suppress(TransportError, OSError):
                await self.channel.aclose("match over")

    def _close(self) -> None:
        if self.channel is not None:
            self.channel.close()

    async def _last_records(self) -> None:
        """Keep, and try to send, what the peer made before the error (our seed that
        completed a convicting audit): the evidence is then the same in both replays."""
        for record in self.peer.data_to_send():
            with contextlib.suppress(ReplayWriteError):
                self._keep(record)
            if self.channel is not None:
                with contextlib.suppress(NetworkError, TransportError, ConnectionError, OSError):
                    await self.channel.send(record.encode())

    async def _abort(self, exc: ProtocolError) -> None:
        if self.channel is not None:
            reason = "cheating detected" if isinstance(exc, RemoteProtocolError) else "error"
            self.channel.close(f"{reason}: {exc}"[:200])

    # ------------------------------------------------------------------ resume

    async def _resume(self, cause: BaseException) -> None:
        """Reconnect within the grace period and resynchronise the record chains."""
        self._close()
        if self.reconnect is None:
            raise LiveGameError("disconnected", f"the connection was lost: {cause}") from cause
        self.on_status(Status("reconnecting"))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.grace
        last: BaseException = cause
        while loop.time() < deadline:
            try:
                channel = await asyncio.wait_for(self.reconnect(), deadline - loop.time())
            except (TransportError, OSError, TimeoutError) as exc:
                last = exc
                await asyncio.sleep(min(0.5, max(0.0, deadline - loop.time())))
                continue
            stranger = self._not_the_opponent(channel)
            if stranger is not None:
                channel.close(str(stranger)[:200])
                last = stranger
                continue
            self.channel = channel
            try:
                await asyncio.wait_for(self._resync(), RESYNC_LIMIT)
            except (TransportError, OSError, TimeoutError) as exc:
                self._close()  # dropped again while resynchronising: wait on
                last = exc
                continue
            self.resumes += 1
            self.on_status(Status("connected", self._latency()))
            return
        raise LiveGameError(
            "disconnected",
            f"the opponent did not come back within {self.grace:.0f} s (last: "
            f"{_describe(last)}); the replay so far is kept",
        ) from cause

    def _not_the_opponent(self, channel: SecureChannel) -> NotThisMatch | None:
        """Why ``channel`` may not resume this match (another key than the opponent's)."""
        seat = 1 - self.peer.seat
        key = self.peer.machine.identity_key(seat)
        if key is None and self.opponent is not None:
            key = self.opponent.public_key
        if key is None or channel.peer.public_key == key:
            return None
        return NotThisMatch(
            f"{channel.peer.name} ({channel.peer.fingerprint}) reconnected, but this match "
            f"is with another player ({fingerprint(key)}); refused, still waiting"
        )

    async def _resync(self) -> None:
        """Exchange (record count, chain head); resend what the other side lacks."""
        assert self.channel is not None
        have = len(self.records)
        head = self.records[-1].digest if self.records else GENESIS
        await self.channel.send(msgpack.packb({"t": "resume", "have": have, "head": head}))
        reply = _resume_message(await self.channel.recv())
        theirs, their_head = reply["have"], reply["head"]
        if theirs > have:
            return  # they will resend; our loop receives the missing records
        expected_head = self.records[theirs - 1].digest if theirs else GENESIS
        if expected_head != their_head:
            raise LiveGameError(
                "diverged",
                f"after reconnecting, the other side's record {theirs - 1} differs from ours: "
                "the two replays disagree (evidence kept)",
            )
        for record in self.records[theirs:]:
            await self.channel.send(record.encode())
        if theirs < have:
            return


def _describe(exc: BaseException) -> str:
    """An error as words, also when it carries no message (a bare timeout)."""
    if isinstance(exc, TimeoutError) and not str(exc):
        return "no answer in time"
    return str(exc) or type(exc).__name__


def _resume_message(data: bytes) -> dict[str, Any]:
    try:
        obj = msgpack.unpackb(data, raw=False)
    except Exception:
        obj = None
    if (
        not isinstance(obj, dict)
        or obj.get("t") != "resume"
        or not isinstance(obj.get("have"), int)
        or not isinstance(obj.get("head"), bytes)
    ):
        raise LiveGameError("protocol", "after reconnecting the other side did not resynchronise")
    return obj


async def cancel_quietly(task: asyncio.Task[Any]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
