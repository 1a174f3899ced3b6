"""The proof kind travels in the host's ``propose`` as its soundness value, and is checked."""

from __future__ import annotations

import pytest
from sessionkit import forge, make_pair, random_chooser, shuttle_until

from p2p66.crypto.config import ARGUMENT, ProofKind
from p2p66.engine import preset
from p2p66.session import messages as msg
from p2p66.session.errors import LocalProtocolError, RemoteProtocolError
from p2p66.session.machine import Machine, Stage
from p2p66.session.pair import run_pair
from p2p66.session.peer import Peer


def test_a_peer_proposes_the_shuffle_argument_by_default() -> None:
    host = Peer(0, make_pair(preset("vu"))[0].signer, options=preset("vu"))
    assert host.proposal[1] == ARGUMENT


def test_one_hand_with_the_argument_both_sides_agree() -> None:
    peers = make_pair(preset("sixty-six").with_options(match_target=1), soundness=ARGUMENT)
    result = run_pair(peers, (random_chooser(1), random_chooser(2)))
    a, b = peers
    assert a.machine.stage == b.machine.stage == Stage.OVER
    assert result.records[0] == result.records[1]
    assert a.machine.soundness == b.machine.soundness == ARGUMENT
    assert a.machine.hands[0].config.proof is ProofKind.ARGUMENT
    assert a.party is not None and a.party.state.proofs_checked == 2  # the other's two steps


@pytest.mark.parametrize("value", [129, 255, 257, 1000])
def test_an_unknown_soundness_is_the_hosts_protocol_error(value: int) -> None:
    options = preset("sixty-six")
    host, joiner = make_pair(options, soundness=value)
    host.start()
    joiner.start()
    with pytest.raises(LocalProtocolError, match="shuffle argument"):
        shuttle_until((host, joiner), lambda: False)  # the host's own judge refuses to send it
    real, other = make_pair(options, soundness=ARGUMENT)
    real.start()
    other.start()
    shuttle_until((real, other), lambda: len(real.machine.records) >= 2)
    judge = Machine()
    for record in real.machine.records[:2]:  # both hellos
        judge.receive(record)
    forged = forge(judge, 0, msg.Propose(options.to_dict(), value, 600), sign_byte=1)
    with pytest.raises(RemoteProtocolError, match="shuffle argument") as info:
        judge.receive(forged)
    assert info.value.culprit == 0
