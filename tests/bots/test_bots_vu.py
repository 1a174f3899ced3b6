"""Interop with the optional ``schnapsen`` package: same rules, and its bots at our table.

Skipped when the package is not installed (it is an optional extra).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from p2p66.bots.api import BotError, PublicMove, Turn
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.bots.vu import VuBot, make_vu_bot, reconstruct_deck, vu_available
from p2p66.engine import preset, view_of
from p2p66.engine.cards import CARDS, deck_ids
from p2p66.engine.deal import deal_layout
from p2p66.engine.moves import MOVES
from p2p66.engine.state import new_hand
from p2p66.runner.game import GameSpec, play_game

VU = preset("vu")


def test_vu_bots_refuse_other_rules() -> None:
    with pytest.raises(BotError, match="preset vu"):
        make_vu_bot("rand", 1, preset("sixty-six"))


def test_availability_is_a_boolean() -> None:
    assert vu_available() in (True, False)


def _their_engine() -> tuple[Any, Any]:
    game = pytest.importorskip("schnapsen.game")
    return game, game.SchnapsenGamePlayEngine()


def _their_deck() -> Any:
    return pytest.importorskip("schnapsen.deck")


def test_reconstructed_deal_replays_to_our_view() -> None:
    """Random vu hands: at every turn the package's replayed state matches the seat's view."""
    _their_engine()
    rng = random.Random(5)
    for _ in range(40):
        deck = deck_ids(20)
        rng.shuffle(deck)
        state = new_hand(VU, deck, dealer=rng.randrange(2))
        log: list[PublicMove] = []
        trump = CARDS[deck[deal_layout(VU).trump]]
        adapter = make_vu_bot("rand", 3, VU)
        assert isinstance(adapter, VuBot)
        while not state.is_over:
            seat = state.to_act
            turn = Turn(view_of(state, seat), tuple(log), trump)
            guess = reconstruct_deck(turn, rng)
            assert sorted(guess) == deck_ids(20)
            adapter.replay(turn, guess)  # raises if the replay disagrees with the view
            move = adapter.choose(turn)
            assert move in turn.legal
            state.apply_code_unchecked(move.code)
            log.append(PublicMove(seat, MOVES[move.code]))


def test_same_rules_as_the_package() -> None:
    """The package plays random hands; our vu engine allows the same moves and scores the same."""
    game, engine = _their_engine()
    rng = random.Random(9)
    for _ in range(60):
        deck = deck_ids(20)
        rng.shuffle(deck)
        ours = new_hand(VU, deck, dealer=1)
        adapter = make_vu_bot("rand", 1, VU)
        assert isinstance(adapter, VuBot)
        hand1, hand2, talon = game.SchnapsenHandGenerator.generateHands(
            _their_deck().OrderedCardCollection([adapter.card(c) for c in deck])
        )

        class Checker(game.Bot):  # type: ignore[misc]
            def __init__(self, adapter: VuBot, ours: Any) -> None:
                super().__init__()
                self.adapter, self.ours = adapter, ours

            def get_move(self, perspective: Any, leader_move: Any) -> Any:
                valid = perspective.valid_moves()
                theirs = sorted(self.adapter.to_move(m).code for m in valid)
                assert theirs == sorted(self.ours.legal_codes())
                move = rng.choice(valid)
                self.ours.apply_code_unchecked(self.adapter.to_move(move).code)
                return move

        state = game.GameState(
            leader=game.BotState(implementation=Checker(adapter, ours), hand=hand1),
            follower=game.BotState(implementation=Checker(adapter, ours), hand=hand2),
            talon=talon,
            previous=None,
        )
        winner, points, _score = engine.play_game_from_state(state, None)
        assert ours.is_over and ours.result is not None
        assert ours.result.game_points == points
        assert winner is not None


@pytest.mark.timeout(60)
def test_package_bots_play_at_our_table() -> None:
    _their_engine()
    for name in ("vu:rand", "vu:rdeep:4:2", "vu:bully"):
        spec = GameSpec(game=0, pair=0, a_seat=0, seed=3, options=VU, mode="matches")
        bot = make_bot(parse_bot_spec(name), 1, VU)
        other = make_bot(parse_bot_spec("random"), 2, VU)
        result = play_game(spec, bot, other)
        assert result.forfeit is None
        assert result.winner in ("a", "b")
