"""Narration: one plain sentence per thing that happened, "you" for the player."""

from __future__ import annotations

from dataclasses import replace

from uikit import SIXTY_SIX, dealt, play, voice

from p2p66.engine import HandResult, HandState, HowEnded, view_of
from p2p66.engine.moves import parse_move_code
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.narrate import narrate
from p2p66.ui.screen import Screen, advance
from p2p66.ui.table import (
    ConnectionStatus,
    HandOver,
    HandStarted,
    MatchOver,
    MovePlayed,
    Notice,
    PeerError,
)


def told(state: HandState, seat: int, move: str) -> tuple[str, ...]:
    """The sentences seat 0 hears when ``seat`` makes ``move`` in ``state``."""
    after = state.apply(move)
    event = MovePlayed(seat, parse_move_code(move), view_of(after, 0))
    return narrate(event, view_of(state, 0), voice())


def test_ui_narrate_leads_tricks_and_draws() -> None:
    start = dealt()
    assert told(start, 0, "AS") == ("You lead AS.",)
    led = play(start, "AS")
    assert told(led, 1, "9S") == ("Bot plays 9S; you win the trick with AS (11 points).",)
    assert told(play(led, "9S"), 0, "draw") == ("You draw TS.",)
    bot_wins = play(start, "JD")
    assert told(bot_wins, 1, "AD") == ("Bot plays AD and wins the trick (13 points).",)
    assert told(play(bot_wins, "AD"), 1, "draw") == ("You draw KS.",)


def test_ui_narrate_marriage_exchange_close_and_declare() -> None:
    start = dealt()
    assert told(start, 0, "marry:QH") == (
        "You announce 40 in hearts and lead QH (it counts once you win a trick).",
    )
    bot_on_lead = play(start, "JD", "AD", "draw")
    assert told(bot_on_lead, 1, "marry:KC") == ("Bot announces 20 in clubs and leads KC.",)
    assert told(bot_on_lead, 1, "close") == (
        "Bot closes the talon: from now on follow suit and win if you can, else trump.",
    )
    ours = play(start, "AS", "9S", "draw")
    assert told(ours, 0, "exchange") == ("You exchange 9H for the trump card JH.",)
    assert told(ours, 0, "declare") == ("You declare 66.",)
    married = play(ours, "marry:KH")
    assert told(married, 0, "pass") == ()  # going on after a marriage is not news


def test_ui_narrate_talon_exhausted_and_trump_card_taken() -> None:
    state = dealt()
    # Play low cards until the last draw; whoever wins the sixth trick draws first.
    while state.talon_left > 2 or state.phase.name != "DRAW":
        state = state.apply(state.legal_moves()[0])
    sentences = told(state, state.to_act, "draw")
    assert sentences[-1] == "The talon is exhausted: follow suit and win if you can, else trump."
    if state.to_act == 0:  # we won the last trick before the talon ran out: Bot takes JH
        assert "Bot takes the trump card JH." in sentences
    else:
        assert sentences[0].startswith("You draw ") and "JH" in sentences[0]


def test_ui_narrate_hand_and_match_results() -> None:
    v = voice()
    result = HandResult(0, 2, HowEnded.DECLARED_66, (70, 20), (5, 2), 0, None)
    assert narrate(HandOver(result, (2, 0)), None, v) == (
        "You declare 66 truly and score 2 game points (card points: you 70, Bot 20); "
        "the match stands you 2, Bot 0.",
    )
    lost = replace(result, winner=1, how=HowEnded.CLOSER_FAILED, game_points=3, closer=0)
    assert narrate(HandOver(lost, (0, 3)), None, v)[0].startswith(
        "You closed the talon but failed, so Bot scores 3 game points"
    )
    last = replace(result, winner=1, how=HowEnded.LAST_TRICK, game_points=1)
    assert narrate(HandOver(last, (0, 1)), None, v)[0].startswith(
        "Bot won the last trick and scores 1 game point ("
    )
    assert narrate(MatchOver(0, (7, 3)), None, v) == ("You win the match 7 to 3.",)
    assert narrate(MatchOver(1, (2, 7)), None, v) == ("Bot wins the match 7 to 2.",)
    assert narrate(MatchOver(None, (2, 1)), None, v) == (
        "The match ended unfinished at you 2, Bot 1.",
    )


def test_ui_narrate_hand_start_connection_and_notices() -> None:
    v = voice(TextStyle(ascii=False, color=False))
    start = HandStarted(2, view_of(dealt(), 0), (1, 0))
    assert narrate(start, None, v) == (
        "Hand 2: Bot deals, trumps are hearts (J♥ turned up), and you lead first.",
    )
    assert narrate(ConnectionStatus("connected", 12.0), None, v) == ("Connected to Bot (12 ms).",)
    assert narrate(ConnectionStatus("reconnecting"), None, v) == (
        "Connection to Bot lost: reconnecting.",
    )
    assert narrate(Notice("Replay saved."), None, v) == ("Replay saved.",)
    assert narrate(PeerError("bad signature"), None, v) == ("Problem with Bot: bad signature",)


def test_ui_narrate_screen_logs_each_sentence_once_and_skips_latency_updates() -> None:
    screen = Screen(voice())
    screen, said = advance(screen, ConnectionStatus("connected", 10.0))
    assert said == ("Connected to Bot (10 ms).",)
    screen, said = advance(screen, ConnectionStatus("connected", 30.0))
    assert said == () and screen.connection.latency_ms == 30.0
    screen, _ = advance(screen, HandStarted(1, view_of(dealt(), 0), (0, 0)))
    assert screen.hand_number == 1 and screen.view is not None
    assert screen.log == (
        "Connected to Bot (10 ms).",
        "The first to 7 game points wins the match.",  # said once, at the first hand
        "Hand 1: Bot deals, trumps are hearts (JH turned up), and you lead first.",
    )
    assert SIXTY_SIX.match_target == screen.match_target


def test_ui_narrate_the_turn_passing_on_a_healthy_link_is_not_logged() -> None:
    """Waiting/connected flips with every turn: the status bar shows them, the log does not."""
    screen = Screen(voice())
    logged = []
    for state in ("connected", "waiting", "connected", "waiting", "reconnecting", "waiting"):
        screen, said = advance(screen, ConnectionStatus(state))  # type: ignore[arg-type]
        logged.extend(said)
        assert screen.connection.state == state
    assert logged == [
        "Connected to Bot.",
        "Connection to Bot lost: reconnecting.",
        "Connected to Bot.",  # back, and their move is due
    ]
