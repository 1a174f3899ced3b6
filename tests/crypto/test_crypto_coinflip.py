"""The commit-reveal coin flip that fixes the session id and the first dealer."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p66.crypto import (
    BadCoinReveal,
    CoinCommit,
    CoinFlip,
    CoinMessage,
    CoinReveal,
    LocalUsageError,
    MalformedMessage,
    OutOfOrderMessage,
    ReplayedMessage,
    decode_coin,
)
from p2p66.crypto.coinflip import coin_commitment


def nonce(seat: int, tag: str = "n") -> bytes:
    return hashlib.sha256(f"{tag}{seat}".encode()).digest()


def run_flip(parties: int, context: bytes = b"ctx") -> tuple[list[CoinFlip], int]:
    """Every flip broadcast to every other party; returns the flips and the number of flights."""
    flips = [CoinFlip(parties, s, nonce(s), context) for s in range(parties)]
    flights: list[tuple[int, list[CoinMessage]]] = [(0, flips[0].start())]
    started = {0}
    count = 0
    while flights:
        sender, batch = flights.pop(0)
        count += 1
        for flip in flips:
            if flip.seat == sender:
                continue
            out = [] if flip.seat in started else flip.start()
            started.add(flip.seat)
            for m in batch:
                out += flip.receive(decode_coin(m.to_wire()))
            if out:
                flights.append((flip.seat, out))
    return flips, count


def test_two_parties_agree_in_three_flights() -> None:
    flips, flights = run_flip(2)
    assert flights == 3
    results = {f.result for f in flips}
    assert len(results) == 1
    result = results.pop()
    assert result is not None and result.first_dealer in (0, 1)
    assert len(result.session_id) == 32


def test_three_parties_agree() -> None:
    flips, _ = run_flip(3)
    assert len({f.result for f in flips}) == 1


def test_context_changes_the_session() -> None:
    a, _ = run_flip(2, b"one")
    b, _ = run_flip(2, b"two")
    assert a[0].result != b[0].result


def test_first_dealer_is_fair() -> None:
    counts = Counter()
    for i in range(400):
        flips, _ = run_flip(2, b"ctx%d" % i)
        result = flips[0].result
        assert result is not None
        counts[result.first_dealer] += 1
    assert 150 < counts[0] < 250


def test_no_reveal_before_every_commitment() -> None:
    flip = CoinFlip(2, 0, nonce(0))
    assert [type(m) for m in flip.start()] == [CoinCommit]
    assert flip.result is None
    assert [type(m) for m in flip.receive(CoinCommit(1, coin_commitment(b"", 1, nonce(1))))] == [
        CoinReveal
    ]


def test_a_nonce_that_does_not_match_is_caught() -> None:
    flip = CoinFlip(2, 0, nonce(0))
    flip.start()
    flip.receive(CoinCommit(1, coin_commitment(b"", 1, nonce(1))))
    with pytest.raises(BadCoinReveal) as err:
        flip.receive(CoinReveal(1, nonce(1, "other")))
    assert err.value.party == 1


def test_replays_and_order() -> None:
    flip = CoinFlip(2, 0, nonce(0))
    flip.start()
    with pytest.raises(OutOfOrderMessage):
        flip.receive(CoinReveal(1, nonce(1)))
    commit = CoinCommit(1, coin_commitment(b"", 1, nonce(1)))
    flip.receive(commit)
    with pytest.raises(ReplayedMessage):
        flip.receive(commit)
    flip.receive(CoinReveal(1, nonce(1)))
    with pytest.raises(ReplayedMessage):
        flip.receive(CoinReveal(1, nonce(1)))
    with pytest.raises(MalformedMessage):
        flip.receive(CoinCommit(0, commit.commitment))


def test_local_misuse() -> None:
    with pytest.raises(LocalUsageError):
        CoinFlip(2, 2, nonce(0))
    with pytest.raises(LocalUsageError):
        CoinFlip(2, 0, b"short")
    flip = CoinFlip(2, 0, nonce(0))
    flip.start()
    with pytest.raises(LocalUsageError):
        flip.start()


@given(
    st.dictionaries(
        st.sampled_from(["t", "seat", "commit", "nonce", "x"]),
        st.one_of(
            st.none(),
            st.integers(-3, 10),
            st.binary(max_size=40),
            st.text(max_size=12),
            st.sampled_from(["coin-commit", "coin-reveal"]),
        ),
    )
)
def test_decoder_fuzz(obj: dict[str, object]) -> None:
    try:
        msg = decode_coin(obj)
    except MalformedMessage:
        return
    assert decode_coin(msg.to_wire()) == msg
