"""Rendering is pure: a screen in, formatted text out, checked with plain assertions."""

from __future__ import annotations

from dataclasses import replace

from prompt_toolkit.utils import get_cwidth
from uikit import ASCII, dealt, play, screen_of

from p2p66.engine import CARDS
from p2p66.ui.cards_text import TextStyle, card_text
from p2p66.ui.render import board, plain, status_bar, turn_line, wrap
from p2p66.ui.table import ConnectionStatus, MatchOver

SYMBOLS = TextStyle(ascii=False, color=True)
MONO = TextStyle(ascii=False, color=False)


def test_ui_render_first_lead_shows_everything_the_player_needs() -> None:
    text = plain(board(screen_of(dealt()), ASCII))
    assert "Hand 1 · Bot deals · trumps H hearts" in text
    assert "Talon: 12 cards, trump card JH face up" in text
    assert "Bot: 6 cards, 0 tricks" in text
    assert "Table: empty" in text
    assert "Last trick: none yet" in text
    assert "You: 0 card points, 0 tricks" in text
    # sorted by suit, alternating colours, trumps last, high cards first
    assert "Your hand:  1:AS 2:TC 3:JD 4:KH 5:QH 6:9H" in text
    assert "Your lead: type a card or its number · m marriage · c close · ? help" in text


def test_ui_render_symbols_and_colour_classes() -> None:
    fragments = board(screen_of(dealt(), SYMBOLS), SYMBOLS)
    text = plain(fragments)
    assert "1:A♠ 2:10♣ 3:J♦ 4:K♥ 5:Q♥ 6:9♥" in text
    red = {t for style, t, *_ in fragments if style == "class:card.red"}
    black = {t for style, t, *_ in fragments if style == "class:card.black"}
    assert {"J♦", "K♥", "Q♥", "9♥", "J♥"} <= red
    assert {"A♠", "10♣"} <= black


def test_ui_render_without_colour_keeps_every_suit_in_the_text() -> None:
    fragments = board(screen_of(dealt(), MONO), MONO)
    assert not any("red" in style or "black" in style for style, *_ in fragments)
    for card in CARDS:
        assert card_text(card, MONO)[-1] in "♣♦♥♠"  # colour is never the only signal


def test_ui_render_after_a_trick_shows_last_trick_points_and_new_keys() -> None:
    state = play(dealt(), "AS", "9S", "draw")
    text = plain(board(screen_of(state), ASCII))
    assert "Last trick: you AS, Bot 9S → won by you" in text
    assert "You: 11 card points, 1 trick" in text
    assert "Talon: 10 cards, trump card JH face up" in text
    assert "m marriage · x exchange · c close · ? help" in text  # declaring at 11 would lose
    screen = screen_of(state)
    assert screen.view is not None
    at_66 = replace(screen, view=replace(screen.view, my_points=66))
    assert turn_line(at_66, ASCII).endswith(
        "m marriage · x exchange · c close · d declare 66 · ? help"
    )


def test_ui_render_marriage_shows_held_points_and_shown_cards() -> None:
    # Bot (seat 1) wins the first trick, then announces 20 in clubs while we watch.
    state = play(dealt(), "JD", "AD", "draw", "marry:KC")
    screen = screen_of(state)
    text = plain(board(screen, ASCII))
    assert "Bot: 5 cards, 1 trick, has shown QC" in text
    assert "Table: Bot led KC announcing a marriage" in text
    assert turn_line(screen, ASCII) == "Waiting for Bot to play. (? explains the rules now)"
    # our own marriage before winning a trick: the points are held
    mine = play(dealt(), "marry:QH")
    assert "You: 0 card points (+40 held until you win a trick), 0 tricks" in plain(
        board(screen_of(mine), ASCII)
    )
    assert "Marriage announced (0 card points, not 66): Enter = go on" in turn_line(
        screen_of(mine), ASCII
    )


def test_ui_render_closed_talon_marks_cards_that_may_not_be_played() -> None:
    bot_leads = play(dealt(), "JD", "AD", "close", "AC")  # Bot wins, closes, leads AC
    screen = screen_of(bot_leads)
    text = plain(board(screen, ASCII))
    assert "Talon: closed by Bot (12 cards; trump card JH face down)" in text
    assert "(AS)" in text and "2:TC" in text  # only clubs may answer AC
    assert "cards in brackets may not be played now" in text
    assert "answer AC (follow suit and win if you can)" in turn_line(screen, ASCII)


def test_ui_render_status_bar_tells_score_opponent_and_link() -> None:
    screen = screen_of(dealt(), game_points=(3, 2), connection=ConnectionStatus("local"))
    text = plain(status_bar(screen))
    assert "Match: you 3, Bot 2 (to 7)" in text
    assert "vs Bot" in text and "local game" in text and "your turn" in text
    lagging = replace(screen, connection=ConnectionStatus("connected", 23.4))
    assert "connected, 23 ms" in plain(status_bar(lagging))
    lost = status_bar(replace(screen, connection=ConnectionStatus("reconnecting")))
    assert ("class:status.alert", "│ reconnecting... ") in lost
    waiting = plain(status_bar(replace(screen, connection=ConnectionStatus("waiting"))))
    assert "waiting for the opponent..." in waiting


def test_ui_render_match_over_and_waiting_screens() -> None:
    over = screen_of(dealt(), match_over=MatchOver(0, (7, 3)))
    assert turn_line(over, ASCII) == "The match is over: press Enter (or q) to leave."
    assert "match over" in plain(status_bar(over))
    empty = replace(screen_of(dealt()), view=None, log=("Connecting to Bot.",))
    text = plain(board(empty, ASCII))
    assert "Waiting for the first hand" in text and "Connecting to Bot." in text


def test_ui_render_wrap_keeps_every_word_within_the_width() -> None:
    """prompt-toolkit cuts long message lines; wrapped, nothing is lost on 80 columns."""
    state = play(dealt(), "AS", "9S", "draw")
    long_line = "You closed the talon but failed, so Bot scores 3 game points " * 3
    screen = replace(screen_of(state, SYMBOLS), log=(long_line.strip(),))
    fragments = board(screen, SYMBOLS)
    for width in (40, 80):
        wrapped = wrap(fragments, width)
        text = plain(wrapped)
        assert max(get_cwidth(line) for line in text.split("\n")) <= width
        assert text.split() == plain(fragments).split()  # the same words, in order
        assert {style for style, *_ in fragments} <= {style for style, *_ in wrapped}
        assert "\n    " in text  # continuations are indented


def test_ascii_only_spells_out_the_board_punctuation_and_drops_accents() -> None:
    from p2p66.ui.cards_text import ascii_only

    assert ascii_only("Hand 1 · you deal │ K♠ → won…") == "Hand 1 - you deal | KS -> won..."
    assert ascii_only("José 李") == "Jose ?"
    assert ascii_only("plain") == "plain"


def test_the_four_colour_deck_gives_every_suit_its_colour() -> None:
    from p2p66.engine.cards import CARDS
    from p2p66.ui.cards_text import TextStyle, card_class

    four = TextStyle(four_colour=True)
    assert {card_class(c, four) for c in CARDS} == {
        "class:card.green",
        "class:card.blue",
        "class:card.red",
        "class:card.black",
    }
    assert {card_class(c, TextStyle()) for c in CARDS} == {"class:card.red", "class:card.black"}
    assert card_class(CARDS[0], TextStyle(color=False, four_colour=True)) == "class:card"


def test_words_style_says_cards_as_words_for_screen_readers() -> None:
    from p2p66.engine.cards import Card
    from p2p66.ui.cards_text import TextStyle, card_text, cards_text

    words = TextStyle(words=True)
    assert card_text(Card.parse("AS"), words) == "the ace of spades"
    assert cards_text((Card.parse("TH"), Card.parse("QC")), words) == (
        "the ten of hearts, the queen of clubs"
    )
