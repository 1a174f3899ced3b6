"""Two sessions over an in-memory pair play whole matches and agree on everything."""

from __future__ import annotations

import pytest
from sessionkit import make_pair, random_chooser, shuttle_until

from p2p66.engine import preset
from p2p66.session import events as ev
from p2p66.session.machine import Stage
from p2p66.session.pair import run_pair


@pytest.mark.parametrize("name", ["sixty-six", "schnapsen", "vu"])
@pytest.mark.parametrize("seed", [1, 2])
def test_whole_match_identical_states_and_records(name: str, seed: int) -> None:
    peers = make_pair(preset(name), soundness=0, seed=seed)
    result = run_pair(peers, (random_chooser(seed), random_chooser(seed + 7)))
    a, b = peers
    assert a.machine.stage == b.machine.stage == Stage.OVER
    assert result.records[0] == result.records[1]
    assert a.machine.match is not None and b.machine.match is not None
    assert a.machine.match.game_points == b.machine.match.game_points
    assert max(a.machine.match.game_points) >= 7
    assert [h.result for h in a.machine.hands] == [h.result for h in b.machine.hands]
    assert [h.deck for h in a.machine.hands] == [h.deck for h in b.machine.hands]
    ended = [e for e in result.events[0] if isinstance(e, ev.MatchEnded)]
    assert len(ended) == 1 and ended[0].game_points == a.machine.match.game_points


def test_one_hand_with_default_proofs() -> None:
    peers = make_pair(preset("sixty-six").with_options(match_target=1), soundness=80, seed=3)
    result = run_pair(peers, (random_chooser(1), random_chooser(2)))
    assert peers[0].machine.stage == Stage.OVER
    assert result.records[0] == result.records[1]
    hand = peers[0].machine.hands[0]
    assert hand.deck is not None
    assert peers[0].party is not None and peers[0].party.state.proofs_checked > 0


def test_joiner_refuses_rules() -> None:
    host, joiner = make_pair(preset("schnapsen"))
    joiner.rules_policy = lambda options, soundness: "I only play sixty-six"
    result = run_pair((host, joiner), (random_chooser(1), random_chooser(2)))
    assert host.machine.stage == joiner.machine.stage == Stage.REFUSED
    assert host.machine.refusal == "I only play sixty-six"
    assert any(isinstance(e, ev.RulesRefused) for e in result.events[0])


def test_views_show_own_cards_only() -> None:
    peers = make_pair(preset("sixty-six"))
    for p in peers:
        p.start()
    shuttle_until(peers, lambda: peers[0].needs_move or peers[1].needs_move)
    mover = peers[0] if peers[0].needs_move else peers[1]
    other = peers[1 - mover.seat]
    view = mover.view()
    assert view is not None and view.legal and len(view.hand) == 6
    hand = mover.machine.hand
    assert hand is not None and mover.party is not None
    assert {c.id for c in view.hand} == set(mover.party.hand().values())
    assert other.party is not None
    assert not set(other.party.hand().values()) & {c.id for c in view.hand}


@pytest.mark.parametrize("name", ["sixty-six", "schnapsen"])
def test_a_view_never_shows_a_card_we_do_not_know(name: str) -> None:
    """While a drawn card waits for the other player's key there is no view at all."""
    peers = make_pair(preset(name), seed=9)
    choosers = (random_chooser(1), random_chooser(2))
    incomplete = 0
    for p in peers:
        p.start()
    for _ in range(5000):
        moved = False
        for seat in (0, 1):
            for record in peers[seat].data_to_send():
                peers[1 - seat].receive_data(record.encode())
                moved = True
            peer = peers[seat]
            hand = peer.machine.hand
            if hand is not None and not hand.dealing and peer.party is not None:
                view = peer.view()
                known = set(peer.party.known_cards().values())
                if view is None:
                    incomplete += 1
                else:
                    assert {c.id for c in view.hand} <= known
        for seat in (0, 1):
            if peers[seat].needs_move:
                view = peers[seat].view()
                assert view is not None  # a player asked to move always knows its hand
                peers[seat].play(choosers[seat](view))
                moved = True
        if not moved:
            break
    assert peers[0].machine.over
    assert incomplete > 0  # the waiting window really happens, and shows no view
