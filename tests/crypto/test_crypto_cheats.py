"""Every cheat of the issue: caught live with proofs on, at the latest by the audit without.

Seat 0 deals (shuffles first); seat 1 shuffles second and re-keys first.
Each test checks the error class, that it names the cheater, and, where
proofs are off and play cannot tell who cheated, that the audit does.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from cryptokit import (
    FAST,
    MODES,
    cheating_rekeyer,
    cheating_shuffler,
    dealt,
    forged_rekey,
    forged_shuffle,
    game_config,
    make_table,
    seed,
)

from p2p66.crypto import (
    DEFAULT_SOUNDNESS,
    BadSeedReveal,
    CheatingDetected,
    ConfigMismatch,
    DealParty,
    DuplicatedCard,
    FalseExchange,
    FalseMarriage,
    InvalidRekey,
    InvalidShuffleProof,
    KeyReveal,
    LocalUsageError,
    MadeUpCard,
    MalformedMessage,
    NotYourCard,
    OutOfOrderMessage,
    PlantedPoint,
    PositionConflict,
    RekeyStep,
    ReplayedMessage,
    Reveal,
    SeedReveal,
    ShuffleNotFromSeed,
    ShuffleStep,
    UnknownCardOpened,
    WrongCardClaim,
    WrongKey,
    audit,
    decode_payload,
)
from p2p66.crypto.config import HandConfig
from p2p66.crypto.encoding import card_point
from p2p66.crypto.group import ORDER, Point, Scalar, double, hash_to_point, mul, mul_base
from p2p66.crypto.memory import MemoryTable
from p2p66.engine.cards import CARD_CODES, NINE

DEALER_HAND = (3, 4, 5, 9, 10, 11)


def seeds_of(table: MemoryTable) -> dict[int, bytes]:
    return {p.seat: p.secrets.seed for p in table.parties}


def expect_audit(table: MemoryTable, error: type[CheatingDetected], cheater: int) -> None:
    """The audit of the honest party's transcript names the cheater."""
    honest = table.parties[1 - cheater]
    with pytest.raises(error) as err:
        audit(honest.transcript(), seeds_of(table))
    assert err.value.party == cheater


def deal_expecting(table: MemoryTable, error: type[CheatingDetected], party: int | None) -> None:
    with pytest.raises(error) as err:
        table.deal()
    assert err.value.party == party, err.value


def deal_unattributed(table: MemoryTable) -> None:
    """Deal with proofs off: a bad card may surface if dealt, but play cannot say whose it is."""
    try:
        table.deal()
    except (UnknownCardOpened, DuplicatedCard) as exc:
        assert exc.party is None


# --- keys ----------------------------------------------------------------------


class WrongDealKey(DealParty):
    """Seat 1 sends a wrong key for one of the dealer's cards."""

    def _make_deal_keys(self) -> KeyReveal | None:
        honest = super()._make_deal_keys()
        assert honest is not None
        bad = replace(honest.reveals[0], key=Scalar(honest.reveals[0].key * 2 % ORDER))
        return replace(honest, reveals=(bad, *honest.reveals[1:]))


@pytest.mark.parametrize("soundness", MODES)
def test_wrong_key_for_a_private_opening(soundness: int) -> None:
    table = make_table(game_config(soundness), parties={1: WrongDealKey})
    deal_expecting(table, WrongKey, 1)


class KeyLiar(DealParty):
    """Seat 1 commits to and reveals a false key for position 3, but re-keys honestly."""

    def _make_rekey(self) -> RekeyStep:
        honest = super()._make_rekey()
        lie = Scalar(self.secrets.keys[3] * 2 % ORDER)
        self.secrets = replace(
            self.secrets, keys=tuple(lie if j == 3 else k for j, k in enumerate(self.secrets.keys))
        )
        keys = tuple(mul_base(lie) if j == 3 else k for j, k in enumerate(honest.keys))
        return forged_rekey(self, replace(honest, keys=keys), lambda deck: deck)


def test_consistent_false_key_with_proofs_on() -> None:
    table = make_table(game_config(FAST), parties={1: KeyLiar})
    deal_expecting(table, InvalidRekey, 1)


def test_consistent_false_key_with_proofs_off_is_named_by_the_audit() -> None:
    table = make_table(game_config(0), parties={1: KeyLiar})
    deal_expecting(table, UnknownCardOpened, None)
    expect_audit(table, InvalidRekey, 1)


@pytest.mark.parametrize("soundness", MODES)
def test_wrong_key_for_a_public_opening(soundness: int) -> None:
    table = dealt(game_config(soundness), "pub")
    a, b = table.parties
    pos = min(b.hand())
    honest = b.play(pos)
    bad = KeyReveal(0, 1, b.state.next_seq(1), (replace(honest, key=Scalar(honest.key + 1)),))
    with pytest.raises(WrongKey) as err:
        a.receive(bad)
    assert err.value.party == 1 and "position" in err.value.what


# --- decks ---------------------------------------------------------------------


@pytest.mark.parametrize("soundness", MODES)
def test_duplicated_card(soundness: int) -> None:
    table = make_table(game_config(soundness))
    a, b = table.parties
    honest = a.start()[0]
    assert isinstance(honest, ShuffleStep)
    forged = forged_shuffle(a, honest, lambda d: [d[0], d[0], *d[2:]])
    with pytest.raises(DuplicatedCard) as err:
        b.receive(forged)
    assert err.value.party == 0


def test_duplicate_disguised_by_a_second_encoding_is_malformed() -> None:
    table = make_table(game_config(0))
    a = table.parties[0]
    wire = a.start()[0].to_wire()
    deck = wire["deck"]
    twin = deck[:31] + bytes([deck[31] | 0x80])
    with pytest.raises(MalformedMessage, match="canonical"):
        decode_payload({**wire, "deck": deck[:32] + twin + deck[64:]})


@pytest.mark.parametrize("soundness", MODES)
def test_duplicated_card_in_a_rekey(soundness: int) -> None:
    table = make_table(game_config(soundness))
    a, b = table.parties
    shuffle = a.start()
    b_shuffle, b_rekey, _ = b.receive(*shuffle)
    assert isinstance(b_rekey, RekeyStep)
    forged = forged_rekey(b, b_rekey, lambda d: [d[1], *d[1:]], d_in=b.state.decks[2])
    with pytest.raises(DuplicatedCard) as err:
        a.receive(b_shuffle, forged)
    assert err.value.party == 1


def nine_of_clubs(deck: list[Point], lock_owner: DealParty) -> list[Point]:
    """Replace the first card by the locked nine of clubs, a card the 20-card deck lacks."""
    nine = mul(lock_owner.secrets.lock, card_point(lock_owner.config.session_id, NINE))
    return [nine, *deck[1:]]


def substituting(soundness: int) -> MemoryTable:
    config = game_config(soundness, "schnapsen")
    table = make_table(config, "sub")
    dealer = table.parties[0]

    class Substituter(DealParty):
        def _make_shuffle(self) -> ShuffleStep:
            return forged_shuffle(self, super()._make_shuffle(), lambda d: nine_of_clubs(d, self))

    table.parties[0] = Substituter(config, 0, dealer.secrets.seed)
    return table


def test_substituted_card_with_proofs_on() -> None:
    deal_expecting(substituting(FAST), InvalidShuffleProof, 0)


def test_substituted_card_with_proofs_off() -> None:
    table = substituting(0)
    deal_unattributed(table)
    expect_audit(table, MadeUpCard, 0)


def random_point(deck: list[Point]) -> list[Point]:
    return [*deck[:5], hash_to_point(b"\x07" * 64), *deck[6:]]


def plant(deck: list[Point]) -> list[Point]:
    return [deck[0], Point(double(deck[0])), *deck[2:]]


@pytest.mark.parametrize("soundness", [FAST, DEFAULT_SOUNDNESS])
def test_planted_point_with_proofs_on(soundness: int) -> None:
    table = make_table(game_config(soundness), parties={0: cheating_shuffler(plant)})
    deal_expecting(table, InvalidShuffleProof, 0)


def test_planted_point_tracks_a_card_unless_checked() -> None:
    table = make_table(game_config(0), "plant", parties={0: cheating_shuffler(plant)})
    deal_unattributed(table)
    a = table.parties[0]
    after = a.state.decks[2]  # seat 1's shuffle: the first shuffler looks for the pair
    doubled = {double(p): j for j, p in enumerate(after)}
    pairs = [(doubled[p], j) for j, p in enumerate(after) if p in doubled]
    assert len(pairs) == 1  # the marked card is found despite the other's shuffle
    expect_audit(table, PlantedPoint, 0)
    with pytest.raises(PlantedPoint, match=r"twice the point of [AKQJT9][CDHS]"):
        audit(table.parties[1].transcript(), seeds_of(table))


def times_two(deck: list[Point]) -> list[Point]:
    return [Point(double(deck[0])), *deck[1:]]


DECK_CHEATS = {
    "made-up card": (cheating_shuffler(random_point), InvalidShuffleProof, MadeUpCard),
    "re-key by an unknown factor": (cheating_rekeyer(times_two), InvalidRekey, InvalidRekey),
}


@pytest.mark.parametrize("cheater", [0, 1])
@pytest.mark.parametrize("cheat", DECK_CHEATS)
def test_deck_cheats_with_proofs_on(cheat: str, cheater: int) -> None:
    kind, live, _ = DECK_CHEATS[cheat]
    deal_expecting(make_table(game_config(FAST), parties={cheater: kind}), live, cheater)


@pytest.mark.parametrize("cheater", [0, 1])
@pytest.mark.parametrize("cheat", DECK_CHEATS)
def test_deck_cheats_with_proofs_off(cheat: str, cheater: int) -> None:
    kind, _, named = DECK_CHEATS[cheat]
    table = make_table(game_config(0), "deck", parties={cheater: kind})
    deal_unattributed(table)
    expect_audit(table, named, cheater)


def test_shuffle_not_from_seed_is_named_by_the_audit() -> None:
    def swap(deck: list[Point]) -> list[Point]:
        return [deck[1], deck[0], *deck[2:]]

    table = make_table(game_config(0), parties={1: cheating_shuffler(swap)})
    table.deal()  # a valid shuffle: play cannot tell
    expect_audit(table, ShuffleNotFromSeed, 1)


# --- claims ----------------------------------------------------------------------


def claim(party: DealParty, *reveals: Reveal) -> KeyReveal:
    return KeyReveal(party.config.hand, party.seat, party.state.next_seq(party.seat), reveals)


@pytest.mark.parametrize("soundness", MODES)
def test_playing_a_card_never_opened_to_the_player(soundness: int) -> None:
    table = dealt(game_config(soundness), "claim")
    a, b = table.parties
    for pos in (DEALER_HAND[0], 13):  # the dealer's card, a talon card
        bogus = claim(b, Reveal("play", pos, b.secrets.keys[pos], card=0))
        with pytest.raises(NotYourCard) as err:
            a.receive(bogus)
        assert err.value.party == 1
        with pytest.raises(NotYourCard, match=r"never opened|held by player 0"):
            a.state.ledger.check_holds(1, pos)
    a.state.ledger.check_holds(1, min(b.hand()))


def test_playing_a_card_twice_and_naming_another_card() -> None:
    table = dealt(game_config(0), "twice")
    a, b = table.parties
    pos = min(b.hand())
    table.send(1, b.play(pos))
    with pytest.raises(NotYourCard, match="already played"):
        a.receive(claim(b, Reveal("play", pos, b.secrets.keys[pos], card=b.card_at(pos))))
    other = max(b.hand())
    wrong = (b.hand()[other] + 1) % 24
    with pytest.raises(WrongCardClaim, match=CARD_CODES[wrong]):
        a.receive(claim(b, Reveal("play", other, b.secrets.keys[other], card=wrong)))


@pytest.mark.parametrize("soundness", MODES)
def test_false_marriage(soundness: int) -> None:
    table = dealt(game_config(soundness), "marriage")
    a, b = table.parties
    led, shown = sorted(b.hand())[:2]
    cards = b.hand()
    assert not (
        cards[led] // 6 == cards[shown] // 6 and {cards[led] % 6, cards[shown] % 6} == {2, 3}
    )
    bogus = claim(
        b,
        b.play(led),
        Reveal("marriage", shown, b.secrets.keys[shown], card=cards[shown], partner=led),
    )
    with pytest.raises(FalseMarriage) as err:
        a.receive(bogus)
    assert err.value.party == 1
    with pytest.raises(FalseMarriage, match="not the card it just led"):
        a.receive(
            claim(b, Reveal("marriage", shown, b.secrets.keys[shown], card=cards[shown], partner=3))
        )


@pytest.mark.parametrize("soundness", MODES)
def test_false_exchange(soundness: int) -> None:
    table = dealt(game_config(soundness), "exchange")
    a, b = table.parties
    trump = a.card_at(12)
    assert trump is not None
    pos, card = next((p, c) for p, c in b.hand().items() if c != trump // 6 * 6 + NINE)
    with pytest.raises(FalseExchange) as err:
        a.receive(claim(b, Reveal("exchange", pos, b.secrets.keys[pos], card=card)))
    assert err.value.party == 1 and "only 9" in err.value.what


def test_position_conflicts() -> None:
    table = dealt(game_config(0), "conflict")
    a, b = table.parties
    key = b.secrets.keys
    bad_openings = {
        "twice": (Reveal("public", 13, key[13]), Reveal("to", 13, key[13], to=0)),
        "a dealt card to the wrong player": (Reveal("public", 3, key[3]),),
        "to itself": (Reveal("to", 14, key[14], to=1),),
        "to a player out of the table": (Reveal("to", 14, key[14], to=7),),
    }
    for what, reveals in bad_openings.items():
        with pytest.raises(PositionConflict) as err:
            a.receive(claim(b, *reveals))
        assert err.value.party == 1, what
    with pytest.raises(NotYourCard, match="face-up"):
        a.receive(claim(b, Reveal("take", 14, key[14])))
    # once b's own key for 15 is public, a cannot open 15 "privately" to b any more
    table.send(1, b.reveal_public(15))
    with pytest.raises(LocalUsageError, match="whose own key"):
        a.send(a.reveal_to(15, 1))


# --- seeds and message order ---------------------------------------------------


@pytest.mark.parametrize("soundness", MODES)
def test_seed_that_does_not_match_its_commitment(soundness: int) -> None:
    table = dealt(game_config(soundness), "seed")
    a, b = table.parties
    liar = SeedReveal(0, 1, b.state.next_seq(1), seed("other", 1))
    with pytest.raises(BadSeedReveal) as err:
        a.receive(liar)
    assert err.value.party == 1
    with pytest.raises(BadSeedReveal) as err:
        audit(a.transcript(), {0: a.secrets.seed, 1: liar.seed})
    assert err.value.party == 1


@pytest.mark.parametrize("soundness", MODES)
def test_replayed_and_reordered_messages(soundness: int) -> None:
    config = game_config(soundness)
    table = make_table(config, "order")
    a, b = table.parties
    first = a.start()
    flight = b.receive(*first)
    with pytest.raises(ReplayedMessage) as err:
        b.receive(first[0])
    assert err.value.party == 0
    with pytest.raises(OutOfOrderMessage) as err:
        a.receive(flight[1])  # the rekey before the shuffle
    assert err.value.party == 1
    a.receive(*flight)
    # the same seat's first message of the previous hand, replayed into this hand
    old = make_table(replace_hand(config, 1), "order").parties[0].start()[0]
    with pytest.raises(ReplayedMessage, match="hand 1"):
        b.receive(old)


def replace_hand(config: HandConfig, hand: int) -> HandConfig:
    return HandConfig(
        config.session_id,
        hand,
        config.parties,
        config.order,
        config.deck,
        config.deal,
        config.soundness,
        config.face_up,
        config.exchange_rank,
    )


@pytest.mark.parametrize("soundness", MODES)
def test_replay_from_another_hand_with_a_forged_header(soundness: int) -> None:
    config = game_config(soundness)
    earlier = dealt(replace_hand(config, 5), "replay")
    table = make_table(config, "replay")
    a, b = table.parties
    stale = earlier.parties[0].state.payloads[0]
    with pytest.raises(ConfigMismatch) as err:
        b.receive(replace(stale, hand=0))
    assert err.value.party == 0
    # a re-key of the old hand, relabelled: its proof (or, proofs off, the audit) refuses it
    flight = b.receive(*a.start())
    old_rekey = earlier.parties[1].state.payloads[2]
    assert isinstance(old_rekey, RekeyStep)
    forged = replace(old_rekey, hand=0, seq=flight[1].seq)
    shuffle = flight[0]
    if soundness:
        with pytest.raises(InvalidRekey) as err2:
            a.receive(shuffle, forged)
        assert err2.value.party == 1
    else:
        a.receive(shuffle, forged)
        with pytest.raises(InvalidRekey) as err2:
            audit(a.transcript(), seeds_of(table))
        assert err2.value.party == 1


def test_tampered_proofs() -> None:
    table = make_table(game_config(FAST), "tamper")
    a, b = table.parties
    shuffle = a.start()[0]
    flip = replace(
        shuffle, proof=shuffle.proof[:40] + bytes([shuffle.proof[40] ^ 1]) + shuffle.proof[41:]
    )
    with pytest.raises(InvalidShuffleProof):
        b.receive(flip)
    flight = b.receive(shuffle)
    rekey = flight[1]
    assert isinstance(rekey, RekeyStep)
    short = replace(rekey, proof=rekey.proof[:-1])
    with pytest.raises(InvalidRekey, match="bytes"):
        a.receive(flight[0], short)
