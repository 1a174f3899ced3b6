"""What the screens of the games for three and four see: one seat's model of the table.

``SeatModel`` is the interface (and the shared story-telling) that the full
screen (``ui.multi.terminal``), ``--plain`` (``ui.multi.screens``), the board
and the hints read. It is the table as one seat, ``me``, sees it: the names
("You" at ``me``), the hand in progress as the engine's state, the match,
the story told so far, and who is to act. Two kinds fill it in: the local
table (``ui.multi.local``, a referee and bots in this process, and its
session-peer form ``live.multi_peers``) and a network seat (``live.netseat``:
one peer whose moves go out over the star). The screens only ever use this.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from p2p66.bots.api import PublicMove
from p2p66.engine import CARDS, Card, IllegalMoveError, NotationError
from p2p66.engine.cards import ids_of
from p2p66.engine.moves import DRAW, MARRY_BASE, MOVE_NOTATION, MOVES, parse_move_code
from p2p66.engine.state import Phase
from p2p66.engine.table import (
    BiddingHand,
    BiddingOptions,
    TableMatch,
    TableOptions,
    TablePhase,
    TableView,
    ThreeHandedHand,
    ThreeHandedMatch,
    ThreeHandedView,
    bid_of,
    parse_table_move,
    table_view,
    three_handed_view,
)
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.ui.cards_text import TextStyle, card_text, display_order, no_such_card, suit_name

ME = 0
"""Your seat at the local table."""
NAMES = {3: ("You", "West", "East"), 4: ("You", "West", "North", "East")}
YOU = "You"


def side_names(players: int) -> tuple[str, ...]:
    """The sides of the local table (you at seat 0)."""
    return ("You+North", "West+East") if players == 4 else NAMES[3]


def sides_of(names: tuple[str, ...]) -> tuple[str, ...]:
    """The sides for seat ``names``: the partnerships 0+2 and 1+3 with four, else the seats."""
    if len(names) == 4:
        return tuple(f"{names[s]}+{names[s + 2]}" for s in (0, 1))
    return names


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """How the match ended: the winner (a side, or a seat in three-seat games), in words."""

    winner: int | None
    text: str


class SeatModel:
    """One seat's table for the screens; subclasses supply the hand, the match and the moves."""

    match: TableMatch | ThreeHandedMatch
    deals_on_enter = True
    """Enter on a finished hand deals the next one (a network table deals by itself)."""

    def __init__(
        self,
        options: TableOptions,
        style: TextStyle,
        *,
        names: tuple[str, ...],
        me: int = ME,
        sides: tuple[str, ...] | None = None,
    ) -> None:
        self.options = options
        self.style = style
        self.names = names
        self.me = me
        self.sides = sides if sides is not None else sides_of(names)
        self.log: list[str] = []
        self.over: MatchEnd | None = None
        self.hand: BiddingHand | ThreeHandedHand | None = None
        self.hand_end: tuple[str, ...] = ()  # what was said when the last hand ended
        self.public: list[PublicMove] = []
        self.first_trump = CARDS[0]
        self.on_change: Callable[[], None] | None = None
        """Called (on the event loop) when the table changes by itself, not by a screen's call."""
        self.version = 0
        self._changed = asyncio.Event()
        self._settled = 0

    # ------------------------------------------------------------ the match

    @property
    def hand_number(self) -> int:
        """The number of the hand on the table (still the finished one until the next deal)."""
        return len(self.match.results) + (0 if self.hand_over else 1)

    @property
    def hand_over(self) -> bool:
        return self.hand is not None and self.hand.is_over

    def next_hand(self) -> None:
        """The player pressed Enter on a finished hand."""

    def result_stale(self) -> bool:
        """The last hand's result need not stay in view any longer (here: until Enter)."""
        return False

    def finish_hand(self) -> None:
        """Score the finished hand into the match; tell the result."""
        hand = self.hand
        assert hand is not None and hand.is_over
        told = len(self.log)
        if isinstance(hand, BiddingHand) and isinstance(self.match, TableMatch):
            assert hand.result is not None
            self.match = self.match.record(hand.result)
            self.say(hand.result.describe(self.sides, self.names))
            self.say("Marks: " + self.scores_text() + ".")
            if self.match.is_over and self.match.winner is not None:
                self.end(self.match.winner, self.sides[self.match.winner])
        elif isinstance(hand, ThreeHandedHand) and isinstance(self.match, ThreeHandedMatch):
            assert hand.result is not None
            self.match = self.match.record(hand)
            self.say(self.three_result(hand))
            self.say("Game points: " + self.scores_text() + ".")
            if self.match.winner is not None:
                self.end(self.match.winner, self.names[self.match.winner])
        self.hand_end = tuple(self.log[told:])

    def end(self, winner: int, name: str) -> None:
        verb = "win" if name.startswith(YOU) or "+" in name else "wins"  # You, or a pair
        self.over = MatchEnd(winner, f"{name} {verb} the match ({self.scores_text()}).")
        self.say(self.over.text)

    @property
    def won(self) -> bool | None:
        """Whether this seat (or its partnership) won the match; None if nobody did (yet)."""
        if self.over is None or self.over.winner is None:
            return None
        opts = self.options
        side = opts.side_of(self.me) if isinstance(opts, BiddingOptions) else self.me
        return self.over.winner == side

    def scores_text(self) -> str:
        names = self.sides if isinstance(self.match, TableMatch) else self.names
        return ", ".join(f"{n} {s}" for n, s in zip(names, self.match.scores, strict=True))

    def three_result(self, hand: ThreeHandedHand) -> str:
        r = hand.result
        assert r is not None
        names = (self.names[hand.players[0]], self.names[hand.players[1]])
        text = r.describe(names)
        last = self.match.results[-1] if isinstance(self.match, ThreeHandedMatch) else None
        if last is not None and last.gained[hand.dealer]:
            dealer = self.names[hand.dealer]
            verb = "score" if hand.dealer == self.me else "scores"
            text += f"; {dealer} (dealer) {verb} {last.gained[hand.dealer]} too"
        return text

    def link_text(self, compact: bool = False) -> str:
        """The other seats' links for the status bar ("" at a table in this process);
        ``compact``: as short as it can say it."""
        return ""

    @property
    def waiting_for(self) -> str:
        """Who is to act now, in words ("West"; when nobody is, what happens instead)."""
        seat = self.to_act
        return self.names[seat] if 0 <= seat < len(self.names) else "the hand being checked"

    # ----------------------------------------------------- changes, waiting

    def changed(self) -> None:
        """The table changed by itself (a record came): wake whoever waits, tell the screen."""
        self.version += 1
        self._changed.set()
        if self.on_change is not None:
            self.on_change()

    async def settle(self) -> None:
        """Until something is to be told or asked: at once on your turn, else the next change."""
        if self.version == self._settled and not self.my_turn and self.over is None:
            self._changed.clear()
            await self._changed.wait()
        self._settled = self.version

    async def wait_over(self) -> None:
        """Until the match is over (a network table may end while you think)."""
        while self.over is None:
            self._changed.clear()
            await self._changed.wait()

    # ---------------------------------------------------------------- moves

    @property
    def to_act(self) -> int:
        return self.hand.to_act if self.hand is not None else -1

    @property
    def my_turn(self) -> bool:
        return self.over is None and not self.hand_over and self.to_act == self.me

    def view(self) -> TableView | ThreeHandedView:
        hand = self.hand
        assert hand is not None
        if isinstance(hand, BiddingHand):
            return table_view(hand, self.me, self.match.scores)
        scores = self.match.scores
        return three_handed_view(hand, self.me, (scores[0], scores[1], scores[2]))

    def legal_notation(self) -> list[str]:
        hand = self.hand
        if hand is None or hand.is_over:
            return []
        if isinstance(hand, BiddingHand):
            return [TABLE_NOTATION[c] for c in hand.legal_codes()]
        return [MOVE_NOTATION[c] for c in hand.legal_codes()]

    def next_move(self) -> tuple[int, int] | None:
        """The next (seat, code) the screen should play itself, without playing it.

        None here: a seat whose others move elsewhere. It only reads the table,
        so a screen may work it out off its event loop.
        """
        return None

    def apply(self, seat: int, code: int) -> None:
        """Play the move ``next_move`` gave (only tables that have such moves)."""
        raise IllegalMoveError(str(code), "the other seats move by themselves here")

    def note_public(self, hand_seat: int, code: int) -> None:
        """A three-handed move everybody saw, for the bots' record of the hand."""
        self.public.append(PublicMove(hand_seat, MOVES[code]))

    def submit(self, text: str) -> None:
        """Play your move; NotationError or IllegalMoveError (with the reason) if not."""
        hand = self.hand
        if hand is None or hand.is_over or self.over is not None:
            raise IllegalMoveError(text, "the hand is over")
        if not self.my_turn:
            who = self.names[self.to_act]
            raise IllegalMoveError(text, f"not your turn: it is {who}'s turn")
        code = self.resolve(text)
        hand.apply(code, seat=self.me)  # raises with the reason
        self.play_mine(code)

    def play_mine(self, code: int) -> None:
        """Your checked, legal move ``code``."""
        raise NotImplementedError

    def default_move(self) -> int | None:
        """What Enter alone plays: ``draw`` at a two-player draw point (three-handed)."""
        hand = self.hand
        if isinstance(hand, ThreeHandedHand) and self.my_turn and hand.state.phase == Phase.DRAW:
            return DRAW
        return None

    def shown_hand(self) -> tuple[Card, ...]:
        """Your hand in the order the board shows and numbers it (1 = first)."""
        hand = self.hand
        if isinstance(hand, BiddingHand):
            cards = tuple(hand.hand_of(self.me))
            return display_order(cards, hand.trump if hand.trump >= 0 else 0)
        if hand is None or hand.hand_seat(self.me) is None:
            return ()
        seat = hand.hand_seat(self.me)
        assert seat is not None
        return display_order(tuple(hand.state.hand_of(seat)), hand.state.trump_suit)

    def resolve(self, text: str) -> int:
        """The move code ``text`` means now: a number while playing is a card of your hand."""
        hand = self.hand
        entry = text.strip()
        playing = isinstance(hand, ThreeHandedHand) or (
            isinstance(hand, BiddingHand) and hand.phase != TablePhase.BID
        )
        if not entry and self.default_move() is not None:
            return self.default_move()  # type: ignore[return-value]
        if playing and entry.isdigit():
            shown = self.shown_hand()
            if not 1 <= int(entry) <= len(shown):
                raise NotationError(no_such_card(int(entry), len(shown)))
            return shown[int(entry) - 1].id
        if isinstance(hand, BiddingHand):
            return parse_table_move(entry)
        return parse_move_code(entry)

    # ------------------------------------------------------------ narration

    def say(self, line: str) -> None:
        self.log.append(line)

    def card(self, card_id: int) -> str:
        return card_text(CARDS[card_id], self.style)

    def _s(self, who: str, plural: str = "s") -> str:
        """The verb's ending: "You play", "West plays"."""
        return "" if who == YOU else plural

    def tell_dealer(self, dealer_seat: int, number: int) -> None:
        dealer = self.names[dealer_seat]
        self.say(f"Hand {number}: {dealer} deal{self._s(dealer)}.")

    def tell_sitting_out(self, hand: ThreeHandedHand) -> None:
        a, b = (self.names[s] for s in hand.players)
        dealer = self.names[hand.dealer]
        sits = f"{dealer} sit{self._s(dealer)}"
        self.say(f"{sits} out; {a} and {b} play, trump card {self.card(self.first_trump.id)}.")

    def tell_bidding(self, before: BiddingHand, after: BiddingHand, seat: int, code: int) -> None:
        who = self.names[seat]
        s = self._s(who)
        if before.phase == TablePhase.BID:
            bid = bid_of(code)
            if bid == 5:
                self.say(f"{who} shoot{s} the moon!")
            elif bid:
                self.say(f"{who} bid{s} {bid} ({33 * bid}).")
            else:
                self.say(f"{who} pass{'es' if s else ''}.")
            if after.phase == TablePhase.LEAD:
                bidder = self.names[after.bidder]
                held = " (the dealer is held to 1)" if after.forced else ""
                leads = f"lead{self._s(bidder)}"
                n = after.high_bid
                what = "the moon" if after.moon else f"{n} ({33 * n} points)"
                self.say(f"Contract: {bidder}, {what}{held}; {bidder} {leads}.")
                if after.moon:
                    out = self.names[after.out_seat]
                    self.say(f"{out} lay{self._s(out)} the hand down.")
            return
        card = code - MARRY_BASE if code >= MARRY_BASE else code
        if code >= MARRY_BASE:
            value = after.marriages[-1][2]
            self.say(
                f"{who} announce{s} the marriage in {suit_name(card // 6)} ({value}) "
                f"and lead{s} {self.card(card)}."
            )
        else:
            self.say(f"{who} play{s} {self.card(card)}.")
        if before.trump < 0 <= after.trump:
            self.say(f"Trumps are {suit_name(after.trump)}.")
        if len(after.tricks_log) > len(before.tricks_log):
            _leader, plays, winner = after.tricks_log[-1]
            points = sum(CARDS[c].points for _, c in plays)
            w = self.names[winner]
            self.say(f"{w} win{self._s(w)} the trick ({points} points).")
            if after.widow_taker >= 0 > before.widow_taker:
                cards = " ".join(self.card(c) for c in ids_of(after.widow))
                self.say(f"{w} take{self._s(w)} the widow: {cards}.")

    def tell_three(
        self, before: ThreeHandedHand, after: ThreeHandedHand, seat: int, code: int
    ) -> None:
        who = self.names[seat]
        s = self._s(who)
        move = MOVES[code]
        if move.kind == "play" and move.card is not None:
            self.say(f"{who} play{s} {self.card(move.card.id)}.")
        elif move.kind == "marry" and move.card is not None:
            value = after.state.marriages[-1].points
            self.say(
                f"{who} announce{s} the marriage in {suit_name(move.card.suit)} ({value}) "
                f"and lead{s} {self.card(move.card.id)}."
            )
        elif move.kind in ("exchange", "close", "declare"):
            what = {"exchange": " the trump card", "close": " the talon", "declare": " 66"}
            self.say(f"{who} {move.kind}{s}{what[move.kind]}.")
        b, a = before.state, after.state
        if a.tricks_played > b.tricks_played:
            winner = a.tricks_log[-1][3]
            w = self.names[after.table_seat(winner)]
            self.say(f"{w} win{self._s(w)} the trick.")
