"""One player's end of the protocol: the shared machine plus this seat's secrets.

``Peer`` is sans-IO like h11: feed it the bytes of each record that arrives
(``receive_data``), collect the records it wants sent (``data_to_send``),
and, when ``needs_move`` is true, give it the player's move (``play``).
Everything that is not a player's decision (introductions, the coin flip,
the shuffle and deal, owed card keys, the seed at the end of a hand) it
sends by itself. Every record, ours included, goes through the same
``Machine``, so our own moves are judged by exactly the rules we apply to
the other player's; if the machine refuses one of ours, that is our bug
(``LocalProtocolError``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2p66.crypto.coinflip import coin_commitment
from p2p66.crypto.config import DEFAULT_SOUNDNESS, HandConfig
from p2p66.crypto.handkeys import Rng, new_seed, system_rng
from p2p66.crypto.messages import HandPayload, Reveal
from p2p66.crypto.party import DealParty
from p2p66.engine import IllegalMoveError, PlayerView, RuleOptions, view_of
from p2p66.engine.moves import EXCHANGE, MARRY_BASE, parse_move_code
from p2p66.engine.table import TableOptions
from p2p66.engine.table.moves import parse_table_move
from p2p66.session import events as ev
from p2p66.session import messages as msg
from p2p66.session.errors import (
    AuditFinding,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
)
from p2p66.session.handplay import Debts, HandTable
from p2p66.session.machine import Machine, Stage, software
from p2p66.session.records import Record, RecordError, make_record
from p2p66.session.tablegame import TableSeatView

RulesPolicy = Callable[[RuleOptions | TableOptions, int], str | None]
"""Joiner's answer to proposed rules: None to accept, or the reason to refuse."""


def accept_all(options: RuleOptions | TableOptions, soundness: int) -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class Signer:
    """Our identity as the session needs it: name, public key, a signing function."""

    name: str
    public_key: bytes
    sign: Callable[[bytes], bytes]


class Peer:
    """The session for one seat: 0 hosts (proposes the rules), the others join.

    ``seats`` is the size of the table (2, or 3 and 4 for the games for three
    and four players, whose ``options`` are ``TableOptions``).
    """

    def __init__(
        self,
        seat: int,
        signer: Signer,
        *,
        options: RuleOptions | TableOptions | None = None,
        soundness: int = DEFAULT_SOUNDNESS,
        move_seconds: int = 600,
        rules_policy: RulesPolicy | None = accept_all,
        rng: Rng = system_rng,
        seats: int = 2,
    ) -> None:
        if not 2 <= seats <= 4:
            raise LocalProtocolError(f"a table has 2, 3 or 4 seats, not {seats}")
        if seats == 2 and seat not in (0, 1):
            raise LocalProtocolError(f"seat must be 0 (host) or 1 (joiner), not {seat}")
        if not 0 <= seat < seats:
            raise LocalProtocolError(f"seat must be 0 (host) to {seats - 1}, not {seat}")
        if seat == 0 and options is None:
            raise LocalProtocolError("the host must propose rule options")
        if seat == 0 and (options.players if isinstance(options, TableOptions) else 2) != seats:
            raise LocalProtocolError(f"the proposed game is not one for {seats} players")
        self.seat = seat
        self.signer = signer
        self.proposal = (options, soundness, move_seconds)
        self.rules_policy = rules_policy
        self.rng = rng
        self.machine = Machine(local=self, seats=seats)
        self.party: DealParty | None = None
        self._coin_nonce = rng(32)
        self._replies: list[HandPayload] = []
        self._outbox: list[Record] = []
        self._events: list[ev.Event] = []
        self._ended_at: int | None = None
        self.voided: list[Record] = []
        """Our records voided by a resignation or claim that crossed them (see Machine)."""

    # ------------------------------------------------------------ LocalSide

    def begin_hand(self, config: HandConfig) -> None:
        self.party = DealParty(config, self.seat, new_seed(self.rng))
        self._replies = []

    def apply_remote(self, payloads: Sequence[HandPayload]) -> None:
        assert self.party is not None
        self._replies.extend(self.party.receive(*payloads))

    def known_cards(self) -> dict[int, int]:
        return self.party.known_cards() if self.party is not None else {}

    # ------------------------------------------------------------ the sans-IO API

    def start(self) -> list[ev.Event]:
        """Send whatever we send first (the host's hello)."""
        return self._pump()

    @property
    def seats(self) -> int:
        return self.machine.seats

    def _link(self, via: int | None) -> int | None:
        """Who sent us bytes no signature can vouch for: the peer at the other end of the link
        (``via``; by default the other player, or at a larger table the host who relays)."""
        if via is not None:
            return via
        if self.seats == 2:
            return 1 - self.seat
        return 0 if self.seat != 0 else None

    def receive_data(self, data: bytes, via: int | None = None) -> list[ev.Event]:
        """One record from another player; returns the events it caused (and our replies').

        ``via``: the seat whose link it came over (the relaying host at a larger table).
        """
        link = self._link(via)
        sender = f"player {link}" if link is not None else "a relayed peer"
        try:
            record = Record.decode(data)
        except RecordError as exc:
            raise RemoteProtocolError(f"{sender} sent a malformed record: {exc}", link) from None
        if record.author == self.seat:
            raise RemoteProtocolError(
                f"{sender} sent a record in our name (seat {self.seat})",
                link,
            )
        if not 0 <= record.author < self.seats:
            raise RemoteProtocolError(
                f"{sender} sent a record of seat {record.author}, which is not at this table "
                f"of {self.seats}",
                link,
            )
        if self._crosses_ours(record):
            return self._placed_before_ours(record)
        if self._ended_at is not None and record.seq >= self._ended_at:
            return []  # crossed our resignation or claim: void, it ends the match first
        crossed = self.machine.end_crossed(record)
        if crossed is not None:
            return self._void(*crossed)
        events = self.machine.receive(record)
        return events + self._pump()

    def _void(self, events: list[ev.Event], voided: list[Record]) -> list[ev.Event]:
        self.voided = voided
        self._outbox = [r for r in self._outbox if r not in voided]
        return events

    def _crosses_ours(self, record: Record) -> bool:
        """At a table: ``record`` takes the place of records of ours only (a record of
        another seat sent again is its author's fault, which the machine names)."""
        m = self.machine
        later = m.records[record.seq :] if record.seq < m.chain.next_seq else []
        return self.seats > 2 and bool(later) and all(r.author == self.seat for r in later)

    def _placed_before_ours(self, record: Record) -> list[ev.Event]:
        """At a table the host's order wins: ``record`` crossed records of ours on the way
        to it, which are void. A resignation or claim ends the match there; another seat's
        record that came before our resignation takes its place, and ours is withdrawn (the
        caller signs it again, on the new head). Anything else that crossed
        one of our records cannot be undone (a move is in the engine): our fault to report.
        """
        m = self.machine
        later = m.records[record.seq :]
        crossed = m.end_crossed(record)
        if crossed is not None:
            self._ended_at = None
            return self._void(*crossed)
        if len(later) == 1 and self._ended_at == record.seq:
            self._void([], [m.withdraw(record.seq)])
            self._ended_at = None
            return m.receive(record) + self._pump()
        raise LocalProtocolError(
            f"our record {record.seq} crossed another seat's on the way to the host, "
            "which placed that one first; ours cannot be taken back"
        )

    def data_to_send(self) -> list[Record]:
        """Records to send, oldest first (each also belongs in our replay file)."""
        out, self._outbox = self._outbox, []
        return out

    def requeue(self, records: list[Record]) -> None:
        """Put records made but never sent back in front of the outbox (a restarted peer)."""
        self._outbox = [*records, *self._outbox]

    @property
    def needs_rules_answer(self) -> bool:
        """The joiner must accept or refuse the proposed rules (when it has no policy)."""
        exp = self.machine.expected()
        return exp is not None and exp.author == self.seat and exp.kinds[0] is msg.Accept

    def answer_rules(self, refusal: str | None) -> list[ev.Event]:
        """Accept the proposed rules (``refusal`` None) or refuse them, saying why."""
        if not self.needs_rules_answer:
            raise LocalProtocolError("no rules are waiting for an answer")
        answer = msg.Accept() if refusal is None else msg.Refuse(refusal[:200])
        return self._send(answer) + self._pump()

    @property
    def needs_move(self) -> bool:
        exp = self.machine.expected()
        return exp is not None and exp.author == self.seat and exp.kinds[0] is msg.Move

    def view(self) -> PlayerView | None:
        """What this seat knows of the two-player hand in progress.

        None before the deal is complete, and while a card the rules have put
        into our hand (a draw) is still waiting for the other player's key: a
        view then would have to show a card we cannot know yet.
        """
        if self.machine.table is not None:
            raise LocalProtocolError("a game for three or four players has a table_view")
        hand = self._viewable()
        return None if hand is None else view_of(hand.state, self.seat)

    def table_view(self) -> TableSeatView | None:
        """What this seat knows of the hand in progress of a game for three or four.

        ``TableView`` (bidding games) or ``ThreeHandedView``; None when ``view``
        would be (before the deal, or while our cards wait for keys).
        """
        m = self.machine
        if m.table is None:
            raise LocalProtocolError("the two-player game has a view, not a table_view")
        hand = self._viewable()
        if hand is None:
            return None
        assert m.table_match is not None
        return m.table.view(hand, self.seat, m.table_match)

    def _viewable(self) -> HandTable | None:
        """The hand in progress if every card of ours in it is open to us."""
        hand = self.machine.hand
        if hand is None or hand.dealing or self.party is None:
            return None
        known = self.party.known_cards()
        mine = hand.engine_seat(self.seat)
        held = hand.public.holdings()[mine] if mine is not None else []
        if any(pos not in known for pos in held):
            return None
        return hand

    def play(self, move: int | str) -> list[ev.Event]:
        """Make a move; IllegalMoveError (nothing sent, nothing lost) if not allowed."""
        hand = self.machine.hand
        if not self.needs_move or hand is None or self.party is None:
            raise IllegalMoveError(str(move), "it is not your turn")
        code = move if isinstance(move, int) else self._parse(move)
        hand.state.check_legal(code)
        reveals = self._reveals_for(code)
        data = {"payload": self.party.send(*reveals).to_wire()} if reveals else {}
        events = self._send(msg.Move(hand.number, self.machine.notation(code), data))
        return events + self._pump()

    def _parse(self, text: str) -> int:
        """Lenient move text to a code of this game (the canonical check is the machine's)."""
        m = self.machine
        if m.table is not None and not m.table.three_handed:
            return parse_table_move(text)
        return parse_move_code(text)

    @property
    def can_end(self) -> bool:
        """The match is under way (coin flip begun, not over): it can be resigned or claimed."""
        exp = self.machine.expected()
        return exp is not None and msg.Resign in exp.kinds

    def resign(self, reason: str = "resigned") -> list[ev.Event]:
        """Resign the match, whoever's turn it is (once it is under way)."""
        if not self.can_end:
            raise LocalProtocolError("there is no match under way to resign")
        self._ended_at = self.machine.chain.next_seq
        return self._send(msg.Resign(reason[:200]))

    def claim_abandoned(self) -> list[ev.Event]:
        """Claim that the other player, who owes the next record, abandoned the match."""
        exp = self.machine.expected()
        if not self.can_end or exp is None or exp.author == self.seat:
            raise LocalProtocolError("only a player waiting on the other can claim abandonment")
        self._ended_at = self.machine.chain.next_seq
        return self._send(msg.Abandoned(exp.author, self._ended_at))

    # ------------------------------------------------------------ internals

    def _send(self, message: msg.Message) -> list[ev.Event]:
        chain = self.machine.chain
        record = make_record(
            chain.next_seq, chain.head, self.seat, msg.encode(message), self.signer.sign
        )
        try:
            events = self.machine.receive(record)
        except AuditFinding as exc:
            if exc.culprit == self.seat:
                raise LocalProtocolError(f"our own {message.TYPE} convicts us: {exc}") from exc
            self._outbox.append(record)  # accepted: it completes the evidence, send it too
            raise
        except ProtocolError as exc:
            raise LocalProtocolError(f"our own {message.TYPE} was refused: {exc}") from exc
        self._outbox.append(record)
        return events

    def _pump(self) -> list[ev.Event]:
        """Send every message that needs no decision, until the other player or a move is due."""
        events: list[ev.Event] = []
        while True:
            hand = self.machine.hand
            if hand is not None and hand.alarm and hand.can_abort(self.seat):
                assert self.party is not None  # our cards showed a bad deck step: stop
                seed = self.party.reveal_seed()
                events.extend(self._send(msg.Reveal(hand.number, {"payload": seed.to_wire()})))
                continue
            exp = self.machine.expected()
            if exp is None or exp.author != self.seat or exp.kinds[0] is msg.Move:
                return events
            if exp.kinds[0] is msg.Accept and self.rules_policy is None:
                return events
            message = self._automatic(exp.kinds[0])
            events.extend(self._send(message))

    def _automatic(self, kind: type[msg.Message]) -> msg.Message:
        m = self.machine
        if kind is msg.Hello:
            return msg.Hello(self.signer.name, self.signer.public_key, software())
        if kind is msg.Propose:
            options, soundness, seconds = self.proposal
            assert options is not None
            return msg.Propose(options.to_dict(), soundness, seconds)
        if kind is msg.Accept:
            rules = m.rules
            assert rules is not None
            assert self.rules_policy is not None
            reason = self.rules_policy(rules, m.soundness)
            return msg.Accept() if reason is None else msg.Refuse(reason[:200])
        if kind is msg.CoinCommit:
            return msg.CoinCommit(coin_commitment(m.coin_context(), self.seat, self._coin_nonce))
        if kind is msg.CoinReveal:
            return msg.CoinReveal(self._coin_nonce)
        hand = m.hand
        assert hand is not None and self.party is not None
        if kind is msg.Deal:
            payloads = self._replies or self.party.start()
            self._replies = []
            return msg.Deal(hand.number, {"payloads": [p.to_wire() for p in payloads]})
        if kind is msg.Keys:
            debts = hand.debts(self.seat)
            reveals = [*self._takes(debts), *self._keys(debts)]
            return msg.Keys(hand.number, {"payload": self.party.send(*reveals).to_wire()})
        if kind is msg.Reveal:
            return msg.Reveal(hand.number, {"payload": self.party.reveal_seed().to_wire()})
        raise LocalProtocolError(f"no automatic message of type {kind.TYPE}")

    def _takes(self, debts: Debts) -> list[Reveal]:
        assert self.party is not None
        return [self.party.take(pos) for pos in debts.takes]

    def _keys(self, debts: Debts) -> list[Reveal]:
        """Keys opening positions to their holders, then keys opening positions to all."""
        assert self.party is not None
        party = self.party
        return [
            *(party.reveal_to(pos, to) for pos, to in zip(debts.keys, debts.to, strict=True)),
            *(party.reveal_public(pos) for pos in debts.public),
        ]

    def _reveals_for(self, code: int) -> list[Reveal]:
        """The keys a move carries: takes owed, the cards it shows, then keys owed after it."""
        hand = self.machine.hand
        assert hand is not None and self.party is not None
        party = self.party
        shown: list[Reveal] = []
        if code < MARRY_BASE:
            shown = [party.play(party.position_of(code))]
        elif code < EXCHANGE:
            led = party.position_of(code - MARRY_BASE)
            shown = [
                party.play(led),
                party.marriage(party.position_of((code - MARRY_BASE) ^ 1), led),
            ]
        elif code == EXCHANGE:
            shown = [party.exchange(party.position_of(hand.state.exchange_card))]
        owed = hand.owed_with_move(self.seat, code, shown)
        if owed is None:
            raise LocalProtocolError(f"the table refuses our own {self.machine.notation(code)}")
        return [*self._takes(owed), *shown, *self._keys(owed)]

    @property
    def stage(self) -> Stage:
        return self.machine.stage
