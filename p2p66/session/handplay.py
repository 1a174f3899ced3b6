"""One hand at the table: the mental-poker state and the rules, kept in step.

``HandTable`` is public knowledge only (what a third party reading the
records knows); a peer adds its own cards as a second judge. It answers the
two questions the session machine asks of a hand, both seat-agnostic:

- who must send next, and what (a deal flight, a move, owed card keys, a seed);
- is this record right (crypto checks by the mental-poker library, every move
  by the engine, every card key owed and sent at the right moment).

Card keys are owed by the rules, never by choice: a position that the engine
has put into a player's hand (dealt or drawn) must be opened to that player
by every other party, the face-up card a player takes at the last draw must
be claimed with a ``take``, and a position the rules make public (the
cut-throat widow once taken) must be opened by everybody. A player's message
must pay every debt it has after its own move; while anybody but the player
to act owes a key, the first such debtor clockwise from the player to act
must send a ``keys`` message first (with two players: the other one).

The table is N-party: ``seats`` maps the engine's seats to the table's (the
two-player game: 0 and 1; ``three-handed``: the seats left and right of the
dealer, who holds no card but keys every one), and ``judge`` makes the
game's public judge (``PartialHand`` or ``PartialBidding``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from p2p66.crypto.audit import audit
from p2p66.crypto.config import PUBLIC, HandConfig
from p2p66.crypto.errors import CheatingDetected as CryptoCheat
from p2p66.crypto.errors import CryptoError
from p2p66.crypto.handkeys import seed_commitment
from p2p66.crypto.messages import HandPayload, KeyReveal, Reveal, SeedReveal
from p2p66.crypto.state import HandState as CryptoState
from p2p66.crypto.transcript import HandTranscript
from p2p66.engine import EngineError, IllegalMoveError
from p2p66.engine.cards import CARD_CODES
from p2p66.engine.moves import EXCHANGE, MARRY_BASE
from p2p66.engine.partial import KnowledgeConflict, PartialDeal, PartialHand
from p2p66.engine.state import HandState
from p2p66.engine.table.bidding import BiddingHand
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.session.errors import (
    AuditFinding,
    CheatingDetected,
    HandAborted,
    LocalProtocolError,
    RemoteProtocolError,
)

ApplyPayload = Callable[[Sequence[HandPayload]], None]
"""Applies one flight of payloads (all by one author) to the crypto state(s)."""


Judge = PartialDeal[Any]
"""The public judge of a hand: ``PartialHand`` (two-player games) or ``PartialBidding``."""
TableState = HandState | BiddingHand


@dataclass(frozen=True, slots=True)
class Debts:
    """What ``seat`` owes now: keys opening positions to others (``to``: to whom, per key),
    takes, and keys opening positions to everybody (``public``)."""

    keys: tuple[int, ...]
    takes: tuple[int, ...]
    to: tuple[int, ...] = ()
    public: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.keys or self.takes or self.public)

    @property
    def blocking(self) -> bool:
        """Debts that make their debtor send a ``keys`` message before the player to act."""
        return bool(self.keys or self.public)


SHOWN = frozenset({"play", "marriage", "exchange"})
"""Reveal kinds that show the cards a move plays (checked against the move itself)."""

RevealSlot = tuple[str, int, int | None]
"""A reveal's kind, position and target seat: what the rules can call for."""


def _as_reveals(debts: Debts) -> set[RevealSlot]:
    return (
        {("to", pos, to) for pos, to in zip(debts.keys, debts.to, strict=True)}
        | {("take", pos, None) for pos in debts.takes}
        | {("public", pos, None) for pos in debts.public}
    )


def ring_after(seat: int, parties: int) -> tuple[int, ...]:
    """Every seat clockwise after ``seat``, ending with ``seat`` itself."""
    return tuple((seat + k) % parties for k in range(1, parties + 1))


def _describe(r: Reveal) -> str:
    if r.kind == "to":
        return f"a key opening position {r.pos} to player {r.to}"
    if r.kind == "take":
        return f"a take of position {r.pos} (the face-up card) into its hand"
    if r.kind == "public":
        return f"a key opening position {r.pos} to everybody"
    return f"a {r.kind} key for position {r.pos}"


def blame(exc: CryptoError, author: int) -> RemoteProtocolError:
    """A mental-poker error as a session error naming the culprit.

    A bad card that surfaces with proofs off (``party`` None) is no fault of
    the record's author, whose keys were right: some earlier deck step was
    bad, and only the audit of both seeds can say whose (SPEC, section 10).
    """
    if isinstance(exc, CryptoCheat):
        if exc.party is None:
            return HandAborted(
                f"a deck step was bad, but with proofs off only the audit of every hand seed "
                f"can say whose: {exc}",
                None,
                kind=exc.code,
            )
        return CheatingDetected(f"player {exc.party} cheated: {exc}", exc.party, kind=exc.code)
    return RemoteProtocolError(
        f"player {author} sent a malformed card payload: {exc}", author, kind="malformed"
    )


class HandTable:
    """The public state of one hand: crypto transcript, engine, debts, seeds."""

    def __init__(
        self,
        options: Any,
        config: HandConfig,
        dealer: int,
        crypto: CryptoState,
        *,
        seats: tuple[int, ...] = (0, 1),
        judge: Callable[[], Judge] | None = None,
        table_dealer: int | None = None,
    ) -> None:
        self.options = options
        """The engine's options of one hand (two-player ``RuleOptions`` or ``BiddingOptions``)."""
        self.config = config
        self.number = config.hand
        self.dealer = dealer
        """The engine's dealer (``three-handed``: the two-player seat 1)."""
        self.table_dealer = dealer if table_dealer is None else table_dealer
        """The table seat that deals (shuffles first)."""
        self.seats = seats
        """The table seat of each engine seat."""
        self.parties = config.parties
        self.crypto = crypto
        self._judge: Callable[[], Judge] = judge or (lambda: PartialHand(options, dealer))
        self.public = self._judge()
        self.private: Judge | None = None
        self.authors: list[int] = []
        self.result: Any = None
        """The engine's result once audited (``HandResult`` or ``TableResult``)."""
        self.final: TableState | None = None
        """The engine state at the end, re-judged on the audited deck."""
        self.deck: tuple[int, ...] | None = None
        self.aborted = ""
        """Why the hand stopped for an audit before its end ("" while it goes on)."""
        self.aborted_by: int | None = None
        """The player who stopped it (its own cards showed a bad deck step), if not public."""
        self.alarm = ""
        """Our own cards showed a bad deck step the public state cannot see: we must stop."""
        self.abort_seeds: dict[int, bytes] = {}
        self._exposing: list[HandPayload] = []

    def can_abort(self, seat: int) -> bool:
        """A seed before the end stops the hand for an audit (once per player)."""
        return not self.over and (not self.aborted or seat not in self.abort_seeds)

    # ------------------------------------------------------------------ queries

    @property
    def dealing(self) -> bool:
        return not self.crypto.deal_complete()

    @property
    def state(self) -> Any:
        """The engine state (hidden positions filled arbitrarily; public facts exact)."""
        return (self.private or self.public).state()

    def table_seat(self, engine_seat: int) -> int:
        """The table seat of an engine seat (-1 stays -1: nobody)."""
        return self.seats[engine_seat] if engine_seat >= 0 else -1

    def engine_seat(self, seat: int) -> int | None:
        """The engine seat of a table seat; None for a seat that holds no cards this hand."""
        return self.seats.index(seat) if seat in self.seats else None

    @property
    def to_act(self) -> int:
        """The table seat to act (-1 once the hand is over)."""
        return self.table_seat(self.state.to_act)

    @property
    def over(self) -> bool:
        return bool(self.state.is_over)

    def seeds(self) -> dict[int, bytes]:
        return dict(self.crypto.seeds)

    def debts(self, seat: int) -> Debts:
        """Keys ``seat`` owes the other players, face-up cards it must take, public keys."""
        if self.dealing:
            return Debts((), ())
        return self._debts_in(seat, self.public)

    def _debts_in(self, seat: int, judge: Judge) -> Debts:
        """What ``seat`` owes when the engine stands where ``judge`` does (keys sent so far)."""
        ledger = self.crypto.ledger
        held = judge.holdings()
        keys: list[int] = []
        to: list[int] = []
        for engine, table in enumerate(self.seats):
            if table == seat:
                continue
            for pos in held[engine]:
                p = ledger.positions[pos]
                if p.holder != table and p.card is None and seat not in p.keys:
                    keys.append(pos)
                    to.append(table)
        mine = self.engine_seat(seat)
        takes = [
            pos
            for pos in (held[mine] if mine is not None else ())
            if ledger.positions[pos].holder != seat and ledger.positions[pos].card is not None
        ]
        public = [
            pos
            for pos in judge.public_due()
            if ledger.positions[pos].card is None and seat not in ledger.positions[pos].keys
        ]
        return Debts(tuple(keys), tuple(takes), tuple(to), tuple(public))

    def owed_with_move(self, seat: int, code: int, shown: Sequence[Reveal] = ()) -> Debts | None:
        """The takes and keys a move by ``seat`` must carry besides the cards it shows.

        The takes owed before the move and those the move itself causes (the
        last draw), and the keys for every position the move leaves in the
        other player's hand unopened. ``shown`` are the move's own card claims
        (the play, marriage or exchange reveals), needed to judge it before its
        keys are applied; None if the move is refused even on those claims (the
        full checks then say why).
        """
        after = self.public.fork()
        try:
            for r in shown:
                if r.card is not None and after.known[r.pos] is None:
                    after.learn(r.pos, r.card)
            after.check(code)
        except (EngineError, IndexError):
            return None
        after.moves.append(code)
        later = self._debts_in(seat, after)
        takes = set(self.debts(seat).takes) | set(later.takes)
        if code == EXCHANGE:
            takes.discard(self.crypto.ledger.face_up)  # the exchange itself hands it over
        return Debts(later.keys, tuple(sorted(takes)), later.to, later.public)

    def _first_missing(self, after: int, done: dict[int, bytes]) -> int:
        """The first seat clockwise after ``after`` (ending with it) not yet in ``done``."""
        return next((s for s in ring_after(after, self.parties) if s not in done), after)

    def expected(self) -> tuple[int, str]:
        """Who must send next and what: ``deal``, ``move``, ``keys`` or ``reveal``.

        Seeds go clockwise: after a stop for an audit from the seat after the
        one who stopped it (or after the dealer), at the end from the seat
        after the last mover. Keys owed before the next move go first, from
        the first debtor clockwise after the player to act.
        """
        if self.aborted:
            start = self.aborted_by if self.aborted_by is not None else self.table_dealer
            return self._first_missing(start, self.abort_seeds), "reveal"
        if self.dealing:
            step = self.crypto.expected_step
            if step is None:
                missing = [s for s in range(self.parties) if s not in self.crypto.key_points]
                return (missing[0] if missing else self.table_dealer, "deal")
            return step[1], "deal"
        s = self.state
        if s.is_over:
            return self._first_missing(self.authors[-1], self.crypto.seeds), "reveal"
        actor = self.table_seat(s.to_act)
        for other in ring_after(actor, self.parties)[:-1]:
            if self.debts(other).blocking:
                return other, "keys"
        return actor, "move"

    # ------------------------------------------------------------------ records

    def apply_deal(self, author: int, payloads: list[HandPayload], apply: ApplyPayload) -> None:
        """A flight of deck steps (and deal keys) by ``author``."""
        plan = {
            ("public" if target == PUBLIC else "to", pos, None if target == PUBLIC else target)
            for pos, target in enumerate(self.config.deal)
            if target == PUBLIC or (target >= 0 and target != author)
        }
        for payload in payloads:
            if isinstance(payload, KeyReveal):
                self._only_owed(author, payload.reveals, plan, "its deal flight", shows=False)
        self._crypto(author, payloads, apply)
        if author in self.crypto.key_points:
            for pos, target in enumerate(self.config.deal):
                if (
                    target != author
                    and target >= -1
                    and author not in self.crypto.ledger.positions[pos].keys
                ):
                    raise CheatingDetected(
                        f"player {author} withheld its deal key for position {pos}", author
                    )
        self._sync()

    def apply_move(
        self, author: int, code: int, payload: KeyReveal | None, apply: ApplyPayload
    ) -> HandState:
        """A move by ``author`` with the keys it carries; returns the new engine state."""
        if self.dealing:
            raise RemoteProtocolError(f"player {author} moved before the deal was complete", author)
        before = self.state
        if self.table_seat(before.to_act) != author:
            raise CheatingDetected(
                f"player {author} played {TABLE_NOTATION[code]} out of turn", author
            )
        sent = payload.reveals if payload is not None else ()
        self._check_shown(author, code, before, sent)
        owed = self.owed_with_move(author, code, [r for r in sent if r.kind in SHOWN])
        if owed is not None:
            where = f"its move {TABLE_NOTATION[code]}"
            self._only_owed(author, sent, _as_reveals(owed), where)
        self._apply_keys(author, payload, apply)
        judges = [self.public] if self.private is None else [self.public, self.private]
        try:
            after = [j.check(code) for j in judges]
        except (IllegalMoveError, KnowledgeConflict) as exc:
            raise CheatingDetected(f"player {author} made an illegal move: {exc}", author) from None
        for judge in judges:
            judge.moves.append(code)
        self.authors.append(author)
        self._check_paid(author)
        return after[-1].state

    def apply_keys(self, author: int, payload: KeyReveal, apply: ApplyPayload) -> None:
        """Owed keys sent on their own."""
        owed = _as_reveals(self.debts(author))
        self._only_owed(author, payload.reveals, owed, "its keys message", shows=False)
        self._apply_keys(author, payload, apply)
        self._check_paid(author)

    def apply_seed(self, author: int, payload: SeedReveal, apply: ApplyPayload) -> None:
        """A seed at the end of the hand; with both in, audit and re-judge every move.

        Before the end it stops the hand for an audit: its author says its own
        cards showed a bad deck step (proofs off). The other player then owes
        its seed, and the audit of the transcript so far names the culprit, or
        the player who stopped the hand for nothing.
        """
        if not self.over:
            self._abort_seed(author, payload)
            return
        self._crypto(author, [payload], apply)
        if len(self.crypto.seeds) == self.parties:
            self._audit()

    # ------------------------------------------------------------------ internals

    def _crypto(self, author: int, payloads: Sequence[HandPayload], apply: ApplyPayload) -> None:
        for payload in payloads:
            if payload.seat != author:
                raise RemoteProtocolError(
                    f"player {author} sent a card payload in the name of player {payload.seat}",
                    author,
                )
        before = len(self.crypto.payloads)
        try:
            apply(payloads)
        except CryptoError as exc:
            found = blame(exc, author)
            if isinstance(found, HandAborted):
                applied = len(self.crypto.payloads) - before
                self._exposing = list(payloads[applied:])
                self.aborted = str(found)
            raise found from None

    def _apply_keys(
        self, author: int, payload: KeyReveal | None, apply: ApplyPayload
    ) -> tuple[Reveal, ...]:
        if payload is None:
            return ()
        self._crypto(author, [payload], apply)
        self._sync()
        return payload.reveals

    def _sync(self) -> None:
        """Teach the judges every card the crypto ledger has made public."""
        for pos, p in enumerate(self.crypto.ledger.positions):
            if p.card is not None:
                for judge in (self.public, self.private):
                    if judge is not None:
                        judge.learn(pos, p.card)

    def learn_private(self, cards: dict[int, int]) -> None:
        """Our own cards (position -> card), for the private judge of a peer."""
        if self.private is None:
            self.private = self._judge()
            self.private.moves = list(self.public.moves)
        for pos, card in cards.items():
            self.private.learn(pos, card)
        self._sync()

    def _check_shown(
        self, author: int, code: int, before: HandState, reveals: tuple[Reveal, ...]
    ) -> None:
        """The move's cards must be the ones its keys open, played/shown as the move says."""
        kinds = {(r.kind, r.card) for r in reveals}
        needed: list[tuple[str, int]] = []
        if code < MARRY_BASE:
            needed = [("play", code)]
        elif code < EXCHANGE:
            card = code - MARRY_BASE
            needed = [("play", card), ("marriage", card ^ 1)]
        elif code == EXCHANGE and isinstance(before, HandState):
            needed = [("exchange", before.exchange_card)]
        for kind, card in needed:
            if (kind, card) not in kinds:
                raise CheatingDetected(
                    f"player {author} announced {TABLE_NOTATION[code]} without the {kind} key "
                    f"that shows {CARD_CODES[card]}",
                    author,
                )
        extra = [
            r
            for r in reveals
            if r.kind in ("play", "marriage", "exchange") and (r.kind, r.card) not in needed
        ]
        if extra:
            r = extra[0]
            raise CheatingDetected(
                f"player {author} sent a {r.kind} key for position {r.pos} that its move "
                f"{TABLE_NOTATION[code]} does not call for",
                author,
            )

    def _only_owed(
        self,
        author: int,
        reveals: Sequence[Reveal],
        owed: set[RevealSlot],
        where: str,
        *,
        shows: bool = True,
    ) -> None:
        """Every reveal but a move's shown cards must be one the rules call for, once.

        Checked before any key is applied: a key nobody is owed (a talon card
        opened publicly or to a player who has not drawn it, the face-up trump
        taken before the last draw) would corrupt what both ledgers expect next.
        """
        seen: set[RevealSlot] = set()
        for r in reveals:
            if r.kind in SHOWN and shows:
                continue  # the move's own cards: _check_shown holds them to the move
            slot = (r.kind, r.pos, r.to)
            if slot not in owed or slot in seen:
                raise CheatingDetected(
                    f"player {author} sent {_describe(r)} in {where}, a key the rules "
                    "do not call for at this point",
                    author,
                )
            seen.add(slot)

    def _check_paid(self, author: int) -> None:
        """After its message, ``author`` owes nothing."""
        debts = self.debts(author)
        if debts:
            what = f"keys for positions {list(debts.keys)}" if debts.keys else "the face-up card"
            raise RemoteProtocolError(f"player {author} did not send the {what} it owed", author)

    def _abort_seed(self, author: int, payload: SeedReveal) -> None:
        if payload.seat != author or payload.hand != self.number:
            raise RemoteProtocolError(
                f"player {author} sent another player's or hand's seed", author
            )
        committed = self.crypto.commitments.get(author)
        if (
            committed is not None
            and seed_commitment(self.config, author, payload.seed) != committed
        ):
            raise CheatingDetected(
                f"player {author} revealed a hand seed that does not match its commitment", author
            )
        if not self.aborted:
            self.aborted_by = author
            self.aborted = f"player {author} stopped the hand for an audit: a bad card opened to it"
        self.abort_seeds[author] = payload.seed
        if len(self.abort_seeds) == self.parties:
            self._audit_aborted()

    def _audit_aborted(self) -> None:
        """Audit what was dealt so far with both seeds; someone is always to blame."""
        transcript = HandTranscript(self.config, (*self.crypto.payloads, *self._exposing))
        try:
            audit(transcript, self.abort_seeds, verify_proofs=False)
        except CryptoCheat as exc:
            if exc.party is not None:
                raise AuditFinding(
                    f"the audit shows that player {exc.party} cheated: {exc}",
                    exc.party,
                    kind=exc.code,
                ) from None
        except CryptoError:
            pass
        if self.aborted_by is None:
            raise LocalProtocolError(f"the audit finds no bad deck step, yet {self.aborted}")
        raise AuditFinding(
            f"player {self.aborted_by} stopped the hand for an audit, but the audit of both "
            "seeds finds every deck step sound",
            self.aborted_by,
            kind="false-abort",
        )

    def _audit(self) -> None:
        transcript = HandTranscript(self.config, tuple(self.crypto.payloads))
        try:
            # Every proof was checked as it arrived (by our party, or by this public
            # state for a verifier); the audit recomputes each deck from its seed.
            report = audit(transcript, verify_proofs=False, backlog=self.crypto.backlog)
        except CryptoCheat as exc:
            raise AuditFinding(
                f"the audit shows that player {exc.party} cheated: {exc}", exc.party, kind=exc.code
            ) from None
        except CryptoError as exc:
            raise LocalProtocolError(f"the audit could not run: {exc}") from None
        self.deck = report.deck
        state = self.public.new_state(report.deck)
        for code, author in zip(self.public.moves, self.authors, strict=True):
            try:
                state = state.apply(code)
            except IllegalMoveError as exc:
                raise AuditFinding(
                    f"the revealed deck shows that player {author}'s move was illegal: {exc}",
                    author,
                ) from None
        if state.result is None:
            raise LocalProtocolError("the audited hand did not end where the live hand ended")
        self.final = state
        self.result = state.result
