"""Honest hands: two and three parties deal, play and audit; the reveals' bookkeeping."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from cryptokit import MODES, dealt, game_config, make_table, three_party_config
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.crypto import DEFAULT_SOUNDNESS, DealParty, LocalUsageError, audit
from p2p66.crypto.config import ProofKind
from p2p66.crypto.memory import MemoryTable, play_two_player_hand
from p2p66.engine.cards import KING, QUEEN
from p2p66.engine.deal import deal_layout
from p2p66.engine.options import preset


def first(seat: int, hand: dict[int, int]) -> int:
    return min(hand)


@pytest.mark.parametrize("soundness", MODES)
@pytest.mark.parametrize(("game", "dealer"), [("sixty-six", 0), ("schnapsen", 1), ("vu", 0)])
def test_two_party_deal_follows_the_layout(soundness: int, game: str, dealer: int) -> None:
    config = game_config(soundness, game, dealer)
    table = make_table(config, f"deal-{game}")
    assert table.deal() == 3
    layout = deal_layout(preset(game))
    a, b = table.parties
    assert a.deal_complete and b.deal_complete
    for party in table.parties:
        assert sorted(party.hand()) == sorted(layout.hand_positions(party.seat, dealer))
    assert not set(a.hand().values()) & set(b.hand().values())
    assert a.card_at(layout.trump) == b.card_at(layout.trump) is not None
    assert a.transcript() == b.transcript()
    report = audit(a.transcript(), {0: a.secrets.seed, 1: b.secrets.seed})
    assert sorted(report.deck) == sorted(config.deck)
    for party in table.parties:
        assert all(report.deck[pos] == card for pos, card in party.known_cards().items())
    assert report.proofs_checked == (4 if soundness else 0)


@settings(max_examples=15, deadline=None)
@given(
    st.binary(min_size=32, max_size=32),
    st.binary(min_size=32, max_size=32),
    st.sampled_from(["sixty-six", "schnapsen", "vu"]),
    st.integers(0, 1),
)
def test_any_seeds_deal_a_permutation(s0: bytes, s1: bytes, game: str, dealer: int) -> None:
    config = game_config(0, game, dealer)
    table = MemoryTable([DealParty(config, 0, s0), DealParty(config, 1, s1)])
    table.deal()
    a, b = table.parties
    assert not set(a.hand().values()) & set(b.hand().values())
    report = audit(a.transcript(), {0: s0, 1: s1})
    assert sorted(report.deck) == sorted(config.deck)
    for party in table.parties:
        assert all(report.deck[pos] == card for pos, card in party.known_cards().items())


def test_flights_carry_what_the_docstring_says() -> None:
    table = make_table(game_config(0))
    table.deal()
    kinds = [(f.sender, [p.KIND for p in f.payloads]) for f in table.flights]
    assert kinds == [(0, ["shuffle"]), (1, ["shuffle", "rekey", "keys"]), (0, ["rekey", "keys"])]


@pytest.mark.parametrize("soundness", MODES)
def test_a_whole_hand_then_the_audit(soundness: int) -> None:
    options = preset("sixty-six")
    table = dealt(game_config(soundness, dealer=1), "whole")
    run = play_two_player_hand(table, deal_layout(options), 1, first)
    assert run.tricks == 12
    a, b = table.parties
    assert a.known_cards() == b.known_cards()
    assert len(a.known_cards()) == 24
    table.reveal_seeds()
    report = audit(b.transcript())
    assert report.deal_complete
    assert [e.card for e in report.events if e.kind == "play"] == [
        a.known_cards()[e.pos] for e in report.events if e.kind == "play"
    ]
    assert sum(e.kind == "play" for e in report.events) == 24
    assert sum(e.kind == "take" for e in report.events) == 1
    assert report.deck == tuple(a.known_cards()[pos] for pos in range(24))


def test_default_soundness_hand() -> None:
    config = game_config(DEFAULT_SOUNDNESS)
    table = dealt(config, "default")
    table.reveal_seeds()
    report = audit(table.parties[0].transcript())
    assert report.proofs_checked == 4
    # the default is the shuffle argument (issue 17), no longer 80 cut-and-choose rounds
    assert config.proof is ProofKind.ARGUMENT
    assert len(table.parties[0].state.payloads[0].proof) == 32 * (3 * 24 + 6)


@pytest.mark.parametrize("soundness", MODES)
def test_three_parties(soundness: int) -> None:
    config = three_party_config(soundness)
    table = make_table(config, "three")
    assert table.deal() == 5  # 2N - 1
    hands = [set(p.hand().values()) for p in table.parties]
    assert all(len(h) == 6 for h in hands)
    assert len(set.union(*hands)) == 18
    assert len({p.card_at(18) for p in table.parties}) == 1
    # seat 1 draws position 19: both others open it to seat 1
    table.send(0, table.parties[0].reveal_to(19, 1))
    assert table.parties[1].card_at(19) is None
    table.send(2, table.parties[2].reveal_to(19, 1))
    drawn = table.parties[1].card_at(19)
    assert drawn is not None and table.parties[0].card_at(19) is None
    table.send(1, table.parties[1].play(19))
    assert table.parties[2].card_at(19) == drawn
    table.reveal_seeds()
    report = audit(table.parties[2].transcript())
    assert report.deck[19] == drawn
    assert report.dealt[1] == (6, 7, 8, 9, 10, 11, 19)


def find_deal(want: Callable[[MemoryTable], bool]) -> MemoryTable:
    """The first fixed-seed deal (proofs off) that satisfies ``want``."""
    for i in range(200):
        table = dealt(game_config(0), f"find{i}")
        if want(table):
            return table
    raise AssertionError("no such deal among 200")  # pragma: no cover


def marriage_in(party: DealParty) -> tuple[int, int] | None:
    cards = {card: pos for pos, card in party.hand().items()}
    for card, pos in cards.items():
        if card % 6 == KING and card + 1 in cards:
            return pos, cards[card + 1]
    return None


def test_marriage_shows_the_partner() -> None:
    table = find_deal(lambda t: marriage_in(t.parties[1]) is not None)
    b = table.parties[1]
    pair = marriage_in(b)
    assert pair is not None
    king, queen = pair
    table.send(1, b.play(queen), b.marriage(king, partner=queen))
    a = table.parties[0]
    assert a.card_at(king) == b.card_at(king)
    assert a.state.ledger.holder(king) == 1 and king in b.hand()
    assert [e.kind for e in a.state.ledger.events[-2:]] == ["play", "marriage"]
    assert b.card_at(queen) is not None and b.card_at(queen) % 6 == QUEEN


def exchange_card(party: DealParty) -> int | None:
    trump = party.card_at(12)
    assert trump is not None
    for pos, card in party.hand().items():
        if card == trump // 6 * 6 + 5:  # the nine of trumps
            return pos
    return None


def test_exchange_and_take() -> None:
    table = find_deal(lambda t: exchange_card(t.parties[1]) is not None)
    a, b = table.parties
    nine = exchange_card(b)
    assert nine is not None
    trump = b.card_at(12)
    table.send(1, b.exchange(nine))
    assert b.hand()[12] == trump and nine not in b.hand()
    assert nine in a.state.ledger.opened_to(1)  # still recorded as dealt to b
    assert a.state.ledger.face_up == nine
    table.send(0, a.take(nine))
    assert a.hand()[nine] == b.card_at(nine)
    table.send(1, b.play(12))
    assert a.card_at(12) == trump


def test_positions_are_uniform() -> None:
    counts = Counter(dealt(game_config(0), f"u{i}").parties[0].card_at(12) for i in range(96))
    assert len(counts) >= 18 and max(counts.values()) <= 14, counts


def test_local_misuse_is_ours() -> None:
    table = make_table(game_config(0))
    a, b = table.parties
    with pytest.raises(LocalUsageError, match="re-key"):
        a.reveal_to(0, 1)
    table.deal()
    theirs = min(b.hand())
    with pytest.raises(LocalUsageError, match="not in our hand"):
        a.play(theirs)
    with pytest.raises(LocalUsageError, match="outside"):
        a.reveal_to(99, 1)
    with pytest.raises(LocalUsageError, match="not a card we know"):
        a.position_of(b.hand()[theirs])
    with pytest.raises(LocalUsageError, match="refused"):
        a.send(a.reveal_to(theirs, 1))  # already opened to b: a second key is a conflict
    with pytest.raises(LocalUsageError, match="at least one"):
        a.send()
