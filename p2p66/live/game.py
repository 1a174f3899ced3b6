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
from p2p66.session.errors import CheatingDetected, ProtocolError, RemoteProtocolError
from p2p66.session.peer import Peer
from p2p66.session.records import GENESIS, Record, RecordError
from p2p66.ui.race import before

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
        self._restarted = False
        self._unsent: list[Record] = []

    def preload(self, records: list[Record]) -> None:
        """A restarted process: ``records`` are the chain so far (the peer is restored to
        their end); ``run`` then resynchronises first instead of starting the match."""
        self.records = list(records)
        self._restarted = True

    # ------------------------------------------------------------------ running

    async def run(self, channel: SecureChannel) -> None:
        """Play to the end of the match; LiveGameError if it stops early."""
        self.channel = channel
        self.opponent = channel.peer
        if self._restarted:
            await self._resync_restarted()
        else:
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
                if await self._ended_before_closing():
                    self._unsent.clear()
                    self._close()
                    return  # they resigned (or claimed) first: the match is over
                why = exc.reason or "no reason given"
                await self._claim(f"the other player closed the connection ({why}) owing a record")
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
        kind = "cheating" if isinstance(exc, CheatingDetected) else "protocol"
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
        try:
            code = await self._decide_unless_ended(view)
        except TransportError:
            if await self._ended_before_closing():
                return  # they resigned while we thought: the match ended with it
            raise
        self._emit(self.peer.play(code))

    async def _ended_before_closing(self) -> bool:
        """Apply the records that arrived before the channel ended; True if one of them
        (a resignation, a claim) ended the match. A bad one is left to the caller's error."""
        assert self.channel is not None
        try:
            while not self.peer.machine.over:
                self._take(await self.channel.recv())
        except (TransportError, ProtocolError, ReplayWriteError):
            return False
        return True

    async def _decide_unless_ended(self, view: PlayerView) -> int:
        """Our move; but if the channel ends while we think, its failure is raised at once.

        The other player leaving (or the link dropping) is then told while the
        player is still choosing, not only when the move fails to go out.
        """
        assert self.channel is not None
        ended = asyncio.ensure_future(self.channel.ended())
        decided = await before(self.decide(view), ended)
        if decided is not None:
            return decided[0]
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
            why = f"player {who} did not {what} within {limit:.0f} s (the per-move time limit)"
            await self._claim(why)
            self._close()
            raise LiveGameError(
                "timeout", f"{why}; the replay shows the game waiting on player {who}", who
            ) from None
        self._take(data)

    def _take(self, data: bytes) -> None:
        """One message from the other side: kept in the replay (if a record), then acted on."""
        try:
            record = Record.decode(data)
        except RecordError:
            record = None
        if record is None and _is_resume_message(data):
            self._close(STALE_REASON)
            raise LiveGameError(
                "stale",
                "the other player is waiting to resume an earlier, unfinished match with you; "
                "this new match stops: run the same command with --resume to continue that one",
            )
        if record is not None and record.author != self.peer.seat:
            self._keep(record)
        self._emit(self.peer.receive_data(data))
        if self.peer.voided:
            self._drop_voided()

    def _drop_voided(self) -> None:
        """Their resignation or claim crossed records of ours: the file ends with it instead."""
        chain = self.peer.machine.records
        voided, self.peer.voided = self.peer.voided, []
        self._unsent = [r for r in self._unsent if r not in voided]
        self.records = list(chain)
        if self.writer is not None:
            self.writer.truncate(len(chain) - 1)
            self.writer.append(chain[-1])

    async def _claim(self, why: str) -> None:
        """The other player owes the next record and stayed silent: sign that it abandoned
        the match (kept, and sent should it still listen); LiveGameError "abandoned"."""
        peer = self.peer
        exp = peer.machine.expected()
        if not peer.can_end or exp is None or exp.author == peer.seat:
            return
        self._emit(peer.claim_abandoned())
        await self._last_records()
        self._close()
        raise LiveGameError(
            "abandoned",
            f"{why}: player {exp.author} abandoned the match at record {peer.machine.abandoned_at} "
            f"(it was player {exp.author}'s turn); you win by forfeit (the signed claim ends "
            "the replay)",
            exp.author,
        )

    async def leave(self, reason: str) -> bool:
        """Resign on purpose: a signed record, kept and sent at once, then goodbye.

        Call it once ``run`` is no longer running. False (the channel is just
        closed) when there is no match under way to resign.
        """
        resigned = self.peer.can_end
        if resigned:
            with contextlib.suppress(ReplayWriteError):
                self._emit(self.peer.resign(reason))
                await self._last_records()
        if self.channel is not None:
            self.channel.close(f"resigned: {reason}" if resigned else reason)
        return resigned

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
            self._unsent.append(record)
        assert self.channel is not None
        while self._unsent:
            await self.channel.send(self._unsent[0].encode())
            self._unsent.pop(0)

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

    def _close(self, reason: str = "") -> None:
        if self.channel is not None:
            self.channel.close(reason)

    async def _last_records(self) -> None:
        """Keep, and try to send, what the peer made before the error (our seed that
        completed a convicting audit): the evidence is then the same in both replays."""
        for record in self.peer.data_to_send():
            with contextlib.suppress(ReplayWriteError):
                self._keep(record)
            self._unsent.append(record)
        with contextlib.suppress(TransportError, ConnectionError, OSError):
            while self._unsent and self.channel is not None:
                await self.channel.send(self._unsent[0].encode())
                self._unsent.pop(0)

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
            self._unsent.clear()  # the resync resends whatever the other side lacks
            try:
                await asyncio.wait_for(self._resync(), RESYNC_LIMIT)
            except (TransportError, OSError, TimeoutError) as exc:
                self._close()  # dropped again while resynchronising: wait on
                last = exc
                continue
            self.resumes += 1
            self.on_status(Status("connected", self._latency()))
            return
        await self._claim(f"the opponent did not come back within {self.grace:.0f} s")
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

    async def _resync_restarted(self) -> None:
        """A restarted process's first contact: resynchronise, or wait on as after a drop."""
        try:
            await asyncio.wait_for(self._resync(), RESYNC_LIMIT)
        except (TransportError, OSError, TimeoutError) as exc:
            await self._resume(exc)
        else:
            self.resumes += 1

    async def _resync(self) -> None:
        """Exchange (record count, chain head); resend what the other side lacks."""
        assert self.channel is not None
        have = len(self.records)
        head = self.records[-1].digest if self.records else GENESIS
        await self.channel.send(resume_message(have, head))
        reply = read_resume_message(await self.channel.recv())
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


STALE_REASON = "a new process, not the one in this match: it can be resumed with --resume"


def _unpack(data: bytes) -> Any:
    try:
        return msgpack.unpackb(data, raw=False)
    except Exception:
        return None


def _is_resume_message(data: bytes) -> bool:
    obj = _unpack(data)
    return isinstance(obj, dict) and obj.get("t") == "resume"


def resume_message(have: int, head: bytes) -> bytes:
    """What each side sends first after a reconnection: how many records it holds, its head."""
    return msgpack.packb({"t": "resume", "have": have, "head": head})


def read_resume_message(data: bytes) -> dict[str, Any]:
    """The other side's (record count, head); anything else is not the process of this
    match (a new one, started without --resume): refused, and the wait goes on."""
    obj = _unpack(data)
    if (
        not isinstance(obj, dict)
        or obj.get("t") != "resume"
        or not isinstance(obj.get("have"), int)
        or not isinstance(obj.get("head"), bytes)
    ):
        raise NotThisMatch(
            "the reconnected side did not resynchronise (a new process, started without "
            "--resume?); refused, still waiting"
        )
    return obj


async def cancel_quietly(task: asyncio.Task[Any]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
