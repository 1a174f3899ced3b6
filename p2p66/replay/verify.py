"""Verify a replay completely, without any secret: the file, the chain, and the whole game.

The verifier is the session ``Machine`` with no local side, exactly the
judge each peer runs, fed every record in file order: it checks chain and
signatures, decodes every message, the turn order, every mental-poker step
and key, every move with the rules engine, and at each hand's end audits the
hand from the revealed seeds and re-judges every move with the full deck.

This module adds what only a file reader needs: damage to the file itself
(from ``fileio``), telling tampering apart from cheating (a record that is
not properly signed, or that does not chain, blames no player: anyone can
edit a file; only what a player signed is held against them), naming a
signed equivocation, and pinning a move the audit exposed as illegal on the
record that carried it.

A file does not say how many seats its table has: the records do. Every
player introduces itself first, in seat order, and the host's proposal
follows the last introduction, so the verifier counts the leading hello
records (``seats_of``) and builds a machine for that many seats; the
proposal must then be a game for exactly that many players.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from p2p66.crypto.audit import audit
from p2p66.crypto.backlog import ProofBacklog
from p2p66.crypto.errors import CryptoError
from p2p66.crypto.transcript import HandTranscript
from p2p66.engine import EngineError, Match, deal_layout
from p2p66.engine.moves import EXCHANGE
from p2p66.replay.fileio import Damage, ReplayFile, ReplayFormatError, ReplayReader, open_replay
from p2p66.replay.report import (
    UNATTRIBUTABLE,
    Ending,
    HandSummary,
    Player,
    Problem,
    ProblemKind,
    Report,
    Status,
    TableHandSummary,
    Waiting,
)
from p2p66.session import events as ev
from p2p66.session import messages as msg
from p2p66.session.errors import LocalProtocolError, ProtocolError
from p2p66.session.handplay import HandTable
from p2p66.session.machine import Machine, Stage
from p2p66.session.records import MAX_PARTIES, Record, RecordError

MAX_SEATS = 4
"""The largest table a game is played at (the machine refuses more)."""

_KINDS: tuple[tuple[str, str], ...] = (
    ("not signed by", "signature"),
    ("malformed", "malformed"),
    ("protocol version", "malformed"),
    ("unreadable move", "malformed"),
    ("without payloads", "malformed"),
    ("without keys", "malformed"),
    ("without its seed", "malformed"),
    ("non-key payload", "malformed"),
    ("illegal move", "illegal-move"),
    ("move was illegal", "illegal-move"),
    ("out of turn", "out-of-turn"),
    ("was expected", "unexpected-message"),
    ("after the match was over", "after-the-end"),
    ("identity key", "identity"),
    ("impossible rules", "rules"),
    ("proof soundness", "rules"),
    ("coin nonce", "bad-coin-reveal"),
    ("during hand", "wrong-hand"),
    ("before the deal was complete", "out-of-turn"),
    ("before the hand was over", "out-of-turn"),
    ("in the name of player", "impersonation"),
    ("withheld", "withheld-key"),
    ("it owed", "withheld-key"),
    ("key that shows", "withheld-key"),
    ("does not call for", "extra-key"),
    ("falsely claimed", "false-claim"),
    ("finds every deck step sound", "false-abort"),
    ("do not call for", "extra-key"),
    ("without being opened", "not-your-card"),
)


def classify(exc: ProtocolError) -> ProblemKind:
    """The kind of a session error, always one of ``ProblemKind`` (never peer-chosen text).

    An error that knows its kind (a mental-poker error carries its code) says so;
    else the kind is found from the sentence, and a code in brackets at its end
    counts only if it is a known kind.
    """
    if exc.kind is not None:
        known = ProblemKind.named(exc.kind)
        if known is not None:
            return known
    text = str(exc)
    if text.endswith("]") and "[" in text:
        known = ProblemKind.named(text[text.rindex("[") + 1 : -1])
        if known is not None:
            return known
    for needle, kind in _KINDS:
        if needle in text:
            return ProblemKind(kind)
    if isinstance(exc, LocalProtocolError):
        return ProblemKind.INTERNAL
    return ProblemKind.PROTOCOL


@dataclass
class HandLog:
    """Which records belong to one hand, and which of them carried its moves."""

    number: int
    records: list[int] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)


@dataclass
class Verification:
    """The report, plus the machine and record map that ``show`` and ``export`` build on."""

    report: Report
    machine: Machine
    logs: dict[int, HandLog]
    records: tuple[Record, ...] = ()  # the records read, up to and including the first bad one

    def table(self, number: int) -> HandTable | None:
        for table in self.machine.hands:
            if table.number == number:
                return table
        return None


def verify_file(path: Path | str) -> Verification:
    """Verify a replay file as it streams in: memory is bounded by the game, not the file.

    Never raises for bad content (an unreadable file is a verdict); reading
    stops at the first bad record (a bad proof or key: at the end of its hand,
    where its held-back check fails), so a huge tail is never read.
    """
    try:
        with open_replay(path) as reader:
            return verify_stream(reader.version, reader, lambda: reader.damage)
    except ReplayFormatError as exc:
        return unreadable(str(exc))
    except OSError as exc:
        return unreadable(f"cannot read {path}: {exc.strerror or exc}")


def verify_bytes(data: bytes) -> Verification:
    try:
        reader = ReplayReader(io.BytesIO(data))
    except ReplayFormatError as exc:
        return unreadable(str(exc))
    return verify_stream(reader.version, reader, lambda: reader.damage)


def unreadable(why: str) -> Verification:
    return Verification(Report(Status.UNREADABLE, 0, unreadable=why), Machine(), {})


def verify_replay(replay: ReplayFile) -> Verification:
    return verify_stream(replay.version, replay.records, lambda: replay.damage)


def verify_stream(
    version: int, records: Iterable[Record], damage: Callable[[], Damage | None]
) -> Verification:
    """Feed ``records`` in order until the first problem; ``damage()`` says, once they run
    out, whether the file stopped at damage. Keeps the records up to the first bad one.

    Proofs are held back for each hand's audit (``ProofBacklog``), which checks them
    with the revealed secrets at about half the cost. Should any of them fail, the
    records read are verified again with every proof checked on arrival, so the
    verdict is always the one a live judge reaches.
    """
    backlog = ProofBacklog()
    verification, found = _verify(records, damage, version, backlog)
    backlog.settle_rest()
    machine = verification.machine
    machine.backlog = None  # whoever goes on with this machine checks on arrival again
    for table in machine.hands:
        table.crypto.backlog = None
    if backlog.sound:
        return verification
    kept = verification.records
    return _verify(kept, lambda: found, version, None)[0]


def _verify(
    records: Iterable[Record],
    damage: Callable[[], Damage | None],
    version: int,
    backlog: ProofBacklog | None,
) -> tuple[Verification, Damage | None]:
    stream = iter(records)
    head = list(itertools.islice(stream, MAX_PARTIES + 1))
    run = _Run(seats_of(head))
    run.machine.backlog = backlog
    problem = None
    kept: list[Record] = []
    for index, record in enumerate(itertools.chain(head, stream)):
        kept.append(record)
        problem = run.feed(index, record)
        if problem is not None or (backlog is not None and backlog.failed):
            break  # a failed held-back check: the caller reads again, checking on arrival
    found = damage()
    if problem is None and found is not None:
        problem = _damage_problem(found)
    verification = Verification(
        build_report(run.machine, run.logs, len(kept), version, problem),
        run.machine,
        run.logs,
        tuple(kept),
    )
    return verification, found


def verify_records(records: list[Record] | tuple[Record, ...]) -> Verification:
    """Verify records already in memory (as both peers hold them after a match)."""
    return verify_replay(ReplayFile(1, tuple(records), None, 0))


def _damage_problem(damage: Damage) -> Problem:
    before = (
        f"records 0-{damage.index - 1} are valid"
        if damage.index
        else "there are no complete records"
    )
    if damage.kind == "truncated":
        text = (
            f"the file ends in the middle of record {damage.index} at byte {damage.offset} "
            f"({damage.detail}): a crash or a cut copy; {before}"
        )
    else:
        text = f"record {damage.index} at byte {damage.offset} is damaged: {damage.detail}"
    return Problem(damage.index, damage.index, ProblemKind(damage.kind), text, None)


def seats_of(head: Sequence[Record]) -> int:
    """The table size the first records introduce: their leading hellos, in seat order.

    Two when they introduce fewer (the machine then says what is missing) and
    at most ``MAX_SEATS`` (a fifth hello is then refused where the proposal was due).
    """
    count = 0
    for record in head:
        if record.author != count:
            break
        try:
            body = msg.decode(record.body, record.author)
        except ProtocolError:
            break
        if not isinstance(body, msg.Hello):
            break
        count += 1
    return min(max(count, 2), MAX_SEATS)


class _Run:
    """Feeds records to a verifying machine and turns its errors into problems."""

    def __init__(self, seats: int = 2) -> None:
        self.machine = Machine(seats=seats)
        self.logs: dict[int, HandLog] = {}

    def feed(self, index: int, record: Record) -> Problem | None:
        problem = self._chain_problem(index, record)
        if problem is not None:
            return problem
        hand = self.machine.hand
        try:
            events = self.machine.receive(record)
        except ProtocolError as exc:
            return self._problem(index, record, exc, hand)
        if hand is not None:
            log = self.logs.setdefault(hand.number, HandLog(hand.number))
            log.records.append(index)
            if any(isinstance(e, ev.MoveMade) for e in events):
                log.moves.append(index)
        return None

    def _chain_problem(self, index: int, record: Record) -> Problem | None:
        try:
            self.machine.chain.check_next(record)  # the machine's own check, to classify
        except RecordError as exc:
            where = f"record {index} (sequence number {record.seq}, by seat {record.author})"
            accepted = self.machine.records
            if record.seq < len(accepted):
                earlier = accepted[record.seq]
                if earlier == record:
                    return Problem(
                        index,
                        index,
                        ProblemKind.DUPLICATE_RECORD,
                        f"{where} repeats record {record.seq} byte for byte: a copy, "
                        "not something a player sent",
                        None,
                    )
                key = self.machine.identity_key(record.author)
                if (
                    earlier.author == record.author
                    and key is not None
                    and record.verify_signature(key)
                ):
                    return Problem(
                        index,
                        index,
                        ProblemKind.EQUIVOCATION,
                        f"player {record.author} signed two different records with sequence "
                        f"number {record.seq} (records {record.seq} and {index}): equivocation",
                        record.author,
                    )
            return Problem(
                index,
                index,
                ProblemKind.CHAIN,
                f"{where}: {exc}; the file was cut, reordered or edited after signing",
                None,
            )
        return None

    def _signing_key(self, record: Record) -> bytes | None:
        key = self.machine.identity_key(record.author)
        if key is not None:
            return key
        try:
            body = msg.decode(record.body, record.author)
        except ProtocolError:
            return None
        return body.public_key if isinstance(body, msg.Hello) else None

    def _problem(
        self, index: int, record: Record, exc: ProtocolError, hand: HandTable | None
    ) -> Problem:
        author = record.author
        key = self._signing_key(record)
        if key is None:
            return Problem(
                index,
                index,
                ProblemKind.MALFORMED,
                f"record {index} names seat {author}, whose identity key is unknown, and is "
                f"no readable introduction ({exc})",
                None,
            )
        if not record.verify_signature(key):
            return Problem(
                index,
                index,
                ProblemKind.SIGNATURE,
                f"record {index} claims to be by player {author} but is not signed by player "
                f"{author}'s identity key: forged, or altered after signing",
                None,
            )
        kind = classify(exc)
        culprit = None if kind in UNATTRIBUTABLE else exc.culprit
        first = index
        if kind is ProblemKind.ILLEGAL_MOVE and hand is not None and hand.number in self.logs:
            found = _illegal_move_record(hand, self.logs[hand.number].moves)
            if found is not None:
                first = found
        return Problem(first, index, kind, str(exc), culprit)


def _illegal_move_record(hand: HandTable, move_records: list[int]) -> int | None:
    """The record of the first move the hand's audited deck shows to be illegal."""
    try:
        deck = audit(HandTranscript(hand.config, tuple(hand.crypto.payloads))).deck
        state = hand.public.new_state(deck)
    except (CryptoError, EngineError):
        return None
    for i, code in enumerate(hand.public.moves):
        try:
            state = state.apply(code)
        except EngineError:
            return move_records[i] if i < len(move_records) else None
    return None


# ---------------------------------------------------------------------- the report


def build_report(
    machine: Machine,
    logs: dict[int, HandLog],
    records: int,
    version: int,
    problem: Problem | None,
) -> Report:
    players = _players(machine)
    stage = machine.stage
    ending = {
        Stage.OVER: Ending.WON,
        Stage.RESIGNED: Ending.RESIGNED,
        Stage.ABANDONED: Ending.ABANDONED,
        Stage.REFUSED: Ending.REFUSED,
    }.get(stage, Ending.UNFINISHED)
    winner: int | None = None
    two = machine.seats == 2
    if stage == Stage.OVER and machine.match is not None:
        winner = machine.match.winner
    elif stage == Stage.OVER and machine.table is not None and machine.table_match is not None:
        winner = machine.table.winner(machine.table_match)
    elif stage == Stage.RESIGNED and machine.resigned is not None and two:
        winner = 1 - machine.resigned
    elif stage == Stage.ABANDONED and machine.abandoned is not None and two:
        winner = 1 - machine.abandoned
    elif stage in (Stage.RESIGNED, Stage.ABANDONED) and machine.seats == 4:
        quitter = machine.resigned if stage == Stage.RESIGNED else machine.abandoned
        winner = None if quitter is None else 1 - quitter % 2  # the other partnership
    if problem is not None:
        status = Status.INVALID
    elif machine.over:
        status = Status.VALID
    else:
        status = Status.UNFINISHED
    expect = machine.expected()
    waiting = (
        Waiting(expect.author, expect.what)
        if expect is not None and status is Status.UNFINISHED
        else None
    )
    return Report(
        status=status,
        records=records,
        format_version=version,
        players=players,
        options=machine.options,
        soundness=machine.soundness,
        move_seconds=machine.move_seconds,
        session_id=machine.session_id or None,
        first_dealer=machine.first_dealer,
        hands=_hand_summaries(machine, logs),
        ending=ending,
        winner=winner,
        game_points=machine.match.game_points if machine.match is not None else (0, 0),
        resigned=machine.resigned,
        reason=machine.resign_reason or machine.refusal,
        abandoned=machine.abandoned,
        abandoned_at=machine.abandoned_at,
        waiting=waiting,
        problem=problem,
        table=machine.table.options if machine.table is not None else None,
        table_hands=_table_hand_summaries(machine, logs),
        scores=machine.table.scores(machine.table_match)
        if machine.table is not None and machine.table_match is not None
        else (),
    )


def _players(machine: Machine) -> tuple[Player, ...]:
    """The players as their accepted hello records introduced them."""
    out = []
    for record in machine.records[: machine.seats]:
        body = msg.decode(record.body, record.author)
        if isinstance(body, msg.Hello):
            out.append(Player(record.author, body.name, body.public_key, body.software))
    return tuple(out)


def _hand_summaries(machine: Machine, logs: dict[int, HandLog]) -> tuple[HandSummary, ...]:
    if machine.options is None or machine.match is None:
        return ()
    trump_pos = deal_layout(machine.options).trump
    standing = Match(machine.options, machine.match.first_dealer)
    out = []
    for table in machine.hands:
        log = logs.get(table.number)
        if log is None or not log.records:
            continue
        points = None
        if table.result is not None:
            standing = standing.record(table.result)
            points = standing.game_points
        out.append(
            HandSummary(
                number=table.number,
                dealer=table.dealer,
                trump=None if table.dealing else table.public.known[trump_pos],
                first_record=log.records[0],
                last_record=log.records[-1],
                moves=len(table.public.moves),
                audited=table.deck is not None,
                result=table.result,
                game_points=points,
                marriages=tuple(table.state.marriages),
                exchanges=tuple(
                    a
                    for code, a in zip(table.public.moves, table.authors, strict=True)
                    if code == EXCHANGE
                ),
            )
        )
    return tuple(out)


def _table_hand_summaries(
    machine: Machine, logs: dict[int, HandLog]
) -> tuple[TableHandSummary, ...]:
    """The hands of a game for three or four, re-scored from the start of the match."""
    table = machine.table
    if table is None or machine.first_dealer is None:
        return ()
    standing = table.new_match(machine.first_dealer)
    names = tuple(machine.names)
    out = []
    for hand in machine.hands:
        log = logs.get(hand.number)
        if log is None or not log.records:
            continue
        outcome = scores = None
        if hand.result is not None:
            standing = table.record(standing, hand)
            outcome = table.describe(table.last_result(standing), names)
            scores = table.scores(standing)
        out.append(
            TableHandSummary(
                number=hand.number,
                dealer=hand.table_dealer,
                first_record=log.records[0],
                last_record=log.records[-1],
                moves=len(hand.public.moves),
                audited=hand.deck is not None,
                outcome=outcome,
                scores=scores,
            )
        )
    return tuple(out)
