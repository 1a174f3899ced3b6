"""The engine's refusals name cards by code; the table screens name them as the board does."""

from __future__ import annotations

from p2p66.ui.cards_text import TextStyle, cards_named

REASON = "the talon is closed or exhausted: you must follow suit to QD"


def test_a_card_code_reads_as_the_board_writes_it() -> None:
    assert cards_named(REASON, TextStyle()).endswith("follow suit to Q♦")
    assert cards_named("play a higher card than TH", TextStyle()).endswith("than 10♥")


def test_ascii_keeps_the_code_and_words_name_the_card() -> None:
    assert cards_named(REASON, TextStyle(ascii=True)) == REASON
    worded = cards_named(REASON, TextStyle(words=True))
    assert worded.endswith("follow suit to the queen of diamonds")


def test_text_without_a_card_is_unchanged() -> None:
    text = "you cannot follow suit, so you must play a trump: AS KD? no, QDX and 9CS stay"
    assert cards_named("you cannot follow suit, so you must play a trump", TextStyle()) == (
        "you cannot follow suit, so you must play a trump"
    )
    assert "QDX" in cards_named(text, TextStyle()) and "9CS" in cards_named(text, TextStyle())
