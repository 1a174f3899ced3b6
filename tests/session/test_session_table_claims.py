"""At a table only the host can claim that a seat abandoned the match: a joiner's claim is false."""

from __future__ import annotations

import pytest

from p2p66.session import messages as msg
from p2p66.session.records import make_record
from p2p66.session.tableplay import run_table
from tests.session.sessionkit import signer
from tests.session.tablekit import choosers, drop_from, table_peers


@pytest.mark.parametrize("preset", ["three-handed", "north-american"])
def test_a_joiner_claiming_that_the_silent_debtor_abandoned_is_blamed_for_a_false_claim(
    preset: str,
) -> None:
    peers = table_peers(preset)
    silent = 2
    tap = drop_from(silent, lambda body: isinstance(body, msg.Deal | msg.Keys))
    run_table(peers, choosers(peers), tap=tap)
    expect = peers[0].machine.expected()
    assert expect is not None and expect.author == silent
    liar = 1  # a joiner: it cannot see seat 2's link, only the host can
    chain = peers[0].machine.chain
    body = msg.encode(msg.Abandoned(silent, chain.next_seq))
    record = make_record(chain.next_seq, chain.head, liar, body, signer("x", liar + 1).sign)
    for peer in peers:
        if peer.seat not in (liar, silent):
            with pytest.raises(Exception, match="only the host") as caught:
                peer.receive_data(record.encode(), via=0 if peer.seat else liar)
            assert getattr(caught.value, "culprit", None) == liar
