"""The local table of the games for three and four players: the referee, the bots, the story.

``LocalMultiTable`` holds the true state (the only place that does), gives
each bot its seat's view only, and tells the player every public event as a
sentence (a ``SeatModel``: what the screens see). You sit at seat 0; the
others clockwise. It is synchronous and
deterministic for a seed: ``play_bots()`` runs the bots until it is your
turn or the hand is over, ``submit(text)`` plays your move.
"""

from __future__ import annotations

import random

from p2p66.bots.api import Turn, as_action
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.bots.table import make_table_bot
from p2p66.engine import CARDS
from p2p66.engine.cards import deck_ids
from p2p66.engine.deal import deal_layout
from p2p66.engine.table import (
    BiddingHand,
    BiddingOptions,
    TableMatch,
    TableOptions,
    ThreeHandedHand,
    ThreeHandedMatch,
    ThreeHandedOptions,
    table_view,
    three_handed_view,
)
from p2p66.engine.view import PlayerView, view_of
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.multi.seat import ME, NAMES, MatchEnd, SeatModel, side_names
from p2p66.ui.table import automatic

__all__ = ["ME", "NAMES", "LocalMultiTable", "MatchEnd", "side_names"]


class LocalMultiTable(SeatModel):
    """You at seat 0 and bots elsewhere, playing a match of ``options``."""

    def __init__(self, options: TableOptions, bot: str, seed: int, style: TextStyle) -> None:
        n = options.players
        super().__init__(options, style, names=NAMES[n], sides=side_names(n))
        self.rng = random.Random(seed)
        self.first_dealer = self.rng.randrange(options.players)
        if isinstance(options, BiddingOptions):
            self.bidding_bots = {
                s: make_table_bot(bot, seed * 10 + s) for s in range(1, options.players)
            }
            self.match = TableMatch(options, self.first_dealer)
        else:
            spec = parse_bot_spec(bot)
            self.hand_bots = {s: make_bot(spec, seed * 10 + s, options.hand_rules) for s in (1, 2)}
            for s, b in self.hand_bots.items():
                b.start_game(s, options.hand_rules)
            self.match = ThreeHandedMatch(options, self.first_dealer)
        self.start_hand()

    # ------------------------------------------------------------ the match

    def next_hand(self) -> None:
        self.start_hand()

    def start_hand(self) -> None:
        """Deal the next hand (the deck from this table's seeded generator)."""
        opts = self.options
        size = opts.hand_rules.deck_size if isinstance(opts, ThreeHandedOptions) else 24
        deck = deck_ids(size)
        self.rng.shuffle(deck)
        match = self.match
        self.hand = match.new_hand(deck)
        self.public = []
        self.tell_dealer(match.dealer, match.hand_number)
        if isinstance(self.hand, ThreeHandedHand):
            rules = opts.hand_rules if isinstance(opts, ThreeHandedOptions) else None
            assert rules is not None
            self.first_trump = CARDS[deck[deal_layout(rules).trump]]
            self.tell_sitting_out(self.hand)

    # ---------------------------------------------------------------- moves

    def play_bots(self) -> None:
        """Bots move until it is your turn or the hand is over."""
        while (move := self.next_move()) is not None:
            self.apply(*move)

    async def settle(self) -> None:
        """The bots move (until it is your turn or the hand is over)."""
        self.play_bots()

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
        return seat, self.hand_bot_move(seat, view_of(hand.state, hand.state.to_act))

    def hand_bot_move(self, seat: int, view: PlayerView) -> int:
        """The move of ``seat``'s two-player bot in a three-handed hand, from ``view``."""
        turn = Turn(view, tuple(self.public), self.first_trump)
        return as_action(self.hand_bots[seat].choose(turn)).move.code

    def play_mine(self, code: int) -> None:
        self.apply(ME, code)

    def apply(self, seat: int, code: int) -> None:
        hand = self.hand
        assert hand is not None
        before = hand
        self.hand = hand.apply(code, seat=seat)
        if isinstance(before, BiddingHand) and isinstance(self.hand, BiddingHand):
            self.tell_bidding(before, self.hand, seat, code)
        elif isinstance(before, ThreeHandedHand) and isinstance(self.hand, ThreeHandedHand):
            self.note_public(before.state.to_act, code)
            self.tell_three(before, self.hand, seat, code)
        if self.hand.is_over:
            self.finish_hand()
