"""Scenario tests: one or more per numbered rule, ruling and option of RULES.md."""

from __future__ import annotations

import pytest

from p2p66.engine import (
    HandState,
    HowEnded,
    IllegalMoveError,
    Phase,
    RuleOptions,
    new_hand,
    preset,
    view_of,
)
from p2p66.engine.cards import CARDS, parse_card_id
from p2p66.engine.deckbuild import build_deck

SIXTY_SIX = preset("sixty-six")
SCHNAPSEN = preset("schnapsen")
VU = preset("vu")


def card(code: str) -> int:
    return parse_card_id(code)


def hand(state: HandState, seat: int) -> set[str]:
    return {c.code for c in state.hand_of(seat)}


def play(state: HandState, *moves: str) -> HandState:
    for move in moves:
        state = state.apply(move)
    return state


def legal(state: HandState) -> set[str]:
    return {m.notation for m in state.legal_moves()}


def deal(
    options: RuleOptions = SIXTY_SIX,
    *,
    leader: str,
    dealer: str,
    trump: str,
    talon: str = "",
) -> HandState:
    """Seat 0 deals, so seat 1 (``leader``) leads the first trick."""
    deck = build_deck(options, non_dealer=leader, dealer=dealer, trump=trump, talon=talon)
    return new_hand(options, deck, dealer=0)


def surgery(state: HandState, *, score: tuple[int, int], tricks: tuple[int, int]) -> HandState:
    """Set card points and trick counts directly, to test scoring arithmetic in isolation."""
    s = state.copy()
    s.score = list(score)
    s.tricks = list(tricks)
    return s


# --- rule 1-2: deal, lead, trick taking -------------------------------------------------


def test_deal_follows_canonical_packets_layout() -> None:
    deck = list(range(24))
    s = new_hand(SIXTY_SIX, deck, dealer=0)
    assert s.hands[1] == sum(1 << i for i in (0, 1, 2, 6, 7, 8))
    assert s.hands[0] == sum(1 << i for i in (3, 4, 5, 9, 10, 11))
    assert s.trump_card == 12 and s.trump_suit == CARDS[12].suit
    assert s.stock == tuple(range(13, 24))
    assert s.to_act == 1 and s.phase == Phase.LEAD


def test_schnapsen_and_vu_layouts() -> None:
    deck = [i for i in range(24) if i % 6 != 5]
    s = new_hand(SCHNAPSEN, deck, dealer=1)
    assert [c.id for c in s.hand_of(0)] == sorted(deck[i] for i in (0, 1, 2, 6, 7))
    assert s.trump_card == deck[10] and s.stock == tuple(deck[11:20])
    v = new_hand(VU, deck, dealer=1)
    assert [c.id for c in v.hand_of(0)] == sorted(deck[i] for i in (0, 2, 4, 6, 8))
    assert [c.id for c in v.hand_of(1)] == sorted(deck[i] for i in (1, 3, 5, 7, 9))
    assert v.trump_card == deck[19] and v.stock == tuple(deck[10:19])


def test_bad_deck_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="duplicated"):
        new_hand(SIXTY_SIX, [0] * 24, dealer=0)
    with pytest.raises(ValueError, match="24 cards"):
        new_hand(SIXTY_SIX, list(range(20)), dealer=0)


def test_higher_card_of_led_suit_wins() -> None:
    s = deal(leader="9S TS KC QC JC 9C", dealer="AS KS QD JD 9D TD", trump="AH")
    s = play(s, "play:9S", "play:AS")
    assert s.tricks_log[-1][3] == 0
    assert s.score == [11, 0]


def test_trump_beats_led_suit_and_offsuit_loses() -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9H KS QD JD 9D TD", trump="AH")
    s2 = play(s, "play:AS", "play:9H")
    assert s2.tricks_log[-1][3] == 0  # trumped
    s3 = play(s, "play:AS", "play:9D")
    assert s3.tricks_log[-1][3] == 1  # off-suit, not trump: leader wins


def test_no_duty_to_follow_while_talon_open() -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH")
    s = play(s, "play:TS")
    assert legal(s) == {f"play:{c}" for c in ["9S", "KS", "QD", "JD", "9D", "TD"]}


# --- rule 4: drawing --------------------------------------------------------------------


def test_winner_draws_first_then_loser() -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH", talon="KH QH")
    s = play(s, "play:AS", "play:9S")
    assert s.phase == Phase.DRAW and legal(s) == {"draw", "close"}
    s = play(s, "draw")
    assert "KH" in hand(s, 1) and "QH" in hand(s, 0)
    assert s.talon_left == 10 and s.to_act == 1 and s.phase == Phase.LEAD


def test_face_up_trump_is_drawn_last_by_loser_of_sixth_trick() -> None:
    s = _exhaust(deal(leader="AS TS KS QS JS 9S", dealer="AC TC KC QC JC 9C", trump="AH"))
    assert s.talon_left == 0 and len(s.tricks_log) == 6
    loser = 1 - s.tricks_log[5][3]
    assert "AH" in hand(s, loser)
    assert CARDS[card("AH")] in view_of(s, 1 - loser).opponent_shown


def test_schnapsen_draws_automatically_without_close_before_draw() -> None:
    s = deal(SCHNAPSEN, leader="AS TS KC QC JC", dealer="KS QD JD TD AD", trump="AH", talon="KH")
    s = play(s, "play:AS", "play:KS")
    assert s.phase == Phase.LEAD and "KH" in hand(s, 1)


# --- rule 5: trump exchange ---------------------------------------------------------------


def test_exchange_needs_a_won_trick_in_sixty_six() -> None:
    s = deal(leader="9H TS KC QC JC 9C", dealer="AS KS QD JD 9D TD", trump="AH")
    with pytest.raises(IllegalMoveError, match="exchange needs a won trick"):
        s.apply("exchange")
    s = play(s, "play:TS", "play:9D", "draw")  # seat 1 wins with TS
    assert "exchange" in legal(s)
    s = play(s, "exchange")
    assert "AH" in hand(s, 1) and "9H" not in hand(s, 1)
    assert view_of(s, 0).trump_card == CARDS[card("9H")]
    assert CARDS[card("AH")] in view_of(s, 0).opponent_shown
    assert s.phase == Phase.LEAD and s.to_act == 1  # exchanger then leads


def test_exchange_only_once_and_only_on_lead() -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9H KS QD JD 9D TD", trump="AH")
    s = play(s, "play:AS")
    with pytest.raises(IllegalMoveError, match="only playing a card"):
        s.apply("exchange")


def test_schnapsen_exchange_without_trick_but_needs_four_in_talon() -> None:
    s = deal(SCHNAPSEN, leader="JH TS KC QC AC", dealer="AS KS QD JD TD", trump="AH")
    assert "exchange" in legal(s)
    s.talon_left = 2  # only the face-up trump and one face-down card left
    with pytest.raises(IllegalMoveError, match="too small"):
        s.apply("exchange")


def test_no_exchange_after_closing() -> None:
    s = deal(leader="9H TS KC QC JC 9C", dealer="AS KS QD JD 9D TD", trump="AH")
    s = play(s, "play:TS", "play:9D", "close")
    with pytest.raises(IllegalMoveError, match="closed"):
        s.apply("exchange")


def test_exchange_then_close_in_one_turn() -> None:
    s = deal(leader="9H TS KC QC JC 9C", dealer="AS KS QD JD 9D TD", trump="AH")
    s = play(s, "play:TS", "play:9D", "draw", "exchange", "close")
    assert s.closed and s.closer == 1


# --- rule 6: marriages --------------------------------------------------------------------


def test_marriage_before_first_trick_is_held_then_credited() -> None:
    s = deal(leader="KH QH TS 9C JC QC", dealer="AS KS QD JD 9D TD", trump="AD")
    s = play(s, "marry:KH")
    assert s.phase == Phase.MARRIAGE_DECLARE and legal(s) == {"declare", "pass"}
    assert s.score[1] == 0 and s.held[1] == 20
    assert CARDS[card("QH")] in view_of(s, 0).opponent_shown
    s = play(s, "pass", "play:KS")  # the dealer discards: leader wins KH + KS
    assert s.score[1] == 4 + 4 + 20 and s.held[1] == 0


def test_marriage_points_held_count_for_nobody_if_no_trick() -> None:
    s = deal(leader="KH QH TS 9C JC QC", dealer="AS KS QD JD 9D AH", trump="TD")
    s = play(s, "marry:QH", "pass", "play:AH")  # dealer wins
    assert s.held[1] == 20 and s.score[1] == 0 and s.score[0] == 14


def test_marriage_in_trumps_is_forty() -> None:
    s = deal(leader="KD QD TS 9C JC QC", dealer="AS KS QH JH 9H TH", trump="AD")
    s = play(s, "marry:QD")
    assert s.held[1] == 40


def test_marriage_forbidden_before_first_trick_option() -> None:
    opts = SIXTY_SIX.with_options(marriage_needs_trick="forbidden")
    s = deal(opts, leader="KH QH TS 9C JC QC", dealer="AS KS QD JD 9D TD", trump="AD")
    assert "marry:KH" not in legal(s)
    with pytest.raises(IllegalMoveError, match="before you have won a trick"):
        s.apply("marry:KH")


def test_marriage_lead_king_only_option() -> None:
    opts = SIXTY_SIX.with_options(marriage_lead="king")
    s = deal(opts, leader="KH QH TS 9C JC QC", dealer="AS KS QD JD 9D TD", trump="AD")
    assert "marry:KH" in legal(s) and "marry:QH" not in legal(s)
    with pytest.raises(IllegalMoveError, match="with the king"):
        s.apply("marry:QH")


def test_no_marriage_after_close_in_sixty_six_but_yes_in_schnapsen() -> None:
    s = deal(leader="KH QH TS 9C JC QC", dealer="AS KS QD JD 9D TD", trump="AD")
    s = play(s, "close")
    assert "marry:KH" not in legal(s)
    with pytest.raises(IllegalMoveError, match="closed or exhausted"):
        s.apply("marry:KH")
    t = deal(SCHNAPSEN, leader="KH QH TS QC JC", dealer="AS KS QD JD TD", trump="AD")
    t = play(t, "close")
    assert "marry:KH" in legal(t)


def test_marriage_credit_immediate_after_a_trick() -> None:
    s = deal(leader="KH QH TS 9C JC QC", dealer="AS KS QD JD 9D TD", trump="AD")
    s = play(s, "play:TS", "play:KS", "draw")
    before = s.score[1]
    s = play(s, "marry:KH")
    assert s.score[1] == before + 20 and s.held[1] == 0


def test_marriage_credit_next_trick_in_vu() -> None:
    s = deal(VU, leader="KH QH TS QC JC", dealer="AS KS QD JD TD", trump="AD")
    s = play(s, "play:TS", "play:JD")  # seat 1 wins? no: JD trumps
    assert s.tricks_log[-1][3] == 0
    t = deal(VU, leader="KH QH TS QC JC", dealer="AS KS QS JS TD", trump="AD")
    t = play(t, "play:TS", "play:JS")  # seat 1 wins
    t = play(t, "marry:KH")
    assert t.held[1] == 20  # not credited though seat 1 already has a trick
    assert t.phase == Phase.FOLLOW  # automatic mode: no declare prompt
    t = play(t, "play:QS")
    assert t.tricks_log[-1][3] == 1 and t.held[1] == 0  # credited with the marriage trick


# --- rule 7: declaring ------------------------------------------------------------------


def _declaring_position() -> HandState:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH")
    return play(s, "play:AS", "play:9S", "draw")


@pytest.mark.parametrize(
    ("opp_tricks", "opp_points", "expected"),
    [(0, 0, 3), (1, 32, 2), (2, 33, 1), (1, 0, 2)],
)
def test_true_declaration_scores_one_two_or_three(
    opp_tricks: int, opp_points: int, expected: int
) -> None:
    s = surgery(_declaring_position(), score=(opp_points, 66), tricks=(opp_tricks, 3))
    s = s.apply("declare")
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.how) == (
        1,
        expected,
        HowEnded.DECLARED_66,
    )


@pytest.mark.parametrize(("opp_tricks", "expected"), [(0, 3), (1, 2)])
def test_false_declaration_gives_opponent_two_or_three(opp_tricks: int, expected: int) -> None:
    s = surgery(_declaring_position(), score=(10, 65), tricks=(opp_tricks, 3))
    s = s.apply("declare")
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.how) == (
        0,
        expected,
        HowEnded.FALSE_DECLARATION,
    )


def test_declare_never_legal_at_very_first_lead() -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH")
    assert "declare" not in legal(s)
    with pytest.raises(IllegalMoveError, match="after the first trick"):
        s.apply("declare")


def test_declare_after_marriage_even_without_trick_is_false() -> None:
    s = deal(leader="KH QH TS 9C JC QC", dealer="AS KS QD JD 9D TD", trump="AD")
    s = play(s, "marry:KH", "declare")
    assert s.result is not None and s.result.how == HowEnded.FALSE_DECLARATION
    assert s.result.winner == 0 and s.result.game_points == 3


def test_declare_after_marriage_reaching_66() -> None:
    s = surgery(_declaring_position(), score=(10, 50), tricks=(1, 2))
    s.hands[1] |= (1 << card("KD")) | (1 << card("QD"))
    s.hands[0] &= ~((1 << card("QD")) | (1 << card("KD")))
    s = play(s, "marry:KD")  # 40 in trumps? trump is hearts: 20 in diamonds
    assert s.score[1] == 70
    s = play(s, "declare")
    assert s.result is not None and s.result.how == HowEnded.DECLARED_66
    assert s.result.game_points == 2


def test_automatic_declare_ends_hand_after_the_trick_in_vu() -> None:
    s = deal(VU, leader="AS TS KC QC JC", dealer="KS QS QD JD TD", trump="AD")
    s = surgery(s, score=(0, 60), tricks=(0, 2))
    s = play(s, "play:AS", "play:QS")
    assert s.result is not None and s.result.how == HowEnded.DECLARED_66
    assert s.result.winner == 1 and s.result.game_points == 3  # opponent has 0 points


def test_automatic_declare_after_immediate_marriage_credit() -> None:
    opts = SIXTY_SIX.with_options(declare="automatic")
    s = surgery(_declaring_position(), score=(10, 50), tricks=(1, 2))
    s.hands[1] |= (1 << card("KD")) | (1 << card("QD"))
    s.hands[0] &= ~((1 << card("QD")) | (1 << card("KD")))
    s.options = opts
    s = play(s, "marry:KD")
    assert s.result is not None and s.result.how == HowEnded.DECLARED_66


# --- rule 8-9: exhausted talon ------------------------------------------------------------


def _exhaust(state: HandState) -> HandState:
    """Play leads of the lowest legal card and draw until the talon is exhausted."""
    while state.talon_left > 0 and not state.is_over:
        codes = state.legal_codes()
        move = "draw" if state.phase == Phase.DRAW else next(c for c in codes if c < 24)
        state = state.apply(move)
    return state


def test_strict_duty_after_exhaustion_follow_higher_then_suit_then_trump() -> None:
    s = _exhaust(deal(leader="AS TS KS QS JS 9S", dealer="AC TC KC QC JC 9C", trump="AH"))
    assert s.talon_left == 0 and not s.talon_open
    s = s.copy()
    s.hands = [(1 << card("KD")) | (1 << card("9D")) | (1 << card("TH")), 1 << card("QD")]
    s.to_act, s.phase = 1, Phase.LEAD
    f = play(s, "play:QD")
    assert legal(f) == {"play:KD"}  # must win the trick
    with pytest.raises(IllegalMoveError, match="higher card than QD"):
        f.apply("play:9D")
    s.hands[0] = (1 << card("9D")) | (1 << card("TH"))
    f = play(s, "play:QD")
    assert legal(f) == {"play:9D"}  # follow suit even if you cannot win
    s.hands[0] = (1 << card("TH")) | (1 << card("9S"))
    f = play(s, "play:QD")
    assert legal(f) == {"play:TH"}  # void: must trump
    with pytest.raises(IllegalMoveError, match="must play a trump"):
        f.apply("play:9S")
    s.hands[0] = (1 << card("9S")) | (1 << card("9C"))
    f = play(s, "play:QD")
    assert legal(f) == {"play:9S", "play:9C"}  # void, no trump: anything


def test_strict_duty_after_closing() -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH")
    s = play(s, "close", "play:TS")
    assert legal(s) == {"play:9S", "play:KS"}  # cannot beat TS: any spade
    with pytest.raises(IllegalMoveError, match="must follow suit"):
        s.apply("play:QD")


def test_last_trick_bonus_and_unclaimed_end_last_trick() -> None:
    s = _exhaust(deal(leader="AS TS KS QS JS 9S", dealer="AC TC KC QC JC 9C", trump="AH"))
    while not s.is_over:
        s = s.apply(s.legal_codes()[0])
    assert s.result is not None and s.result.how == HowEnded.LAST_TRICK
    winner = s.tricks_log[-1][3]
    assert s.result.winner == winner
    assert sum(s.score) == 120 + 10  # only cards were played: no marriage points


def test_unclaimed_end_points_option_and_tie() -> None:
    opts = SIXTY_SIX.with_options(unclaimed_end="points")
    base = _exhaust(deal(opts, leader="AS TS KS QS JS 9S", dealer="AC TC KC QC JC 9C", trump="AH"))
    from p2p66.engine.scoring import Outcome, score_hand

    s = surgery(base, score=(70, 60), tricks=(5, 7))
    r = score_hand(s, Outcome.EXHAUSTED, 1)
    assert (r.winner, r.game_points, r.how) == (0, 1, HowEnded.MORE_POINTS)
    s = surgery(base, score=(65, 65), tricks=(6, 6))
    r = score_hand(s, Outcome.EXHAUSTED, 1)
    assert (r.winner, r.game_points, r.how) == (None, 0, HowEnded.TIE)


def test_schnapsen_exhausted_last_trick_wins_without_bonus() -> None:
    s = _exhaust(deal(SCHNAPSEN, leader="AS TS KS QS JS", dealer="AC TC KC QC JC", trump="AH"))
    while not s.is_over:
        s = s.apply(s.legal_codes()[0])
    assert s.result is not None and s.result.how == HowEnded.LAST_TRICK
    assert s.result.winner == s.tricks_log[-1][3]
    assert sum(s.score) == 120  # no last-trick bonus


def test_vu_exhausted_last_trick_scores_one() -> None:
    from p2p66.engine.scoring import Outcome, score_hand

    s = deal(VU, leader="AS TS KS QS JS", dealer="AC TC KC QC JC", trump="AH")
    r = score_hand(surgery(s, score=(10, 60), tricks=(1, 9)), Outcome.EXHAUSTED, 1)
    assert (r.winner, r.game_points, r.how) == (1, 1, HowEnded.LAST_TRICK)


# --- rule 10: closing ---------------------------------------------------------------------


def test_close_before_first_trick_and_success_scores_three() -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH")
    assert "close" in legal(s)
    s = play(s, "close")
    assert s.close_snapshot == (0, 0, True)
    s = surgery(play(s, "play:AS", "play:9S"), score=(0, 70), tricks=(1, 3))
    s = s.apply("declare")
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.how) == (
        1,
        3,
        HowEnded.CLOSER_SUCCEEDED,
    )


def test_close_before_first_trick_option_off() -> None:
    opts = SIXTY_SIX.with_options(close_before_first_trick=False)
    s = deal(opts, leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH")
    assert "close" not in legal(s)
    with pytest.raises(IllegalMoveError, match="before the first trick"):
        s.apply("close")


def test_close_before_draw_freezes_the_talon() -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH", talon="KH QH")
    s = play(s, "play:AS", "play:9S", "close")
    assert s.closed and s.talon_left == 12 and len(hand(s, 1)) == 5
    assert view_of(s, 0).closed and view_of(s, 0).close_snapshot == (0, 0)


def test_allow_close_false_in_vu() -> None:
    s = deal(VU, leader="AS TS KC QC JC", dealer="KS QS QD JD TD", trump="AD")
    assert "close" not in legal(s)
    with pytest.raises(IllegalMoveError, match="not allowed under these rules"):
        s.apply("close")


def _closed_midgame(closer_score: int, opp_score: int) -> HandState:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH")
    s = play(s, "play:AS", "play:9S", "draw")
    s = surgery(s, score=(opp_score, closer_score), tricks=(2, 3))
    return play(s, "close")


def test_closer_success_judged_at_moment_of_closing() -> None:
    s = _closed_midgame(40, 20)  # opponent had 20 < 33 when the talon was closed
    s = surgery(s, score=(40, 70), tricks=(4, 5))  # ... but 40 when the closer declares
    r = s.apply("declare").result
    assert r is not None and (r.winner, r.game_points) == (1, 2)
    s.options = s.options.with_options(closer_scored_at="declare")
    r = s.apply("declare").result
    assert r is not None and (r.winner, r.game_points) == (1, 1)


@pytest.mark.parametrize(("opp_tricks_at_close", "expected"), [(0, 3), (2, 2)])
def test_closer_failure_two_or_three(opp_tricks_at_close: int, expected: int) -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH")
    s = play(s, "play:AS", "play:9S", "draw")
    s = surgery(s, score=(5 * opp_tricks_at_close, 30), tricks=(opp_tricks_at_close, 3))
    s = play(s, "close")
    s = surgery(s, score=(40, 60), tricks=(4, 5))
    r = s.apply("declare").result  # false declaration by the closer
    assert r is not None
    assert (r.winner, r.game_points, r.how) == (0, expected, HowEnded.CLOSER_FAILED)


def test_closed_hand_cards_run_out_final_declare() -> None:
    s = _closed_midgame(30, 20)
    while s.phase != Phase.FINAL_DECLARE:
        s = s.apply(next(c for c in s.legal_codes() if c < 24))
    assert legal(s) == {"declare", "pass"}
    r = s.apply("pass").result
    assert r is not None and r.how == HowEnded.CLOSER_FAILED and r.winner == 0


def test_non_closer_false_declaration_scored_by_step_seven() -> None:
    s = _closed_midgame(30, 20)
    s = play(s, "play:TS", "play:KS")  # closer wins; make the opponent lead next
    s.to_act = s.leader = 0
    s = surgery(s, score=(40, 44), tricks=(3, 4))
    r = s.apply("declare").result
    assert r is not None and (r.winner, r.game_points, r.how) == (1, 2, HowEnded.FALSE_DECLARATION)


def test_non_closer_true_declaration_means_closer_failed() -> None:
    s = _closed_midgame(30, 20)
    s.to_act = s.leader = 0
    s = surgery(s, score=(70, 44), tricks=(3, 4))
    r = s.apply("declare").result
    assert r is not None and (r.winner, r.game_points, r.how) == (0, 2, HowEnded.CLOSER_FAILED)


# --- errors and turn order ---------------------------------------------------------------


def test_not_your_turn_and_card_not_in_hand() -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH")
    with pytest.raises(IllegalMoveError, match="not your turn"):
        s.apply("play:9S", seat=0)
    with pytest.raises(IllegalMoveError, match="not in your hand"):
        s.apply("play:9S")
    with pytest.raises(IllegalMoveError, match="draw"):
        s.apply("draw")


def test_apply_never_mutates_the_old_state() -> None:
    s = deal(leader="AS TS KC QC JC 9C", dealer="9S KS QD JD 9D TD", trump="AH")
    snapshot = (s.hands[:], s.score[:], s.phase, s.to_act, s.history[:])
    play(s, "play:AS", "play:9S", "draw")
    assert (s.hands, s.score, s.phase, s.to_act, s.history) == snapshot
