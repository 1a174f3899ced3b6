"""N-party sessions: three and four peers around an in-memory relay.

Whole matches of every table preset between bots, with proofs off and on;
then one cheating peer per cheat kind, caught at the record that carries it
(proofs off: at the audit) and blamed on its author; and the property that
honest hands always finish with every peer holding the same records.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p66.crypto.config import ARGUMENT, HandConfig
from p2p66.crypto.group import hash_to_point
from p2p66.crypto.handkeys import new_seed
from p2p66.crypto.messages import KeyReveal, Reveal, ShuffleStep
from p2p66.crypto.party import DealParty
from p2p66.engine.moves import MOVE_NOTATION
from p2p66.session import events as ev
from p2p66.session import messages as msg
from p2p66.session.errors import AuditFinding, CheatingDetected, ProtocolError
from p2p66.session.machine import Stage
from p2p66.session.peer import Peer
from p2p66.session.records import make_record
from p2p66.session.tableplay import MemoryRelay, run_table
from tests.session.sessionkit import rng_from, signer
from tests.session.tablekit import (
    PRESETS,
    CheatTap,
    change_reveals,
    choosers,
    drop_from,
    table_peers,
)


def same_records(peers: list[Peer], relay: MemoryRelay) -> bool:
    return all(p.machine.records == relay.records for p in peers)


# ---------------------------------------------------------------------- honest play


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("soundness", [0, ARGUMENT])
def test_a_whole_match_between_bots_ends_with_identical_records(
    preset: str, soundness: int
) -> None:
    peers = table_peers(preset, soundness)
    relay = run_table(peers, choosers(peers))
    assert relay.refused is None
    assert all(p.machine.stage is Stage.OVER for p in peers)
    assert same_records(peers, relay)
    ends = [e for e in relay.events[0] if isinstance(e, ev.TableMatchEnded)]
    assert len(ends) == 1 and max(ends[0].scores) >= 2
    assert {r.author for r in relay.records} == set(range(len(peers)))


def test_the_three_handed_dealer_keys_every_card_but_sees_none() -> None:
    peers = table_peers("three-handed")
    relay = MemoryRelay(peers)
    relay.start()
    hand = peers[0].machine.hand
    assert hand is not None and not hand.dealing
    dealer = hand.table_dealer
    party = peers[dealer].party
    assert party is not None and party.hand() == {}
    ledger = party.state.ledger
    assert {pos for pos, p in enumerate(ledger.positions) if dealer in p.keys} == {
        pos for pos, t in enumerate(hand.config.deal) if t >= -1
    }
    assert set(party.known_cards()) == {hand.config.face_up}


def test_the_moon_bidders_partner_keeps_its_hand_hidden() -> None:
    peers = table_peers("north-american", target=5)

    def moon_or_pass(seat: int) -> Callable[[Any], int]:
        def choose(view: Any) -> int:
            if 57 in view.legal and seat == 1:  # bid:5, the moon
                return 57
            if 52 in view.legal:  # pass
                return 52
            return int(view.legal[0])

        return choose

    relay = MemoryRelay(peers)
    relay.start()
    for _ in range(200):
        mover = next(p for p in peers if p.needs_move)
        view = mover.table_view()
        assert view is not None
        relay.heard(mover.seat, mover.play(moon_or_pass(mover.seat)(view)))
        relay.pump()
        if any(isinstance(e, ev.TableHandEnded) for e in relay.events[0]):
            break
    hand = peers[0].machine.hands[0]
    assert hand.final is not None and hand.final.moon and hand.final.out_seat == 3
    played = {pos for pos, p in enumerate(hand.crypto.ledger.positions) if p.played}
    partner = {pos for pos, t in enumerate(hand.config.deal) if t == 3}
    assert not played & partner  # the partner's cards were never shown before the audit


def test_the_cut_throat_widow_is_opened_to_all_when_taken() -> None:
    """Nobody knows it before the first trick is won; the others' keys follow that trick at
    once, and the winner's own rides on its next lead, which shows it to all at one time."""
    peers = table_peers("cut-throat")
    relay = MemoryRelay(peers)
    relay.start()
    cs = choosers(peers)
    machine = peers[0].machine
    assert machine.hand is not None
    widow = [pos for pos, t in enumerate(machine.hand.config.deal) if t < 0]

    def known(peer: Peer) -> bool:
        assert peer.party is not None
        return all(pos in peer.party.known_cards() for pos in widow)

    def step() -> None:
        mover = next(p for p in peers if p.needs_move)
        view = mover.table_view()
        assert view is not None
        relay.heard(mover.seat, mover.play(cs[mover.seat](view)))
        relay.pump()

    while machine.hand is not None and not machine.hand.state.tricks_log:
        assert not any(known(p) for p in peers)
        step()
    hand = machine.hand
    assert hand is not None and hand.number == 1
    winner = hand.state.widow_taker
    assert winner >= 0 and not any(known(p) for p in peers)
    assert hand.debts(winner).public == tuple(widow)
    step()  # the winner leads, with its key for the widow
    assert all(known(p) for p in peers)
    assert all(hand.crypto.ledger.positions[pos].card is not None for pos in widow)
    view = peers[(winner + 1) % 3].table_view()
    assert view is not None and len(view.widow) == 3


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 10_000))
def test_honest_hands_always_finish_and_every_peer_holds_the_same_records(
    preset: str, seed: int
) -> None:
    peers = table_peers(preset, seed=seed, target=None)

    def first_hand_over(relay: MemoryRelay) -> bool:
        return all(any(isinstance(e, ev.TableHandEnded) for e in seen) for seen in relay.events)

    relay = run_table(peers, choosers(peers, seed, bot="random"), until=first_hand_over)
    assert relay.refused is None
    assert first_hand_over(relay)
    assert same_records(peers, relay)
    hand = peers[0].machine.hands[0]
    assert hand.deck is not None and hand.result is not None


# ---------------------------------------------------------------------- cheats


def caught(relay: MemoryRelay, cheater: int, tap: CheatTap | None = None) -> ProtocolError:
    assert relay.refused is not None, "the cheat went through"
    error = relay.refused.error
    assert error.culprit == cheater, error
    assert relay.refused.receiver != cheater
    if tap is not None:
        assert tap.sent is not None and relay.refused.data == tap.sent.encode()
    return error


def first_deal_keys(seat: int) -> Callable[[msg.Message, KeyReveal], KeyReveal | None]:
    def pick(body: msg.Message, payload: KeyReveal) -> KeyReveal | None:
        return payload if isinstance(body, msg.Deal) and payload.seat == seat else None

    return pick


@pytest.mark.parametrize("preset", PRESETS)
def test_a_wrong_key_is_caught_at_its_record(preset: str) -> None:
    def wrong(body: msg.Message, payload: KeyReveal) -> KeyReveal | None:
        if not isinstance(body, msg.Deal):
            return None
        first, second = payload.reveals[0], payload.reveals[1]
        bad = dataclasses.replace(first, key=second.key)
        return dataclasses.replace(payload, reveals=(bad, *payload.reveals[1:]))

    peers = table_peers(preset)
    tap = CheatTap(1, change_reveals(wrong))
    relay = run_table(peers, choosers(peers), tap=tap)
    error = caught(relay, 1, tap)
    assert isinstance(error, CheatingDetected) and "commitment" in str(error)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_withheld_deal_key_is_caught_at_its_record(preset: str) -> None:
    def withhold(body: msg.Message, payload: KeyReveal) -> KeyReveal | None:
        if not isinstance(body, msg.Deal):
            return None
        return dataclasses.replace(payload, reveals=payload.reveals[1:])

    peers = table_peers(preset)
    tap = CheatTap(2, change_reveals(withhold))
    error = caught(run_table(peers, choosers(peers), tap=tap), 2, tap)
    assert "withheld its deal key" in str(error)


@pytest.mark.parametrize("preset", PRESETS)
def test_an_unowed_key_is_caught_at_its_record(preset: str) -> None:
    """A key opening to everybody a card the deal gives to a player."""

    def extra(body: msg.Message, payload: KeyReveal) -> KeyReveal | None:
        if not isinstance(body, msg.Deal):
            return None
        to = next(r for r in payload.reveals if r.kind == "to")
        public = Reveal("public", to.pos, to.key)
        return dataclasses.replace(payload, reveals=(*payload.reveals, public))

    peers = table_peers(preset)
    tap = CheatTap(1, change_reveals(extra))
    error = caught(run_table(peers, choosers(peers), tap=tap), 1, tap)
    assert "do not call for" in str(error)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_false_card_claim_is_caught_at_its_record(preset: str) -> None:
    """A play whose key opens another card than the one it names."""

    def lie(body: msg.Message) -> msg.Message | None:
        if not isinstance(body, msg.Move) or not body.move.startswith("play:"):
            return None
        payload = KeyReveal.from_wire(body.data["payload"])
        played = next(r for r in payload.reveals if r.kind == "play")
        other = next(c for c in range(24) if c != played.card)
        fake = dataclasses.replace(played, card=other)
        reveals = tuple(fake if r is played else r for r in payload.reveals)
        data = {"payload": dataclasses.replace(payload, reveals=reveals).to_wire()}
        return dataclasses.replace(body, move=MOVE_NOTATION[other], data=data)

    peers = table_peers(preset)
    tap = CheatTap(None, lie)
    relay = run_table(peers, choosers(peers), tap=tap)
    assert tap.cheater is not None
    error = caught(relay, tap.cheater, tap)
    assert isinstance(error, CheatingDetected)


@pytest.mark.parametrize("preset", PRESETS)
def test_an_illegal_move_is_caught_at_its_record(preset: str) -> None:
    """A pass in the play of a bidding game, a declaration before any trick (three-handed)."""

    def illegal(body: msg.Message) -> msg.Message | None:
        if not isinstance(body, msg.Move) or not body.move.startswith("play:"):
            return None
        move = "declare" if preset == "three-handed" else "pass"
        return dataclasses.replace(body, move=move, data={})

    peers = table_peers(preset)
    tap = CheatTap(None, illegal)
    relay = run_table(peers, choosers(peers), tap=tap)
    assert tap.cheater is not None
    error = caught(relay, tap.cheater, tap)
    assert isinstance(error, CheatingDetected) and "illegal move" in str(error)


def test_a_bid_too_low_is_refused_with_its_reason() -> None:
    def low(body: msg.Message) -> msg.Message | None:
        return dataclasses.replace(body, move="bid:1") if isinstance(body, msg.Move) else None

    peers = table_peers("north-american")
    cs = choosers(peers)
    relay = MemoryRelay(peers)
    relay.start()
    first = next(p for p in peers if p.needs_move)
    relay.heard(first.seat, first.play("bid:2"))
    relay.pump()
    second = next(p for p in peers if p.needs_move)
    relay.tap = CheatTap(second.seat, low)
    view = second.table_view()
    assert view is not None
    relay.heard(second.seat, second.play(cs[second.seat](view)))
    relay.pump()
    error = caught(relay, second.seat)
    assert "bid too low" in str(error)


@pytest.mark.parametrize("preset", ["north-american", "cut-throat"])
def test_a_move_out_of_turn_is_caught(preset: str) -> None:
    peers = table_peers(preset)
    relay = MemoryRelay(peers)
    relay.start()
    mover = next(p for p in peers if p.needs_move)
    cheater = (mover.seat + 1) % len(peers)
    chain = peers[0].machine.chain
    body = msg.encode(msg.Move(peers[0].machine.hand.number, "pass", {}))  # type: ignore[union-attr]
    record = make_record(chain.next_seq, chain.head, cheater, body, signer("x", cheater + 1).sign)
    relay.deliver(cheater, record.encode())
    error = caught(relay, cheater)
    assert "out of turn" in str(error)


@pytest.mark.parametrize("kind", ["duplicate", "late", "early-hand"])
def test_duplicated_late_and_misnumbered_records_are_blamed_on_their_author(kind: str) -> None:
    peers = table_peers("north-american")
    relay = MemoryRelay(peers)
    relay.start()
    mine = [r for r in relay.records if r.author == 2]
    if kind == "duplicate":
        data = mine[-1].encode()  # sent again
    elif kind == "late":
        data = mine[0].encode()  # an old record of its own, long after
    else:
        mover = next(p for p in peers if p.needs_move)
        chain = peers[0].machine.chain
        body = msg.encode(msg.Move(7, "pass", {}))  # a move of a hand not yet begun
        data = make_record(
            chain.next_seq, chain.head, mover.seat, body, signer("x", mover.seat + 1).sign
        ).encode()
        relay.deliver(mover.seat, data)
        assert "replayed or reordered" in str(caught(relay, mover.seat))
        return
    relay.deliver(2, data)
    error = caught(relay, 2)
    assert "out of order" in str(error)


def test_a_false_claim_of_abandonment_is_caught() -> None:
    peers = table_peers("cut-throat")
    relay = MemoryRelay(peers)
    relay.start()
    mover = next(p for p in peers if p.needs_move)
    liar = (mover.seat + 1) % 3
    victim = (mover.seat + 2) % 3  # not the one who owes the next record
    chain = peers[0].machine.chain
    body = msg.encode(msg.Abandoned(victim, chain.next_seq))
    record = make_record(chain.next_seq, chain.head, liar, body, signer("x", liar + 1).sign)
    relay.deliver(liar, record.encode())
    error = caught(relay, liar)
    assert "falsely claimed" in str(error)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_withheld_key_ends_in_abandonment_by_the_debtor(preset: str) -> None:
    """The debtor goes silent when it owes keys: a waiting peer claims, and all agree."""
    peers = table_peers(preset)
    silent = 1
    tap = drop_from(silent, lambda body: isinstance(body, msg.Deal | msg.Keys))
    relay = run_table(peers, choosers(peers), tap=tap)
    assert relay.refused is None and not relay.over
    waiting = [p for p in peers if p.seat != silent]
    expect = waiting[0].machine.expected()
    assert expect is not None and expect.author == silent
    relay.peers = waiting  # the silent peer is gone: nothing reaches it any more
    relay.heard(waiting[0].seat, waiting[0].claim_abandoned())
    assert relay.pump()
    for peer in waiting:
        assert peer.machine.stage is Stage.ABANDONED and peer.machine.abandoned == silent


def test_a_failed_shuffle_proof_is_caught_at_its_record() -> None:
    def plant(body: msg.Message) -> msg.Message | None:
        if not isinstance(body, msg.Deal):
            return None
        from p2p66.crypto.messages import decode_payload

        payloads = [decode_payload(p) for p in body.data["payloads"]]
        if not isinstance(payloads[0], ShuffleStep):
            return None
        step = payloads[0]
        deck = (hash_to_point(b"\x07" * 64), *step.deck[1:])
        payloads[0] = dataclasses.replace(step, deck=deck)
        return dataclasses.replace(body, data={"payloads": [p.to_wire() for p in payloads]})

    peers = table_peers("north-american", ARGUMENT)
    tap = CheatTap(2, plant)
    error = caught(run_table(peers, choosers(peers), tap=tap), 2, tap)
    assert "proof fails" in str(error)


def planting_peer(position: Callable[[HandConfig, int], int]) -> type[Peer]:
    """A peer whose shuffle, when it shuffles last, plants a made-up card (proofs off)."""

    class Party(DealParty):
        def _make_shuffle(self) -> ShuffleStep:
            honest = super()._make_shuffle()
            if self.config.order[-1] != self.seat:
                return honest
            j = position(self.config, self.seat)
            deck = list(honest.deck)
            deck[j] = hash_to_point(b"\x07" * 64)
            return dataclasses.replace(honest, deck=tuple(deck))

    class Cheater(Peer):
        def begin_hand(self, config: HandConfig) -> None:
            self.party = Party(config, self.seat, new_seed(self.rng))
            self._replies = []

    return Cheater


@pytest.mark.parametrize("preset", PRESETS)
def test_a_planted_card_with_proofs_off_is_found_by_the_audit_and_blamed(preset: str) -> None:
    """The card opens to an honest player as no card: it stops the hand, every seed comes
    out, and the audit names the planter."""
    dry = table_peers(preset)
    MemoryRelay(dry).start()
    first = dry[0].machine.first_dealer
    assert first is not None
    n = len(dry)
    cheater = (first - 1) % n  # the last to shuffle the first hand
    victim_seat = (first + 1) % n  # so the last seed of the audit is an honest one
    peers = table_peers(preset)
    cls = planting_peer(lambda config, seat: config.deal.index(victim_seat))
    old = peers[cheater]
    peers[cheater] = cls(
        cheater,
        old.signer,
        options=old.proposal[0],
        soundness=0,
        rng=rng_from(10 + cheater),
        seats=n,
    )
    relay = run_table(peers, choosers(peers))
    assert relay.refused is not None
    error = relay.refused.error
    assert isinstance(error, AuditFinding) and error.culprit == cheater, error
    hand = peers[victim_seat].machine.hand
    assert hand is not None and hand.number == 1 and hand.aborted_by == victim_seat


# ---------------------------------------------------------------------- malformed tables


def test_a_record_of_a_seat_not_at_the_table_is_blamed_on_its_link() -> None:
    peers = table_peers("cut-throat")
    relay = MemoryRelay(peers)
    relay.start()
    chain = peers[1].machine.chain
    body = msg.encode(msg.Resign("bye"))
    record = make_record(chain.next_seq, chain.head, 3, body, signer("x", 4).sign)
    with pytest.raises(ProtocolError, match="seat 3, which is not at this table of 3") as info:
        peers[1].receive_data(record.encode(), via=2)
    assert info.value.culprit == 2
    with pytest.raises(ProtocolError, match="malformed record") as info:
        peers[1].receive_data(b"\x93garbage", via=0)
    assert info.value.culprit == 0


def test_a_record_in_our_own_name_is_blamed_on_the_relaying_host() -> None:
    peers = table_peers("north-american")
    relay = MemoryRelay(peers)
    relay.start()
    mine = next(r for r in relay.records if r.author == 2)
    with pytest.raises(ProtocolError, match="in our name") as info:
        peers[2].receive_data(mine.encode())  # no link given: the host relays
    assert info.value.culprit == 0


def test_a_peer_refuses_a_table_it_cannot_seat() -> None:
    from p2p66.engine.table import table_preset

    four = table_preset("north-american")
    with pytest.raises(ProtocolError, match="a table has 2, 3 or 4 seats"):
        Peer(0, signer("h", 1), options=four, seats=5)
    with pytest.raises(ProtocolError, match="not one for 3 players"):
        Peer(0, signer("h", 1), options=four, seats=3)
    with pytest.raises(ProtocolError, match="seat must be 0 \\(host\\) to 3"):
        Peer(4, signer("h", 1), seats=4)


def test_a_table_machine_refuses_a_proposal_of_the_wrong_size() -> None:
    from p2p66.engine.table import table_preset
    from p2p66.session.machine import Machine

    machine = Machine(seats=3)
    keys = [signer(f"p{s}", s + 1) for s in range(3)]
    chain = machine.chain
    for s, key in enumerate(keys):
        body = msg.encode(msg.Hello(key.name, key.public_key, "p2p66/test"))
        machine.receive(make_record(chain.next_seq, chain.head, s, body, key.sign))
    wrong = msg.Propose(table_preset("north-american").to_dict(), 0, 600)
    record = make_record(chain.next_seq, chain.head, 0, msg.encode(wrong), keys[0].sign)
    with pytest.raises(ProtocolError, match="a game for 4 players at a table of 3") as info:
        machine.receive(record)
    assert info.value.culprit == 0
