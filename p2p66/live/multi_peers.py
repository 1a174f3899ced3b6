"""``play --preset`` of the games for three and four, every seat its own session peer.

``PeerSeatModel`` is the table as one seat's own ``Peer`` knows it, for the
screens (``ui.multi.seat``): the hand as that peer's engine state, the
match as its machine keeps it, the story told from its moves. The local
table here and a network seat (``live.netseat``) are both one.

``PeerMultiTable`` is the local table of ``ui/multi`` (the same interface,
the same narration and screens) with the referee taken out: each seat is a
``Peer`` around the in-memory relay, the cards are dealt by the N-party
mental-poker deal (default proofs), every move goes through the signed
record chain and is judged by every peer, and each bot decides from its own
peer's view only. What the board shows is what seat 0's peer knows: its own
cards and the public table (a hand's other cards only once its seeds are
out). The replay is written record by record as the relay carries them and
verified when the match ends.
"""

from __future__ import annotations

import random
from pathlib import Path

from p2p66.crypto.config import DEFAULT_SOUNDNESS
from p2p66.engine.cards import CARDS
from p2p66.engine.state import HandState
from p2p66.engine.table import (
    BiddingHand,
    TableOptions,
    TableView,
    ThreeHandedHand,
    ThreeHandedOptions,
)
from p2p66.net.identity import Identity
from p2p66.replay.fileio import ReplayWriter
from p2p66.replay.verify import verify_records
from p2p66.session.handplay import HandTable
from p2p66.session.machine import Machine
from p2p66.session.peer import Peer, Signer
from p2p66.session.tableplay import MemoryRelay
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.multi.local import ME, NAMES, LocalMultiTable
from p2p66.ui.multi.seat import SeatModel


def _signer(name: str, seed: int) -> Signer:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.from_private_bytes(random.Random(seed).randbytes(32))
    return Signer(name, key.public_key().public_bytes_raw(), key.sign)


class PeerSeatModel(SeatModel):
    """The screens' model of ``mine``, a seat's own peer: what it knows, told as it goes."""

    _current: HandTable | None = None
    _widow_pending = False

    @property
    def mine(self) -> Peer:
        raise NotImplementedError

    @property
    def machine(self) -> Machine:
        return self.mine.machine

    def records_so_far(self) -> int:
        """How many signed records the match has (told when a hand is dealt)."""
        raise NotImplementedError

    def _state_of(self, table: HandTable) -> BiddingHand | ThreeHandedHand:
        """Our knowledge of ``table`` as the engine's hand (exact once it is audited)."""
        state = table.final if table.final is not None else table.state
        if isinstance(state, HandState):
            assert isinstance(self.options, ThreeHandedOptions)
            return ThreeHandedHand(self.options, table.table_dealer, state)
        assert isinstance(state, BiddingHand)
        return state

    def start_hand(self) -> None:
        """The next hand, as the peers dealt it."""
        m = self.machine
        assert m.table_match is not None and m.hand is not None
        self.match = m.table_match
        self.first_dealer = m.first_dealer or 0
        self._current = m.hand
        self.hand = self._state_of(m.hand)
        self.public = []
        self.tell_dealer(self.match.dealer, self.match.hand_number)
        names = ", ".join(self.names)
        self.say(
            f"The cards were shuffled and dealt by all {self.options.players} players "
            f"({names}; {self.records_so_far()} signed records so far)."
        )
        if isinstance(self.hand, ThreeHandedHand):
            trump_pos = m.hand.config.face_up
            assert trump_pos is not None
            card = self.mine.known_cards().get(trump_pos)
            self.first_trump = CARDS[card if card is not None else 0]
            self.tell_sitting_out(self.hand)

    def tell_move(self, seat: int, code: int) -> BiddingHand | ThreeHandedHand:
        """Narrate ``seat``'s move ``code``, now in our peer's hand; the hand after it."""
        current = self._current
        assert current is not None and self.hand is not None
        before = self.hand
        after = self._state_of(current)
        self.hand = after
        if isinstance(before, BiddingHand) and isinstance(after, BiddingHand):
            self._tell_bidding(current, before, after, seat, code)
        elif isinstance(before, ThreeHandedHand) and isinstance(after, ThreeHandedHand):
            self.note_public(before.state.to_act, code)
            self.tell_three(before, after, seat, code)
        return after

    def _widow_cards(self, table: HandTable) -> list[int] | None:
        """The cut-throat widow's cards once they are public (None before)."""
        cards = [
            table.crypto.ledger.positions[pos].card
            for pos, target in enumerate(table.config.deal)
            if target < 0
        ]
        return None if any(c is None for c in cards) else [c for c in cards if c is not None]

    def _tell_bidding(
        self, table: HandTable, before: BiddingHand, after: BiddingHand, seat: int, code: int
    ) -> None:
        """The local table's narration, but the widow only once all have shown their keys
        (the taker's own rides on its next lead: until then nobody, us included, knows it)."""
        taken = after.widow_taker >= 0 > before.widow_taker
        if taken and self._widow_cards(table) is None:
            shown = after.copy()
            shown.widow_taker = -1
            self.tell_bidding(before, shown, seat, code)
            who = self.names[after.widow_taker]
            self.say(f"{who} take{self._s(who)} the widow; it is shown at the next lead.")
            self._widow_pending = True
            return
        self.tell_bidding(before, after, seat, code)
        cards = self._widow_cards(table)
        if self._widow_pending and cards is not None:
            self._widow_pending = False
            self.say("The widow: " + " ".join(self.card(c) for c in cards) + ".")


class PeerMultiTable(PeerSeatModel, LocalMultiTable):
    """You at seat 0 (your identity), bots at the other seats, each a peer of the table."""

    def __init__(
        self,
        options: TableOptions,
        bot: str,
        seed: int,
        style: TextStyle,
        *,
        me: Signer | Identity | None = None,
        replay: Path | None = None,
        soundness: int = DEFAULT_SOUNDNESS,
    ) -> None:
        n = options.players
        rng = random.Random(seed)
        first = me if isinstance(me, Signer) else None
        if isinstance(me, Identity):
            first = Signer(me.name or "You", me.public_key, me.sign)
        signers = [first or _signer("You", rng.getrandbits(64))]
        signers += [_signer(NAMES[n][s], rng.getrandbits(64)) for s in range(1, n)]
        self.peers = [
            Peer(
                s,
                signers[s],
                options=options if s == 0 else None,
                soundness=soundness,
                rng=random.Random(rng.getrandbits(64)).randbytes,
                seats=n,
            )
            for s in range(n)
        ]
        self.relay = MemoryRelay(self.peers)
        self.writer = ReplayWriter(replay, fsync=False) if replay is not None else None
        self.replay_path = replay
        self.verdict: str | None = None
        self._written = 0
        self.relay.start()
        self._flush()
        super().__init__(options, bot, seed, style)

    # ------------------------------------------------------------ the peers

    @property
    def mine(self) -> Peer:
        return self.peers[ME]

    def records_so_far(self) -> int:
        return len(self.relay.records)

    def _flush(self) -> None:
        """Write every record the relay carried since the last call (the replay as it goes)."""
        if self.relay.refused is not None:
            raise RuntimeError(f"a peer refused a record: {self.relay.refused.error}")
        if self.writer is not None:
            for record in self.relay.records[self._written :]:
                self.writer.append(record)
        self._written = len(self.relay.records)

    # ------------------------------------------------------------ the match

    def next_move(self) -> tuple[int, int] | None:
        """A bot's move from its own peer's view (yours that need no asking: the local
        table's), without playing it."""
        hand = self.hand
        if hand is None or hand.is_over or self.over is not None:
            return None
        seat = self.to_act
        if seat == ME:
            return super().next_move()
        view = self.peers[seat].table_view()
        assert view is not None
        if isinstance(view, TableView):
            return seat, self.bidding_bots[seat].choose(view)
        assert view.hand is not None
        return seat, self.hand_bot_move(seat, view.hand)

    def apply(self, seat: int, code: int) -> None:
        """Send the move through the seat's peer; narrate what seat 0's peer then knows."""
        self.relay.heard(seat, self.peers[seat].play(code))
        self.relay.pump()
        self._flush()
        if self.tell_move(seat, code).is_over:
            self.finish_hand()
            if self.over is not None:
                self._finish_match()

    def leave(self) -> None:
        """You leave before the end: your peer signs a resignation that every seat
        records, so the replay ends as a resignation (not cut off) and verifies."""
        if self.verdict is not None or not self.peers[ME].can_end:
            return
        self.relay.heard(ME, self.peers[ME].resign("left the match"))
        self.relay.pump()
        self._flush()
        self._finish_match()

    def _finish_match(self) -> None:
        """Close and verify the replay: what anyone can check without a secret."""
        report = verify_records(self.relay.records).report.seen_by(ME)
        self.verdict = report.headline()
        if self.writer is not None:
            self.writer.close()
        for line in self.replay_lines():
            self.say(line)

    def replay_lines(self) -> list[str]:
        """Where the replay is and what the verifier says of it, as the two-player play says."""
        if self.verdict is None:
            return []
        saved = [] if self.replay_path is None else [f"Replay saved to {self.replay_path}."]
        return [*saved, f"Verified: {self.verdict}."]
