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
from p2p66.crypto.coinflip import coin_commitment, coin_result
from p2p66.crypto.config import ARGUMENT, MAX_ROUNDS, HandConfig, is_soundness
from p2p66.crypto.errors import CryptoError
from p2p66.crypto.messages import HandPayload, KeyReveal, SeedReveal, decode_payload
from p2p66.crypto.state import HandState as CryptoState
from p2p66.engine import EngineError, Match, RuleOptions
from p2p66.engine.moves import MOVE_NOTATION, parse_move_code
from p2p66.session import events as ev
from p2p66.session import messages as msg
from p2p66.session.errors import (
    AuditFinding,
    CheatingDetected,
    LocalProtocolError,
    PeerResigned,
    ProtocolError,
    RemoteProtocolError,
)
from p2p66.session.handplay import HandTable, blame
from p2p66.session.records import Chain, Record, RecordError

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

COIN_ORDER = (("commit", 0), ("commit", 1), ("reveal", 1), ("reveal", 0))


class Machine:
    """Records in (any author, in chain order), events out; raises ProtocolError."""

    def __init__(self, local: LocalSide | None = None) -> None:
        self.local = local
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
        self.abandoned: int | None = None
        """The seat that went silent, as the other's accepted claim says."""
        self.abandoned_at: int | None = None
        """The record it owed (the claim's own sequence number)."""
        self.refusal = ""

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
            return Expectation(1, (msg.Accept, msg.Refuse), "accept or refuse the rules")
        if stage == Stage.COIN:
            kind, seat = COIN_ORDER[self.coin_step]
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
        if isinstance(body, msg.Abandoned):
            self._check_claim(author, body, record.seq, expect)
        elif isinstance(body, msg.Resign) and msg.Resign in expect.kinds:
            pass  # a resignation is in turn whoever sends it
        elif author != expect.author:
            raise CheatingDetected(
                f"player {author} sent {body.TYPE} out of turn: player {expect.author} "
                f"was to {expect.what}",
                author,
            )
        if not isinstance(body, expect.kinds):
            wanted = " or ".join(k.TYPE for k in expect.kinds)
            raise RemoteProtocolError(
                f"player {author} sent {body.TYPE} where {wanted} was expected", author
            )
        try:
            out = self._dispatch(author, body)
        except AuditFinding:
            self._accept(record)  # a sound record: the finding is about earlier ones
            raise
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

    def end_crossed(self, record: Record) -> tuple[list[ev.Event], list[Record]] | None:
        """A resignation or claim that crossed records of ours on the wire, or None.

        The other player signed it before our latest records reached it, so it
        chains to an earlier record. It ends the match there: our crossing
        records are void (the other player never accepted them), and both
        chains end with it. Returns the events and the voided records.
        """
        seq, author = record.seq, record.author
        later = self.records[seq:] if 0 < seq < len(self.records) else []
        if not later or any(r.author == author for r in later) or self.over:
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
        other = 1 - author
        if isinstance(body, msg.Abandoned):
            if body.player != other or body.record != seq or later[0].author != other:
                return None
        elif not isinstance(body, msg.Resign):
            return None
        self.records = self.records[:seq]
        self.chain.next_seq, self.chain.head = seq, record.prev
        self._accept(record)
        return self._dispatch(author, body), later

    def _dispatch(self, author: int, body: msg.Message) -> list[ev.Event]:
        if isinstance(body, msg.Resign):
            self.stage = Stage.RESIGNED
            self.resigned = author
            self.resign_reason = body.reason
            return [ev.Resigned(author, body.reason)]
        if isinstance(body, msg.Abandoned):
            self.stage = Stage.ABANDONED
            self.abandoned, self.abandoned_at = body.player, body.record
            return [ev.Abandoned(body.player, body.record)]
        if isinstance(body, msg.Hello):
            return self._hello(author, body)
        if isinstance(body, msg.Propose):
            return self._propose(body)
        if isinstance(body, msg.Accept):
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
        if len(self.names) == 2:
            self.stage = Stage.PROPOSE
        return [ev.PlayerJoined(author, body.name, body.public_key)]

    def _propose(self, body: msg.Propose) -> list[ev.Event]:
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
        if not is_soundness(body.soundness):
            raise RemoteProtocolError(
                f"player 0 proposed proof soundness {body.soundness} (0 off, 1..{MAX_SOUNDNESS} "
                f"cut-and-choose rounds, or {ARGUMENT} for the shuffle argument)",
                0,
            )
        self.options = options
        self.soundness = body.soundness
        self.move_seconds = body.move_seconds
        self.stage = Stage.ANSWER
        return [ev.RulesProposed(options, body.soundness, body.move_seconds)]

    def coin_context(self) -> bytes:
        """Binds the coin flip (so the session id) to both identities and everything proposed."""
        assert self.options is not None
        opts = msgpack.packb(dict(sorted(self.options.to_dict().items())))
        return hashlib.sha256(
            b"p2p66/session-context/v1"
            + self.keys[0]
            + self.keys[1]
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
        if self.coin_step < len(COIN_ORDER):
            return []
        result = coin_result(
            self.coin_context(),
            [self.commits[0], self.commits[1]],
            [self.nonces[0], self.nonces[1]],
        )
        self.session_id = result.session_id
        assert self.options is not None
        self.match = Match(self.options, first_dealer=result.first_dealer)
        self.stage = Stage.HAND
        return [ev.MatchStarted(result.session_id, result.first_dealer), *self._start_hand()]

    def _start_hand(self) -> list[ev.Event]:
        assert self.match is not None and self.options is not None
        number = self.match.hand_number
        dealer = self.match.dealer
        config = HandConfig.for_game(self.options, self.session_id, number, dealer, self.soundness)
        if self.local is not None:
            self.local.begin_hand(config)
        self.hand = HandTable(self.options, config, dealer, CryptoState(config))
        self.hands.append(self.hand)
        return [ev.HandStarted(number, dealer)]

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

        def apply(payloads: Sequence[HandPayload]) -> None:
            if local is not None and author != local.seat:
                local.apply_remote(payloads)
            for p in payloads:
                crypto.apply(p, verify=verify)

        return apply

    def _payload(self, author: int, data: dict[str, Any], key: str = "payload") -> Any:
        try:
            return decode_payload(data.get(key))
        except CryptoError as exc:
            raise blame(exc, author) from None

    def _hand_record(self, author: int, body: msg.Message) -> list[ev.Event]:
        hand = self.hand
        assert hand is not None and self.match is not None
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
                code = parse_move_code(body.move)
                if MOVE_NOTATION[code] != body.move:
                    raise EngineError("not canonical")
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
