"""What the player types: understood, completed (legal moves only) and explained."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from uikit import ASCII, SIXTY_SIX, dealt, play

from p2p66.engine import HandState, IllegalMoveError, Phase, new_hand, preset, view_of
from p2p66.engine.cards import deck_ids
from p2p66.engine.moves import DECLARE, DRAW, NUM_MOVE_CODES, PASS, parse_move_code
from p2p66.ui.entry import Help, Quit, Rejected, Submit, interpret, suggestions
from p2p66.ui.explain import help_lines, rules_now, why_not
from p2p66.ui.table import automatic


def code(text: str) -> int:
    return parse_move_code(text)


def test_ui_entry_cards_numbers_and_words() -> None:
    view = view_of(dealt(), 0)  # hand shown as 1:AS 2:TC 3:JD 4:KH 5:QH 6:9H
    assert interpret(view, "as") == Submit(code("AS"))
    assert interpret(view, " 10c ") == Submit(code("TC"))
    assert interpret(view, "4") == Submit(code("KH"))
    assert interpret(view, "m qh") == Submit(code("marry:QH"))
    assert interpret(view, "c") == Submit(code("close"))
    assert interpret(view, "q") == Quit()
    assert interpret(view, "?") == Help(None)
    assert interpret(view, "kh?") == Help(code("KH"))
    assert interpret(view, "? 2") == Help(code("TC"))


def test_ui_entry_refusals_say_why() -> None:
    view = view_of(dealt(), 0)
    assert interpret(view, "7") == Rejected("there is no card 7: your cards are numbered 1 to 6")
    zz = interpret(view, "zz")
    assert isinstance(zz, Rejected) and "'zz' is not a move" in zz.reason
    assert interpret(view, "ks") == Rejected("KS is not in your hand")
    assert interpret(view, "x") == Rejected("the exchange needs a won trick")
    assert interpret(view, "d") == Rejected(
        "nothing has been won yet: declaring is possible after the first trick"
    )
    assert interpret(view, "m") == Rejected("say which card to lead: m KH or m QH")
    assert interpret(view, "") == Rejected(
        "type a card, its number, or a move (? explains what you may do)"
    )
    waiting = view_of(play(dealt(), "AS"), 0)
    assert interpret(waiting, "9h", "Bot") == Rejected("it is Bot's turn: wait for their move")
    empty_handed = replace(view, hand=())  # the final-declare step of a closed hand
    assert interpret(empty_handed, "5") == Rejected("you have no cards left to play")


def test_ui_entry_false_declaration_needs_insisting() -> None:
    view = view_of(play(dealt(), "AS", "9S", "draw"), 0)  # 11 card points, declaring is legal
    refused = interpret(view, "declare")
    assert isinstance(refused, Rejected) and "you have 11 card points, not 66" in refused.reason
    assert interpret(view, "declare!") == Submit(DECLARE)


def test_ui_entry_enter_draws_after_winning_a_trick() -> None:
    view = view_of(play(dealt(), "AS", "9S"), 0)
    assert view.phase == Phase.DRAW
    assert interpret(view, "") == Submit(DRAW)
    assert interpret(view, "as") == Rejected(
        "you won the trick: first draw from the talon (draw) or close it (close)"
    )


def test_ui_entry_suggestions_complete_prefixes_with_legal_moves_only() -> None:
    view = view_of(dealt(), 0)
    assert [s.text for s in suggestions(view, "")] == [
        *("AS", "TC", "JD", "KH", "QH", "9H"),  # the hand's order as shown and numbered
        *("marry:KH", "marry:QH", "close"),
    ]
    assert [s.text for s in suggestions(view, "k")] == ["KH"]
    assert [s.text for s in suggestions(view, "m")] == ["marry:KH", "marry:QH"]
    assert [s.text for s in suggestions(view, "marry:q")] == ["marry:QH"]
    assert [s.text for s in suggestions(view, "4")] == ["KH"]
    first = suggestions(view, "a")[0]
    assert (first.display, first.meta) == ("1 A♠", "play the ace of spades")
    assert suggestions(view_of(play(dealt(), "AS"), 0), "") == []  # not our turn: nothing


def test_ui_entry_rules_now_follows_the_stage_of_the_hand() -> None:
    open_lines = rules_now(view_of(dealt(), 0), "Bot")
    assert open_lines[0].startswith("The talon is open (12 cards")
    assert open_lines[-1].startswith("Now you may: play ")
    closed = view_of(play(dealt(), "JD", "AD", "close", "AC"), 0)
    lines = rules_now(closed, "Bot", ASCII)
    assert lines[0].startswith("The talon was closed by Bot: no more drawing")
    assert "Bot led AC: you must follow suit and win if you can." in lines[2]
    assert help_lines(closed, code("AS"), "Bot") == [
        "play:AS is not allowed: the talon is closed or exhausted: you must follow suit to AC."
    ]
    assert help_lines(None, None, "Bot") == ["No hand is being played yet."]
    assert "66 wins the hand if you declare it." in open_lines[1]
    assert "lead either and announce a marriage" in open_lines[3]


def test_ui_entry_rules_now_speaks_of_the_rules_in_play() -> None:
    """Under vu the hand ends by itself at 66 and a marriage is led with the king."""
    deck = deck_ids(20)
    vu = new_hand(preset("vu"), deck, dealer=1)
    lines = rules_now(view_of(vu, vu.to_act), "Bot")
    assert lines[1].endswith("the hand ends as soon as a trick brings you to 66.")
    assert any("lead the king and announce a marriage" in line for line in lines)


def _random_position(seed: int, steps: int) -> HandState:
    rng = random.Random(seed)
    options = rng.choice([SIXTY_SIX, preset("schnapsen"), preset("vu")])
    deck = deck_ids(options.deck_size)
    rng.shuffle(deck)
    state = new_hand(options, deck, dealer=rng.randrange(2))
    for _ in range(steps):
        if state.is_over:
            break
        state = state.apply(rng.choice(state.legal_moves()))
    return state


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 30))
def test_ui_entry_reasons_match_the_engine_and_suggestions_are_legal(seed: int, steps: int) -> None:
    state = _random_position(seed, steps)
    if state.is_over:
        return
    view = view_of(state, state.to_act)
    legal = {m.code for m in view.legal}
    for c in range(NUM_MOVE_CODES):
        reason = why_not(view, c)
        if c in legal:
            assert reason is None
            continue
        try:
            state.check_legal(c)
        except IllegalMoveError as exc:
            assert reason == exc.reason  # the view-only answer equals the full state's
        else:
            raise AssertionError(f"code {c} legal in the state but not in the view")
    for s in suggestions(view, ""):
        entry = interpret(view, s.text)
        assert entry == Submit(parse_move_code(s.text)) or (
            parse_move_code(s.text) == DECLARE and isinstance(entry, Rejected)
        )
        assert parse_move_code(s.text) in legal


def test_ui_entry_enter_after_a_marriage_goes_on_below_66() -> None:
    """After announcing a marriage, Enter is the sensible answer: pass below 66."""
    from p2p66.engine.moves import PASS

    view = view_of(play(dealt(), "marry:QH"), 0)
    assert view.phase == Phase.MARRIAGE_DECLARE and view.my_points < 66
    assert interpret(view, "") == Submit(PASS)
    refused = interpret(view, "d")
    assert isinstance(refused, Rejected) and "not 66" in refused.reason


def test_ui_entry_going_on_short_of_66_is_automatic() -> None:
    """After a marriage below 66 nobody is asked: declaring could only lose."""
    married = view_of(play(dealt(), "AS", "9S", "draw", "marry:KH"), 0)
    assert married.phase == Phase.MARRIAGE_DECLARE and married.my_points < 66
    assert automatic(married) == PASS
    assert automatic(replace(married, my_points=66)) is None  # a real choice: asked
    assert automatic(replace(married, phase=Phase.LEAD)) is None
    assert automatic(view_of(play(dealt(), "AS", "9S", "draw", "marry:KH"), 1)) is None
    assert automatic(None) is None


def test_ui_drawing_is_automatic_only_when_nothing_else_may_be_done() -> None:
    """After a won trick the player is asked only if closing (or exchanging) is possible."""
    from p2p66.engine.moves import MOVES

    won = view_of(play(dealt(), "AS", "9S"), 0)
    assert won.phase == Phase.DRAW and {m.kind for m in won.legal} == {"draw", "close"}
    assert automatic(won) is None  # closing is a real choice: asked
    only_draw = replace(won, legal=(MOVES[DRAW],))
    assert automatic(only_draw) == DRAW
    assert automatic(replace(only_draw, my_points=70)) == DRAW


def test_ui_refusals_speak_the_boards_language() -> None:
    from p2p66.ui.cards_text import TextStyle, speak

    symbols = TextStyle()
    assert speak("TC is not in your hand", symbols) == "10♣ is not in your hand"
    example = "expected a card (e.g. 'AH', '10h'), 'marry:QH' (or 'm qh')"
    assert speak(example, symbols) == example  # what to type stays as typed
    assert speak("TC is not in your hand", ASCII) == "TC is not in your hand"


def test_ui_legal_moves_are_listed_in_the_hands_order_and_never_a_sure_loss() -> None:
    from p2p66.ui.cards_text import display_order

    view = view_of(play(dealt(), "AS"), 1)
    shown = [c.code for c in display_order(view.hand, view.trump_suit)]
    listed = [s.text for s in suggestions(view, "", ASCII)]
    assert listed == [c for c in shown if c in listed]
    assert [s.display.split()[0] for s in suggestions(view, "", ASCII)] == [
        str(i + 1) for i in range(len(listed))
    ]
    married = view_of(play(dealt(), "AS", "9S", "draw", "marry:KH"), 0)
    assert all(s.text != "declare" for s in suggestions(replace(married, my_points=40), ""))
