"""The local table of the games for three and four players: the referee, the bots, the story.

``LocalMultiTable`` holds the true state (the only place that does), gives
each bot its seat's view only, and tells the player every public event as a
sentence. You sit at seat 0; the others clockwise. It is synchronous and
deterministic for a seed: ``play_bots()`` runs the bots until it is your
turn or the hand is over, ``submit(text)`` plays your move.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from p2p66.bots.api import PublicMove, Turn, as_action
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.bots.table import make_table_bot
from p2p66.engine import CARDS, Card, IllegalMoveError, NotationError
from p2p66.engine.cards import deck_ids, ids_of
from p2p66.engine.deal import deal_layout
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
    ThreeHandedOptions,
    ThreeHandedView,
    bid_of,
    parse_table_move,
    table_view,
    three_handed_view,
)
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.engine.view import view_of
from p2p66.ui.cards_text import TextStyle, card_text, display_order, suit_name
from p2p66.ui.table import automatic

ME = 0
NAMES = {3: ("You", "West", "East"), 4: ("You", "West", "North", "East")}


def side_names(players: int) -> tuple[str, ...]:
    return ("You+North", "West+East") if players == 4 else NAMES[3]


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """How the match ended: the winner (a side, or a seat in three-seat games)."""

    winner: int | None
    text: str


class LocalMultiTable:
    """You at seat 0 and bots elsewhere, playing a match of ``options``."""

    def __init__(self, options: TableOptions, bot: str, seed: int, style: TextStyle) -> None:
        self.options = options
        self.style = style
        self.rng = random.Random(seed)
        self.names = NAMES[options.players]
        self.log: list[str] = []
        self.over: MatchEnd | None = None
        self.first_dealer = self.rng.randrange(options.players)
        if isinstance(options, BiddingOptions):
            self.bidding_bots = {
                s: make_table_bot(bot, seed * 10 + s) for s in range(1, options.players)
            }
            self.match: TableMatch | ThreeHandedMatch = TableMatch(options, self.first_dealer)
        else:
            spec = parse_bot_spec(bot)
            self.hand_bots = {s: make_bot(spec, seed * 10 + s, options.hand_rules) for s in (1, 2)}
            for s, b in self.hand_bots.items():
                b.start_game(s, options.hand_rules)
            self.match = ThreeHandedMatch(options, self.first_dealer)
        self.hand: BiddingHand | ThreeHandedHand | None = None
        self.hand_end: tuple[str, ...] = ()  # what was said when the last hand ended
        self.public: list[PublicMove] = []
        self.first_trump = CARDS[0]
        self.start_hand()

    # ------------------------------------------------------------ the match

    @property
    def hand_number(self) -> int:
        """The number of the hand on the table (still the finished one until the next deal)."""
        return len(self.match.results) + (0 if self.hand_over else 1)

    @property
    def hand_over(self) -> bool:
        return self.hand is not None and self.hand.is_over

    def start_hand(self) -> None:
        """Deal the next hand (the deck from this table's seeded generator)."""
        opts = self.options
        size = opts.hand_rules.deck_size if isinstance(opts, ThreeHandedOptions) else 24
        deck = deck_ids(size)
        self.rng.shuffle(deck)
        match = self.match
        self.hand = match.new_hand(deck)
        self.public = []
        dealer = self.names[match.dealer]
        self.say(f"Hand {match.hand_number}: {dealer} deal{'' if dealer == 'You' else 's'}.")
        if isinstance(self.hand, ThreeHandedHand):
            rules = opts.hand_rules if isinstance(opts, ThreeHandedOptions) else None
            assert rules is not None
            self.first_trump = CARDS[deck[deal_layout(rules).trump]]
            a, b = (self.names[s] for s in self.hand.players)
            sits = "You sit" if match.dealer == ME else f"{dealer} sits"
            self.say(f"{sits} out; {a} and {b} play, trump card {self.card(self.first_trump.id)}.")

    def finish_hand(self) -> None:
        """Score the finished hand into the match; tell the result."""
        hand = self.hand
        assert hand is not None and hand.is_over
        told = len(self.log)
        if isinstance(hand, BiddingHand) and isinstance(self.match, TableMatch):
            assert hand.result is not None
            self.match = self.match.record(hand.result)
            self.say(hand.result.describe(side_names(self.options.players), self.names))
            self.say("Marks: " + self.scores_text() + ".")
            if self.match.is_over and self.match.winner is not None:
                self.end(self.match.winner, side_names(self.options.players)[self.match.winner])
        elif isinstance(hand, ThreeHandedHand) and isinstance(self.match, ThreeHandedMatch):
            assert hand.result is not None
            self.match = self.match.record(hand)
            self.say(self.three_result(hand))
            self.say("Game points: " + self.scores_text() + ".")
            if self.match.winner is not None:
                self.end(self.match.winner, self.names[self.match.winner])
        self.hand_end = tuple(self.log[told:])

    def end(self, winner: int, name: str) -> None:
        verb = "win" if name in ("You", "You+North") else "wins"
        self.over = MatchEnd(winner, f"{name} {verb} the match ({self.scores_text()}).")
        self.say(self.over.text)

    def scores_text(self) -> str:
        names = (
            side_names(self.options.players) if isinstance(self.match, TableMatch) else self.names
        )
        return ", ".join(f"{n} {s}" for n, s in zip(names, self.match.scores, strict=True))

    def three_result(self, hand: ThreeHandedHand) -> str:
        r = hand.result
        assert r is not None
        names = (self.names[hand.players[0]], self.names[hand.players[1]])
        text = r.describe(names)
        last = self.match.results[-1] if isinstance(self.match, ThreeHandedMatch) else None
        if last is not None and last.gained[hand.dealer]:
            dealer = self.names[hand.dealer]
            verb = "score" if hand.dealer == ME else "scores"
            text += f"; {dealer} (dealer) {verb} {last.gained[hand.dealer]} too"
        return text

    # ---------------------------------------------------------------- moves

    @property
    def to_act(self) -> int:
        return self.hand.to_act if self.hand is not None else -1

    @property
    def my_turn(self) -> bool:
        return self.over is None and not self.hand_over and self.to_act == ME

    def view(self) -> TableView | ThreeHandedView:
        hand = self.hand
        assert hand is not None
        if isinstance(hand, BiddingHand):
            return table_view(hand, ME, self.match.scores)
        scores = self.match.scores
        return three_handed_view(hand, ME, (scores[0], scores[1], scores[2]))

    def legal_notation(self) -> list[str]:
        hand = self.hand
        if hand is None or hand.is_over:
            return []
        if isinstance(hand, BiddingHand):
            return [TABLE_NOTATION[c] for c in hand.legal_codes()]
        return [MOVE_NOTATION[c] for c in hand.legal_codes()]

    def play_bots(self) -> None:
        """Bots move until it is your turn or the hand is over."""
        while (move := self.next_move()) is not None:
            self.apply(*move)

    def next_move(self) -> tuple[int, int] | None:
        """The next (seat, code) nobody needs to ask you about, without playing it.

        A bot's choice from its seat's view, or a move of yours that needs no
        asking (going on short of 66 after a marriage, ``ui.table.automatic``);
        None when it is your turn to choose or the hand is over. It only reads
        the table, so a screen may work it out off its event loop.
        """
        hand = self.hand
        if hand is None or hand.is_over or self.over is not None:
            return None
        seat = self.to_act
        if seat == ME:
            view = three_handed_view(hand, ME).hand if isinstance(hand, ThreeHandedHand) else None
            code = automatic(view)
            return None if code is None else (ME, code)
        if isinstance(hand, BiddingHand):
            return seat, self.bidding_bots[seat].choose(table_view(hand, seat, self.match.scores))
        turn = Turn(view_of(hand.state, hand.state.to_act), tuple(self.public), self.first_trump)
        return seat, as_action(self.hand_bots[seat].choose(turn)).move.code

    def submit(self, text: str) -> None:
        """Play your move; NotationError or IllegalMoveError (with the reason) if not."""
        hand = self.hand
        if hand is None or hand.is_over or self.over is not None:
            raise IllegalMoveError(text, "the hand is over")
        if self.to_act != ME:
            who = self.names[self.to_act]
            raise IllegalMoveError(text, f"not your turn: it is {who}'s turn")
        code = self.resolve(text)
        hand.apply(code, seat=ME)  # raises with the reason
        self.apply(ME, code)

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
            cards = tuple(hand.hand_of(ME))
            return display_order(cards, hand.trump if hand.trump >= 0 else 0)
        if hand is None or hand.hand_seat(ME) is None:
            return ()
        seat = hand.hand_seat(ME)
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
                raise NotationError(
                    f"{entry}: you hold {len(shown)} cards, numbered 1-{len(shown)}"
                )
            return shown[int(entry) - 1].id
        if isinstance(hand, BiddingHand):
            return parse_table_move(entry)
        return parse_move_code(entry)

    def apply(self, seat: int, code: int) -> None:
        hand = self.hand
        assert hand is not None
        before = hand
        self.hand = hand.apply(code, seat=seat)
        if isinstance(before, BiddingHand) and isinstance(self.hand, BiddingHand):
            self.tell_bidding(before, self.hand, seat, code)
        elif isinstance(before, ThreeHandedHand) and isinstance(self.hand, ThreeHandedHand):
            self.public.append(PublicMove(before.state.to_act, MOVES[code]))
            self.tell_three(before, self.hand, seat, code)
        if self.hand.is_over:
            self.finish_hand()

    # ------------------------------------------------------------ narration

    def say(self, line: str) -> None:
        self.log.append(line)

    def card(self, card_id: int) -> str:
        return card_text(CARDS[card_id], self.style)

    def tell_bidding(self, before: BiddingHand, after: BiddingHand, seat: int, code: int) -> None:
        who = self.names[seat]
        s = "" if who == "You" else "s"
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
                leads = "lead" if bidder == "You" else "leads"
                n = after.high_bid
                what = "the moon" if after.moon else f"{n} ({33 * n} points)"
                self.say(f"Contract: {bidder}, {what}{held}; {bidder} {leads}.")
                if after.moon:
                    self.say(f"{self.names[after.out_seat]} lays the hand down.")
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
            self.say(f"{w} win{'' if w == 'You' else 's'} the trick ({points} points).")
            if after.widow_taker >= 0 > before.widow_taker:
                cards = " ".join(self.card(c) for c in ids_of(after.widow))
                self.say(f"{w} take{'' if w == 'You' else 's'} the widow: {cards}.")

    def tell_three(
        self, before: ThreeHandedHand, after: ThreeHandedHand, seat: int, code: int
    ) -> None:
        who = self.names[seat]
        s = "" if who == "You" else "s"
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
            verb = {"exchange": "exchange", "close": "close", "declare": "declare"}[move.kind]
            what = {"exchange": " the trump card", "close": " the talon", "declare": " 66"}
            self.say(f"{who} {verb}{s}{what[move.kind]}.")
        b, a = before.state, after.state
        if a.tricks_played > b.tricks_played:
            winner = a.tricks_log[-1][3]
            w = self.names[after.table_seat(winner)]
            self.say(f"{w} win{'' if w == 'You' else 's'} the trick.")
