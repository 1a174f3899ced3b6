"""The peer protocol as one seat-agnostic state machine (in the spirit of h11).

``Machine`` accepts signed records in order, whoever wrote them, and checks
each against one table of who may send what and when; it never knows which
seat is "us", so both peers, and the replay verifier, apply the very same
rules to both players. A peer's own secrets stay outside: it may attach a
``LocalSide`` so that its mental-poker party applies payloads (verifying the
other's, skipping its own) and its own cards join the judging.

Setup (one message per record; consecutive records by one author form one
flight)::

    hello(0) hello(1) propose(0) accept|refuse(1)
    coin-commit(0) coin-commit(1) coin-reveal(1) coin-reveal(0)

With N seats (``Machine(seats=N)``, the games for three and four players)
the same in seat order: hello(0..N-1) propose(0) accept(1..N-1), commits
0..N-1, reveals N-1..0 (SPEC.md section 23). Then ``TableGame`` says how a
hand maps onto the table; everything else below is the same for every N.

Each hand: deal flights (dealer shuffles; non-dealer shuffles, re-keys and
sends its deal keys; dealer re-keys and sends its deal keys), then moves by
the player to act (with the card keys they carry) and ``keys`` messages by a
player who owes keys the player to act needs, then both seeds (the player
who did not make the last move first).

Once the coin flip has begun either player may end the match at any time:
with ``resign`` (leaving on purpose), or, when the other player was to send
and stayed silent past the time limit and the reconnect grace, with an
``abandoned`` claim naming it (refused as a false claim if the chain shows
it was not that player's turn).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

import msgpack

from p2p66 import __version__
from p2p66.crypto.backlog import ProofBacklog
from p2p66.crypto.coinflip import coin_commitment, coin_result
from p2p66.crypto.config import ARGUMENT, MAX_ROUNDS, HandConfig, is_soundness
from p2p66.crypto.errors import CheatingDetected as CryptoCheat
from p2p66.crypto.errors import CryptoError
from p2p66.crypto.messages import HandPayload, KeyReveal, SeedReveal, decode_payload
from p2p66.crypto.state import HandState as CryptoState
from p2p66.engine import EngineError, Match, RuleOptions
from p2p66.engine.moves import MOVE_NOTATION, parse_move_code
from p2p66.engine.table import TableOptions, table_options_from_wire
from p2p66.session import events as ev
from p2p66.session import messages as msg
from p2p66.session.errors import (
    AuditFinding,
    CheatingDetected,
    HandAborted,
    LocalProtocolError,
    PeerResigned,
    ProtocolError,
    RemoteProtocolError,
)
from p2p66.session.handplay import HandTable, blame
from p2p66.session.records import GENESIS, Chain, Record, RecordError
from p2p66.session.tablegame import TableGame, TableMatchState

MAX_SOUNDNESS = MAX_ROUNDS


class Stage(Enum):
    HELLO = "hello"
    PROPOSE = "propose"
    ANSWER = "answer"
    COIN = "coin"
    HAND = "hand"
    OVER = "over"
    REFUSED = "refused"
    RESIGNED = "resigned"
    ABANDONED = "abandoned"


@dataclass(frozen=True, slots=True)
class Expectation:
    """Who must send the next record, and which message types are acceptable."""

    author: int
    kinds: tuple[type[msg.Message], ...]
    what: str


class LocalSide(Protocol):
    """A peer's private side of each hand: its mental-poker party (see ``peer.py``)."""

    seat: int

    def begin_hand(self, config: HandConfig) -> None:
        """A new hand starts: make this seat's party for it."""

    def apply_remote(self, payloads: Sequence[HandPayload]) -> None:
        """Check and apply the other player's flight with our party (raises on cheating)."""

    def known_cards(self) -> dict[int, int]:
        """Every position whose card we know: our own and the public ones."""


ENDINGS: tuple[type[msg.Message], ...] = (msg.Resign, msg.Abandoned)
"""Messages either player may send once the match is under way: they end it."""


def coin_order(seats: int) -> tuple[tuple[str, int], ...]:
    """Commitments in seat order, then the nonces in reverse: the last to commit reveals first."""
    return (
        *(("commit", s) for s in range(seats)),
        *(("reveal", s) for s in reversed(range(seats))),
    )


COIN_ORDER = coin_order(2)


class Machine:
    """Records in (any author, in chain order), events out; raises ProtocolError."""

    def __init__(self, local: LocalSide | None = None, seats: int = 2) -> None:
        if not 2 <= seats <= 4:
            raise LocalProtocolError(f"a table has 2, 3 or 4 seats, not {seats}")
        self.local = local
        self.seats = seats
        self.coin_order = coin_order(seats)
        self.table: TableGame | None = None
        """The game for three or four players (None: the two-player game, ``options``)."""
        self.table_match: TableMatchState | None = None
        self.accepted = 0
        self.chain = Chain()
        self.records: list[Record] = []
        self.stage = Stage.HELLO
        self.names: list[str] = []
        self.keys: list[bytes] = []
        self.options: RuleOptions | None = None
        self.soundness = 0
        self.move_seconds = 0
        self.commits: dict[int, bytes] = {}
        self.nonces: dict[int, bytes] = {}
        self.coin_step = 0
        self.session_id = b""
        self.match: Match | None = None
        self.hand: HandTable | None = None
        self.hands: list[HandTable] = []
        self.resigned: int | None = None
        self.resign_reason = ""
        self._before_end = Stage.HELLO
        """The stage a resignation or claim ended (a withdrawn one at a table puts it back)."""
        self.abandoned: int | None = None
        """The seat that went silent, as the other's accepted claim says."""
        self.abandoned_at: int | None = None
        """The record it owed (the claim's own sequence number)."""
        self.refusal = ""
        self.backlog: ProofBacklog | None = None
        """A replay verifier's: proofs wait for each hand's audit instead of being checked
        on arrival (``p2p66.crypto.backlog``). Never set for a peer."""

    # ----------------------------------------------------------------- queries

    @property
    def over(self) -> bool:
        return self.stage in (Stage.OVER, Stage.REFUSED, Stage.RESIGNED, Stage.ABANDONED)

    def expected(self) -> Expectation | None:
        """The next record's author and acceptable types; None once the match is over."""
        stage = self.stage
        if stage == Stage.HELLO:
            return Expectation(len(self.names), (msg.Hello,), "introduce itself")
        if stage == Stage.PROPOSE:
            return Expectation(0, (msg.Propose,), "propose the rules")
        if stage == Stage.ANSWER:
            return Expectation(
                1 + self.accepted, (msg.Accept, msg.Refuse), "accept or refuse the rules"
            )
        if stage == Stage.COIN:
            kind, seat = self.coin_order[self.coin_step]
            cls = msg.CoinCommit if kind == "commit" else msg.CoinReveal
            return Expectation(seat, (cls, *ENDINGS), f"{kind} its coin-flip nonce")
        if stage == Stage.HAND and self.hand is not None:
            author, what = self.hand.expected()
            cls_for = {"deal": msg.Deal, "move": msg.Move, "keys": msg.Keys, "reveal": msg.Reveal}
            return Expectation(author, (cls_for[what], *ENDINGS), f"send its {what}")
        return None

    def identity_key(self, seat: int) -> bytes | None:
        return self.keys[seat] if seat < len(self.keys) else None

    # ----------------------------------------------------------------- records

    def receive(self, record: Record) -> list[ev.Event]:
        """Check and accept the next record; ProtocolError names what is wrong and who did it."""
        author = record.author
        try:
            self.chain.check_next(record)
        except RecordError as exc:
            raise CheatingDetected(f"player {author}: {exc}", author) from None
        body = msg.decode(record.body, author)
        key = body.public_key if isinstance(body, msg.Hello) else self.identity_key(author)
        if key is None or not record.verify_signature(key):
            raise CheatingDetected(
                f"record {record.seq} is not signed by player {author}'s identity key "
                "(forged or altered)",
                author,
            )
        expect = self.expected()
        if expect is None:
            raise RemoteProtocolError(
                f"player {author} sent {body.TYPE} after the match was over", author
            )
        # a seed before the hand's end stops it for an audit, whoever's turn it is
        aborting = (
            isinstance(body, msg.Reveal) and self.hand is not None and self.hand.can_abort(author)
        )
        if isinstance(body, msg.Abandoned):
            self._check_claim(author, body, record.seq, expect)
        elif aborting or (isinstance(body, msg.Resign) and msg.Resign in expect.kinds):
            pass  # a resignation, too, is in turn whoever sends it
        elif author != expect.author:
            raise CheatingDetected(
                f"player {author} sent {body.TYPE} out of turn: player {expect.author} "
                f"was to {expect.what}",
                author,
            )
        if not aborting and not isinstance(body, expect.kinds):
            wanted = " or ".join(k.TYPE for k in expect.kinds)
            raise RemoteProtocolError(
                f"player {author} sent {body.TYPE} where {wanted} was expected", author
            )
        try:
            out = self._dispatch(author, body)
        except AuditFinding:
            self._accept(record)  # a sound record: the finding is about earlier ones
            raise
        except HandAborted as exc:
            self._accept(record)  # its keys are right: a deck step before it was bad
            assert self.hand is not None
            return [ev.AuditCalled(self.hand.number, str(exc))]
        self._accept(record)
        return out

    def _accept(self, record: Record) -> None:
        self.chain.advance(record)
        self.records.append(record)

    def _check_claim(self, author: int, body: msg.Abandoned, seq: int, expect: Expectation) -> None:
        """A claim of abandonment holds only if the chain shows it was the other's turn."""
        if msg.Resign not in expect.kinds:
            raise RemoteProtocolError(
                f"player {author} claimed that player {body.player} abandoned the match "
                f"before the match had started",
                author,
            )
        if expect.author == author or body.player != expect.author or body.record != seq:
            raise CheatingDetected(
                f"player {author} falsely claimed that player {body.player} abandoned the match "
                f"at record {body.record}: at record {seq} it was player {expect.author}'s turn "
                f"to {expect.what}",
                author,
            )
        if self.seats > 2 and author != 0:
            raise CheatingDetected(
                f"player {author} falsely claimed that player {body.player} abandoned the match: "
                "at a table only the host (seat 0), whose star carries every link, can claim that",
                author,
            )

    def end_crossed(self, record: Record) -> tuple[list[ev.Event], list[Record]] | None:
        """A resignation or claim that crossed records of ours on the wire, or None.

        The other player signed it before our latest records reached it, so it
        chains to an earlier record. It ends the match there: our crossing
        records are void (the other player never accepted them), and both
        chains end with it. Returns the events and the voided records. At a
        table the host's order decided it (SPEC "Resigning at a table"): the
        records it displaced are one seat's, and a claim is the host's.
        """
        seq, author = record.seq, record.author
        later = self.records[seq:] if 0 < seq < len(self.records) else []
        if not later or any(r.author == author for r in later) or self.over:
            return None
        if len({r.author for r in later}) != 1:
            return None
        if record.prev != self.records[seq - 1].digest:
            return None
        key = self.identity_key(author)
        if key is None or not record.verify_signature(key):
            return None
        try:
            body = msg.decode(record.body, author)
        except ProtocolError:
            return None
        other = later[0].author
        if isinstance(body, msg.Abandoned):
            if body.player != other or body.record != seq or (self.seats > 2 and author != 0):
                return None
        elif not isinstance(body, msg.Resign):
            return None
        self._rewind(seq)
        self._accept(record)
        return self._dispatch(author, body), later

    def _rewind(self, seq: int) -> None:
        """The chain ends before record ``seq`` again (later records are void)."""
        self.records = self.records[:seq]
        self.chain.next_seq = seq
        self.chain.head = self.records[-1].digest if self.records else GENESIS

    def withdraw(self, seq: int) -> Record:
        """Take back our resignation or claim of abandonment, record ``seq``, the last one:
        at a table the host put another seat's record in its place (they crossed), so it is
        void and the match goes on from before it (a seat signs its resignation again, on
        the new head; the host's claim gives way to the resignation that came first)."""
        last = self.records[-1] if self.records else None
        ending = self.stage in (Stage.RESIGNED, Stage.ABANDONED)
        if last is None or last.seq != seq or not ending or self.seats == 2:
            raise LocalProtocolError(
                f"record {seq} is not a resignation or claim that can be withdrawn"
            )
        self._rewind(seq)
        self.stage = self._before_end
        self.resigned, self.resign_reason = None, ""
        self.abandoned, self.abandoned_at = None, None
        return last

    def _dispatch(self, author: int, body: msg.Message) -> list[ev.Event]:
        if isinstance(body, msg.Resign):
            self._before_end = self.stage
            self.stage = Stage.RESIGNED
            self.resigned = author
            self.resign_reason = body.reason
            return [ev.Resigned(author, body.reason)]
        if isinstance(body, msg.Abandoned):
            self._before_end = self.stage
            self.stage = Stage.ABANDONED
            self.abandoned, self.abandoned_at = body.player, body.record
            return [ev.Abandoned(body.player, body.record)]
        if isinstance(body, msg.Hello):
            return self._hello(author, body)
        if isinstance(body, msg.Propose):
            return self._propose(body)
        if isinstance(body, msg.Accept):
            self.accepted += 1
            if self.accepted == self.seats - 1:
                self.stage = Stage.COIN
            return []
        if isinstance(body, msg.Refuse):
            self.stage = Stage.REFUSED
            self.refusal = body.reason
            return [ev.RulesRefused(body.reason)]
        if isinstance(body, msg.CoinCommit | msg.CoinReveal):
            return self._coin(author, body)
        return self._hand_record(author, body)

    def _hello(self, author: int, body: msg.Hello) -> list[ev.Event]:
        if body.public_key in self.keys:
            raise RemoteProtocolError(
                f"player {author} reused the other player's identity key", author
            )
        self.names.append(body.name)
        self.keys.append(body.public_key)
        if len(self.names) == self.seats:
            self.stage = Stage.PROPOSE
        return [ev.PlayerJoined(author, body.name, body.public_key)]

    def _propose(self, body: msg.Propose) -> list[ev.Event]:
        if self.seats != 2:
            return self._propose_table(body)
        try:
            options = RuleOptions.from_wire(body.options)
        except EngineError as exc:
            raise RemoteProtocolError(f"player 0 proposed impossible rules: {exc}", 0) from None
        if tuple(body.options) != tuple(options.to_dict()):
            raise RemoteProtocolError(
                "malformed message: player 0 proposed the rule options out of order "
                "(the order is RULES.md's, as SPEC.md section 18 lists them)",
                0,
            )
        self._check_proposal(body)
        self.options = options
        self.soundness = body.soundness
        self.move_seconds = body.move_seconds
        self.stage = Stage.ANSWER
        return [ev.RulesProposed(options, body.soundness, body.move_seconds)]

    def _propose_table(self, body: msg.Propose) -> list[ev.Event]:
        """The host proposes a game for three or four: it must be a game of this many seats."""
        try:
            options = table_options_from_wire(body.options)
        except EngineError as exc:
            raise RemoteProtocolError(f"player 0 proposed impossible rules: {exc}", 0) from None
        if options.players != self.seats:
            raise RemoteProtocolError(
                f"player 0 proposed a game for {options.players} players at a table of "
                f"{self.seats}",
                0,
            )
        if msgpack.packb(body.options) != msgpack.packb(options.to_dict()):
            raise RemoteProtocolError(
                "malformed message: player 0 proposed the rule options out of order or "
                "mistyped (the order is RULES.md's, as SPEC.md section 23 lists them)",
                0,
            )
        self._check_proposal(body)
        self.table = TableGame(options)
        self.soundness = body.soundness
        self.move_seconds = body.move_seconds
        self.stage = Stage.ANSWER
        return [ev.TableRulesProposed(options, body.soundness, body.move_seconds)]

    @staticmethod
    def _check_proposal(body: msg.Propose) -> None:
        if not is_soundness(body.soundness):
            raise RemoteProtocolError(
                f"player 0 proposed proof soundness {body.soundness} (0 off, 1..{MAX_SOUNDNESS} "
                f"cut-and-choose rounds, or {ARGUMENT} for the shuffle argument)",
                0,
            )

    def coin_context(self) -> bytes:
        """Binds the coin flip (so the session id) to every identity and everything proposed."""
        rules = self.rules
        assert rules is not None
        opts = msgpack.packb(dict(sorted(rules.to_dict().items())))
        return hashlib.sha256(
            b"p2p66/session-context/v1"
            + b"".join(self.keys)
            + opts
            + self.soundness.to_bytes(2, "big")
            + self.move_seconds.to_bytes(4, "big")
        ).digest()

    def _coin(self, author: int, body: msg.CoinCommit | msg.CoinReveal) -> list[ev.Event]:
        if isinstance(body, msg.CoinCommit):
            self.commits[author] = body.commitment
        else:
            if coin_commitment(self.coin_context(), author, body.nonce) != self.commits[author]:
                raise CheatingDetected(
                    f"player {author} revealed a coin nonce that does not match its commitment",
                    author,
                )
            self.nonces[author] = body.nonce
        self.coin_step += 1
        if self.coin_step < len(self.coin_order):
            return []
        seats = range(self.seats)
        result = coin_result(
            self.coin_context(),
            [self.commits[s] for s in seats],
            [self.nonces[s] for s in seats],
        )
        self.session_id = result.session_id
        if self.table is not None:
            self.table_match = self.table.new_match(result.first_dealer)
        else:
            assert self.options is not None
            self.match = Match(self.options, first_dealer=result.first_dealer)
        self.stage = Stage.HAND
        return [ev.MatchStarted(result.session_id, result.first_dealer), *self._start_hand()]

    @property
    def rules(self) -> RuleOptions | TableOptions | None:
        """The rules proposed: two-player options, or a game for three or four."""
        return self.table.options if self.table is not None else self.options

    @property
    def first_dealer(self) -> int | None:
        match = self.table_match if self.table is not None else self.match
        return match.first_dealer if match is not None else None

    def notation(self, code: int) -> str:
        """A move code in the canonical notation of this match's game."""
        return self.table.notation(code) if self.table is not None else MOVE_NOTATION[code]

    def parse_move(self, text: str) -> int:
        """The code of a canonical move of this game; EngineError otherwise."""
        if self.table is not None:
            return self.table.parse_move(text)
        code = parse_move_code(text)
        if MOVE_NOTATION[code] != text:
            raise EngineError("not canonical")
        return code

    def _start_hand(self) -> list[ev.Event]:
        if self.table is not None:
            assert self.table_match is not None
            hand = self.table.hand_table(self.table_match, self.session_id, self.soundness)
            return self._begin(hand)
        assert self.match is not None and self.options is not None
        number = self.match.hand_number
        dealer = self.match.dealer
        config = HandConfig.for_game(self.options, self.session_id, number, dealer, self.soundness)
        return self._begin(HandTable(self.options, config, dealer, CryptoState(config)))

    def _begin(self, hand: HandTable) -> list[ev.Event]:
        hand.crypto.backlog = self.backlog
        if self.local is not None:
            self.local.begin_hand(hand.config)
        self.hand = hand
        self.hands.append(hand)
        return [ev.HandStarted(hand.number, hand.table_dealer)]

    def _apply_for(self, author: int) -> Callable[[Sequence[HandPayload]], None]:
        """How a payload reaches the public crypto state, verified exactly once.

        Without a local side (the verifier) every proof is checked here. A peer's
        party checks the other's payloads (it must, to learn its cards) and made
        its own, so the public state then skips re-verifying the proofs.
        """
        assert self.hand is not None
        crypto = self.hand.crypto
        local = self.local
        verify = local is None

        hand = self.hand

        def apply(payloads: Sequence[HandPayload]) -> None:
            checked = verify
            if local is not None and author != local.seat:
                try:
                    local.apply_remote(payloads)
                except CryptoCheat as exc:
                    if exc.party is not None:
                        raise
                    # our own cards show a bad deck step nobody else can see: the public
                    # state goes on as any verifier's would, and we stop the hand
                    hand.alarm = str(exc)
                    checked = True
            for p in payloads:
                crypto.apply(p, verify=checked)

        return apply

    def _payload(self, author: int, data: dict[str, Any], key: str = "payload") -> Any:
        try:
            return decode_payload(data.get(key))
        except CryptoError as exc:
            raise blame(exc, author) from None

    def _hand_record(self, author: int, body: msg.Message) -> list[ev.Event]:
        hand = self.hand
        assert hand is not None
        number = getattr(body, "hand", hand.number)
        if number != hand.number:
            raise CheatingDetected(
                f"player {author} sent a message of hand {number} during hand "
                f"{hand.number} (replayed or reordered)",
                author,
            )
        apply = self._apply_for(author)
        out: list[ev.Event] = []
        if isinstance(body, msg.Deal):
            items = body.data.get("payloads")
            if not isinstance(items, list) or not 1 <= len(items) <= 8:
                raise RemoteProtocolError(
                    f"player {author} sent a deal flight without payloads", author
                )
            try:
                payloads = [decode_payload(p) for p in items]
            except CryptoError as exc:
                raise blame(exc, author) from None
            hand.apply_deal(author, payloads, apply)
            self._learn_private()
            if not hand.dealing:
                out.append(ev.DealComplete(hand.number))
        elif isinstance(body, msg.Move):
            try:
                code = self.parse_move(body.move)
            except EngineError:
                raise RemoteProtocolError(
                    f"player {author} sent {body.move!r}, not a move in canonical notation", author
                ) from None
            payload = self._keys_payload(author, body.data)
            hand.apply_move(author, code, payload, apply)
            self._learn_private()
            out.append(ev.MoveMade(author, code))
        elif isinstance(body, msg.Keys):
            payload = self._keys_payload(author, body.data)
            if payload is None:
                raise RemoteProtocolError(
                    f"player {author} sent a keys message without keys", author
                )
            hand.apply_keys(author, payload, apply)
            self._learn_private()
        elif isinstance(body, msg.Reveal):
            seed = self._payload(author, body.data)
            if not isinstance(seed, SeedReveal):
                raise RemoteProtocolError(f"player {author} sent a reveal without its seed", author)
            hand.apply_seed(author, seed, apply)
            if hand.result is not None:
                out.extend(self._end_hand(hand))
        return out

    def _keys_payload(self, author: int, data: dict[str, Any]) -> KeyReveal | None:
        if "payload" not in data:
            return None
        payload = self._payload(author, data)
        if not isinstance(payload, KeyReveal):
            raise RemoteProtocolError(
                f"player {author} attached a non-key payload to a move", author
            )
        return payload

    def _learn_private(self) -> None:
        if self.local is not None and self.hand is not None and not self.hand.dealing:
            self.hand.learn_private(self.local.known_cards())

    def _end_hand(self, hand: HandTable) -> list[ev.Event]:
        if self.table is not None:
            return self._end_table_hand(self.table, hand)
        assert self.match is not None and hand.result is not None
        self.match = self.match.record(hand.result)
        out: list[ev.Event] = [ev.HandEnded(hand.number, hand.result, self.match.game_points)]
        if self.match.winner is not None:
            self.stage = Stage.OVER
            self.hand = None
            out.append(ev.MatchEnded(self.match.winner, self.match.game_points))
        else:
            out.extend(self._start_hand())
        return out

    def _end_table_hand(self, table: TableGame, hand: HandTable) -> list[ev.Event]:
        assert self.table_match is not None
        match = self.table_match = table.record(self.table_match, hand)
        scores = table.scores(match)
        out: list[ev.Event] = [ev.TableHandEnded(hand.number, table.last_result(match), scores)]
        winner = table.winner(match)
        if winner is not None:
            self.stage = Stage.OVER
            self.hand = None
            out.append(ev.TableMatchEnded(winner, scores))
        else:
            out.extend(self._start_hand())
        return out


def software() -> str:
    return f"p2p66/{__version__}"


__all__ = [
    "CheatingDetected",
    "Expectation",
    "LocalProtocolError",
    "LocalSide",
    "Machine",
    "PeerResigned",
    "ProtocolError",
    "Stage",
    "software",
]
