"""In-memory table: parties wired together without sockets, for tests, vectors and benchmarks.

``MemoryTable`` broadcasts every payload to every other party, flight by
flight (a flight is what one party sends in reply to one incoming flight),
and records the flights, so the number of one-way trips is measurable.
``play_two_player_hand`` drives the openings of a whole two-player hand the
way the session layer should: which reveal rides on which move. It picks
cards with an injected chooser and decides tricks by suit and trump only
(enough to route the draws; the rules engine is the authority in real play).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2p66.crypto.messages import HandPayload, Reveal
from p2p66.crypto.party import DealParty
from p2p66.engine.deal import DealLayout


@dataclass(frozen=True, slots=True)
class Flight:
    """Payloads one party sent at once (one network message in real play)."""

    sender: int
    payloads: tuple[HandPayload, ...]
    phase: str


class MemoryTable:
    """Parties indexed by seat, exchanging payloads in memory."""

    def __init__(self, parties: Sequence[DealParty]) -> None:
        if [p.seat for p in parties] != list(range(len(parties))):
            raise ValueError("parties must be given in seat order")
        self.parties = list(parties)
        self.flights: list[Flight] = []

    def deliver(self, sender: int, payloads: Sequence[HandPayload], phase: str = "play") -> None:
        """Send a flight to every other party, then every reply flight, until quiet."""
        queue = deque([Flight(sender, tuple(payloads), phase)] if payloads else [])
        while queue:
            flight = queue.popleft()
            self.flights.append(flight)
            for party in self.parties:
                if party.seat == flight.sender:
                    continue
                replies = party.receive(*flight.payloads)
                if replies:
                    queue.append(Flight(party.seat, tuple(replies), phase))

    def deal(self) -> int:
        """Run the deck steps and the deal; return the number of flights it took."""
        before = len(self.flights)
        for party in self.parties:
            self.deliver(party.seat, party.start(), "deal")
        return len(self.flights) - before

    def send(self, seat: int, *reveals: Reveal) -> None:
        """``seat`` bundles reveals (as it would with a move) and broadcasts them."""
        self.deliver(seat, [self.parties[seat].send(*reveals)])

    def reveal_seeds(self) -> None:
        for party in self.parties:
            self.deliver(party.seat, [party.reveal_seed()], "end")


Chooser = Callable[[int, dict[int, int]], int]
"""``choose(seat, hand)`` returns the position to play from ``hand`` (position -> card)."""


@dataclass(frozen=True, slots=True)
class HandRun:
    tricks: int
    draw_flights: int
    """Extra flights for draws: one per trick won by the follower while the talon is open."""


def _follower_wins(lead: int, follow: int, trump_suit: int) -> bool:
    if lead // 6 == follow // 6:
        return follow % 6 < lead % 6
    return follow // 6 == trump_suit


def play_two_player_hand(
    table: MemoryTable, layout: DealLayout, dealer: int, choose: Chooser
) -> HandRun:
    """Play every card of a dealt two-player hand, drawing by the layout, never closing.

    Keys ride along: the leader's play carries the key it owes for the
    follower's last draw; the follower's play carries its key for the
    winner's draw (or, if it won, for the loser's draw, and then the loser
    sends its key for the winner's draw in an extra flight, the only way the
    winner can learn its card before leading).
    """
    parties = table.parties
    trump_card = parties[0].card_at(layout.trump)
    if trump_card is None:
        raise ValueError("deal the hand first")
    draws = list(layout.draw_positions())
    owed: dict[int, list[Reveal]] = {0: [], 1: []}
    leader, tricks, extra = 1 - dealer, 0, 0
    while parties[leader].hand():
        follower = 1 - leader
        lead_pos = choose(leader, parties[leader].hand())
        table.send(leader, parties[leader].play(lead_pos), *owed[leader])
        owed[leader] = []
        follow_pos = choose(follower, parties[follower].hand())
        lead_card = parties[follower].known_cards()[lead_pos]
        follow_card = parties[follower].hand()[follow_pos]
        winner = follower if _follower_wins(lead_card, follow_card, trump_card // 6) else leader
        loser = 1 - winner
        follower_reveals = [parties[follower].play(follow_pos)]
        loser_reveals: list[Reveal] = []
        if draws:
            top, second = draws.pop(0), draws.pop(0)
            loser_reveals.append(parties[loser].reveal_to(top, winner))
            if second == parties[loser].state.ledger.face_up:
                loser_reveals.append(parties[loser].take(second))
            else:
                owed[winner].append(parties[winner].reveal_to(second, loser))
            if follower == loser:
                follower_reveals += loser_reveals
                loser_reveals = []
            else:
                follower_reveals += owed[follower]
                owed[follower] = []
        table.send(follower, *follower_reveals)
        if loser_reveals:
            table.send(loser, *loser_reveals)
            extra += 1
        leader, tricks = winner, tricks + 1
    return HandRun(tricks, extra)
