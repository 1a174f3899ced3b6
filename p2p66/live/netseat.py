"""A network seat of a table of three or four, as the screens see it: one peer over the star.

``NetSeatTable`` is a ``SeatModel`` (``ui.multi.seat``) like the local
table, so the full screen and ``--plain`` are the very same. It knows only
what this seat's own ``Peer`` knows: ``heard`` (the ``on_events`` of
``tablenet.play_seat``) takes the peer's events as the records arrive and
tells them; ``choose`` (the seat's ``Chooser``) waits, without blocking the
event loop that carries the records, until the person enters a legal move.
``link_text`` is every other seat's link (``live.linkstate``) for the status
bar; ``ended`` takes the seat's ``TableEnd`` and ``verdict`` says to the
person at this seat whether they won, or whose fault an early end was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from p2p66.engine import IllegalMoveError
from p2p66.engine.table import BiddingOptions, TableMatch, ThreeHandedMatch, ThreeHandedView
from p2p66.live.linkstate import LinkState, LinkStatus, link_states
from p2p66.live.multi_peers import PeerSeatModel
from p2p66.live.tablenet import TableEnd, options_of
from p2p66.net.identity import PeerIdentity, short_label
from p2p66.net.lobby import Table
from p2p66.session import events as ev
from p2p66.session.peer import Peer
from p2p66.ui.cards_text import TextStyle, cards_named
from p2p66.ui.multi.seat import YOU, MatchEnd
from p2p66.ui.table import automatic


def seat_names(seats: Sequence[PeerIdentity], me: int) -> tuple[str, ...]:
    """The seats' names as this seat shows them: "You" at ``me``; a name that two seats
    share (or that reads "You") with the first group of its fingerprint."""
    names = [p.name for p in seats]
    return tuple(
        YOU
        if seat == me
        else (short_label(p) if names.count(p.name) > 1 or p.name == YOU else p.name)
        for seat, p in enumerate(seats)
    )


class NetSeatTable(PeerSeatModel):
    """Seat ``table.seat`` of a seated network table, for the screens."""

    deals_on_enter = False

    def __init__(self, table: Table, style: TextStyle, *, target: int | None = None) -> None:
        options = options_of(table, target)
        names = seat_names(table.seating.seats, table.seat)
        super().__init__(options, style, names=names, me=table.seat)
        self.match = (  # until the first hand: the peer's machine keeps the real one
            TableMatch(options, 0)
            if isinstance(options, BiddingOptions)
            else ThreeHandedMatch(options, 0)
        )
        self.peer: Peer | None = None
        self.links: Callable[[], tuple[LinkState, ...]] = tuple
        self.outcome: TableEnd | None = None
        self._asked: asyncio.Future[int] | None = None
        self._finished: object = None  # the HandTable whose end was told
        self._moves = 0  # made in the hand on the table
        self.on_screen = False
        """The full screen is up: what would be printed goes into the story instead."""

    # ------------------------------------------------------------ binding

    def bind(self, peer: Peer, link: object) -> None:
        """The seat's peer and its end of the star (``tablenet.play_hosted``'s ``attach``)."""
        self.peer = peer
        self.links = lambda: link_states(link)
        hand = peer.machine.hand
        if hand is not None and not hand.dealing:  # a restarted seat, restored mid-hand
            self.start_hand()

    @property
    def mine(self) -> Peer:
        assert self.peer is not None, "the seat is not bound to its peer yet"
        return self.peer

    @property
    def ready(self) -> bool:
        """The first hand is dealt: there is a board to show."""
        return self.hand is not None

    async def first_hand(self) -> None:
        """Until the first hand is dealt."""
        while not self.ready:
            self._changed.clear()
            await self._changed.wait()

    def records_so_far(self) -> int:
        return len(self.machine.records)

    # ------------------------------------------------------------ the records

    def heard(self, seat: int, events: list[ev.Event]) -> None:
        """The peer's events as records come in (or as it sent its own): tell them."""
        for event in events:
            if isinstance(event, ev.DealComplete):
                self.start_hand()
            elif isinstance(event, ev.MoveMade) and self._current is not None:
                self.tell_move(event.seat, event.code)
                self._moves += 1
            elif isinstance(event, ev.TableHandEnded) and self._current is not None:
                self.hand = self._state_of(self._current)
                self._finished = self._current
                if self.hand.is_over:
                    self.finish_hand()
            elif isinstance(event, ev.Resigned | ev.Abandoned):
                self._gave_up(event)
        self._refresh()
        self.changed()

    def _refresh(self) -> None:
        """The hand as the peer knows it now: keys (no event of their own) open our cards."""
        if self._current is not None and self._finished is not self._current:
            self.hand = self._state_of(self._current)

    def start_hand(self) -> None:
        self._moves = 0  # of this hand
        super().start_hand()
        self.options = self.match.options  # the host's target, once its hello is in

    def _gave_up(self, event: ev.Resigned | ev.Abandoned) -> None:
        """A resignation or the host's claim of abandonment: the match is over."""
        who = self.names[event.seat]
        if isinstance(event, ev.Resigned):
            what = f"{who} resign{self._s(who)} ({event.reason})"
        else:
            what = f"{who} abandon{self._s(who, 'ed')} the match (silent, owing a record)"
            if who == YOU:
                what = "You abandoned the match (silent, owing a record)"
        if self.options.players == 4:
            winner = 1 - self.options.side_of(event.seat)
            side = self.sides[winner]
            text = f"{what}: {side} win{self._s(side)} the match."
            self.over = MatchEnd(winner, text)
        else:
            self.over = MatchEnd(None, f"{what}: nobody wins the match.")
        self.say(self.over.text)

    # ------------------------------------------------------------ our moves

    def result_stale(self) -> bool:
        """The next hand is under way (its first call or card is made): the story again."""
        return not self.hand_over and self._moves > 0

    @property
    def hand_over(self) -> bool:
        return self._finished is not None and self._finished is self._current

    @property
    def my_turn(self) -> bool:
        asked = self._asked is not None and not self._asked.done()
        return asked and self.over is None and not self.hand_over and self.to_act == self.me

    async def choose(self, peer: Peer) -> int | str:
        """The seat's ``Chooser``: the move the person enters (or one nobody is asked)."""
        view = peer.table_view()
        if isinstance(view, ThreeHandedView):
            code = automatic(view.hand)
            if code is not None:
                return code
        self._refresh()  # the card we drew is open to us by now: the others' keys came
        while True:
            self._asked = asyncio.get_running_loop().create_future()
            self.changed()
            try:
                code = await self._asked
            finally:
                self._asked = None
            hand = peer.machine.hand
            try:  # the peer's judge has the last word (the screen judged our copy of it)
                if hand is not None:
                    hand.state.check_legal(code)
            except IllegalMoveError as exc:
                self.say(f"Not played: {cards_named(exc.reason, self.style)}.")
                continue
            return code

    def play_mine(self, code: int) -> None:
        assert self._asked is not None
        self._asked.set_result(code)

    # ------------------------------------------------------------ links, end

    def link_text(self, compact: bool = False) -> str:
        """ "West linked, East quiet 12 s"; ``compact``: only the links that are not fine."""
        if self.outcome is not None:
            return "links closed"  # the match is over for this seat: nothing more comes
        states = [s for s in self.links() if s.seat != self.me]
        if compact:
            bad = [s for s in states if s.status is not LinkStatus.LINKED]
            if not bad:
                return "all linked" if states else ""
            states = bad
        return ", ".join(f"{self.names[s.seat]} {s.text()}" for s in states)

    def ended(self, end: TableEnd) -> None:
        """This seat's match is over (``play_seat`` returned): the end, in words, if early."""
        if self.outcome is end:
            return
        self.outcome = end
        if self.over is None or (end.fault is not None and end.resigned is None):
            self.over = MatchEnd(None, self.verdict())  # a resignation keeps its winner
            self.say(self.over.text)
        self.changed()

    def verdict(self) -> str:
        """To the person at this seat: whether they won, or why it ended and whose fault."""
        end = self.outcome
        if end is not None and end.replay_failed:
            return f"The match stopped here: your replay could not be written ({end.fault})."
        if end is not None and end.fault is not None:
            return self._fault_text(end)
        if self.over is None:
            return "The match is over."
        won = self.won
        if won is None:
            return self.over.text
        if won:
            if self.options.players == 4:
                partner = self.names[(self.me + 2) % 4]
                return f"You and {partner} won the match ({self.scores_text()})."
            return f"You won the match ({self.scores_text()})."
        assert self.over.winner is not None
        winner = self.sides[self.over.winner]
        return f"You lost the match: {winner} won ({self.scores_text()})."

    def _fault_text(self, end: TableEnd) -> str:
        if end.resigned is not None:  # a signed end every seat holds: who left
            reason = self.mine.machine.resign_reason if self.peer is not None else ""
            why = f" ({reason})" if reason else ""
            after = "nobody wins the match"
            if self.options.players == 4:  # the other partnership wins
                side = self.sides[1 - self.options.side_of(end.resigned)]
                after = f"{side} win the match"
            if end.resigned == self.me:
                return f"You resigned the match{why}: {after}; every seat records it."
            who = f"{self.names[end.resigned]} (seat {end.resigned})"
            return f"The match ended early: {who} resigned{why}: {after}."
        culprit = end.culprit
        if culprit is None:
            return f"The match ended early: {end.fault}."
        if culprit == self.me:
            return f"The match ended early, on this side: {end.fault}."
        who = f"{self.names[culprit]} (seat {culprit})"
        if end.cheat:
            return f"The match was stopped: {who} cheated or broke the protocol: {end.fault}."
        return f"The match ended early, by {who}: {end.fault}."
