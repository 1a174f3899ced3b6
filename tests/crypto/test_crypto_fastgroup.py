"""The optional verifier accelerator (r255.c) gives rbcl's bytes, and is used only when current.

The library is compiled into a temporary folder here (when a C compiler is
present), so the test never depends on a build in the tree.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
import rbcl

from p2p66.crypto import fastgroup
from p2p66.crypto.errors import MalformedMessage
from p2p66.crypto.fastgroup import (
    Accelerator,
    decode_public_points,
    load,
    public_msm,
    public_mul_base_many,
)
from p2p66.crypto.group import (
    BASE,
    IDENTITY,
    ORDER,
    add,
    decode_points,
    is_point,
    mul_any,
    mul_base_any,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import build_r255

P = 2**255 - 19


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if build_r255.compiler() is None:
        pytest.skip("no C compiler (cc, gcc or clang): the accelerator cannot be built here")
    folder = tmp_path_factory.mktemp("r255")
    build_r255.build(folder / "_r255.so", folder / "_r255.sha256")
    return folder


@pytest.fixture(scope="module")
def accel(built: Path) -> Accelerator:
    """The library itself, even under ``P2P66_PURE=1`` (what ``load`` decides is tested below)."""
    return Accelerator(built / "_r255.so")


def _rbcl_sum(scalars: list[int], points: list[bytes]) -> bytes:
    total = IDENTITY
    for s, p in zip(scalars, points, strict=True):
        total = add(total, mul_any(s % ORDER, p))
    return total


def _enc(scalars: list[int]) -> bytes:
    return b"".join(s.to_bytes(32, "little") for s in scalars)


EDGE_SCALARS = [0, 1, 2, 15, 16, 17, ORDER - 1, ORDER - 2, 2**252, 2**128 - 1, (ORDER - 1) // 2]


def test_weighted_sums_match_rbcl(accel: Accelerator) -> None:
    rng = random.Random(17)
    for trial in range(120):
        n = trial % 30
        points = [bytes(rbcl.crypto_core_ristretto255_random()) for _ in range(n)]
        scalars = [
            rng.choice(EDGE_SCALARS) if rng.random() < 0.3 else rng.randrange(ORDER)
            for _ in range(n)
        ]
        assert accel.msm(_enc(scalars), b"".join(points)) == _rbcl_sum(scalars, points), trial


def test_cancelling_sums_and_the_identity(accel: Accelerator) -> None:
    p = bytes(rbcl.crypto_core_ristretto255_random())
    q = bytes(rbcl.crypto_core_ristretto255_random())
    s = 1234567
    assert accel.msm(_enc([s, ORDER - s]), p + p) == IDENTITY
    assert accel.msm(_enc([s, s]), p + bytes(rbcl.crypto_core_ristretto255_sub(IDENTITY, p))) == (
        IDENTITY
    )
    assert accel.msm(_enc([5, 7]), IDENTITY + q) == mul_any(7, q)
    assert accel.msm(_enc([3, 3]), p + p) == mul_any(6, p)  # a repeated point
    assert accel.msm(b"", b"") == IDENTITY


def test_base_multiplications_match_rbcl(accel: Accelerator) -> None:
    rng = random.Random(5)
    scalars = EDGE_SCALARS + [rng.randrange(ORDER) for _ in range(100)] + [2**255 - 1, ORDER + 5]
    out = accel.mul_base(_enc(scalars))
    assert out is not None
    for i, s in enumerate(scalars):
        assert out[32 * i : 32 * i + 32] == mul_base_any(s % ORDER), s
    assert accel.mul_base(_enc([2**255])) is None  # the top bit: refused, rbcl decides


def _encodings() -> list[tuple[str, bytes]]:
    rng = random.Random(9)
    cases = [("identity", IDENTITY), ("base", BASE)]
    for i in range(30):
        p = bytes(rbcl.crypto_core_ristretto255_random())
        cases.append((f"valid {i}", p))
        cases.append((f"valid {i}, top bit set", p[:31] + bytes([p[31] | 0x80])))
        cases.append(
            (f"valid {i}, plus one", ((int.from_bytes(p, "little") + 1) % P).to_bytes(32, "little"))
        )
        cases.append((f"random {i}", rng.randbytes(32)))
    for v in (P, P + 2, 2**255 - 2, P - 1, 1, 2):
        cases.append((f"s = {v}", v.to_bytes(32, "little")))
    return cases


def test_decoding_accepts_exactly_rbcls_points(accel: Accelerator) -> None:
    for what, data in _encodings():
        expected = data == IDENTITY or is_point(data)
        assert accel.is_valid(data) is expected, what


def test_an_invalid_point_is_refused_and_rbcl_decides(
    accel: Accelerator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever rbcl makes of an invalid encoding stays the answer (verifiers never pass one)."""
    bad = (2).to_bytes(32, "little")  # s = 2: no point
    assert not is_point(bad)
    good = bytes(rbcl.crypto_core_ristretto255_random())
    assert accel.msm(_enc([1, 1]), good + bad) is None
    monkeypatch.setattr(fastgroup, "_ACCEL", accel)
    assert public_msm([1, 1], [good, bad]) == _rbcl_sum([1, 1], [good, bad])
    # pieces of the wrong length that join to two valid points are not read as those points
    other = bytes(rbcl.crypto_core_ristretto255_random())
    with pytest.raises(ValueError):
        mul_any(1, good + other[:16])  # rbcl's answer
    with pytest.raises(ValueError):
        public_msm([1, 1], [good + other[:16], other[16:]])


def test_the_pure_switch_and_a_stale_build_fall_back_to_rbcl(
    built: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("P2P66_PURE", raising=False)
    found, why = load(built / "_r255.so", built / "_r255.sha256")
    assert found is not None and why == "compiled r255 accelerator"
    monkeypatch.setenv("P2P66_PURE", "1")
    found, why = load(built / "_r255.so", built / "_r255.sha256")
    assert found is None and "P2P66_PURE" in why
    monkeypatch.delenv("P2P66_PURE")
    stale = tmp_path / "stale.sha256"
    stale.write_text("0" * 64 + "\n")
    found, why = load(built / "_r255.so", stale)
    assert found is None and "stale" in why
    found, why = load(tmp_path / "missing.so", stale)
    assert found is None and "build_r255" in why


def test_the_module_functions_give_rbcls_bytes_on_either_path(
    accel: Accelerator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``public_msm`` and ``public_mul_base_many`` with the accelerator and with rbcl alone."""
    rng = random.Random(3)
    points = [bytes(rbcl.crypto_core_ristretto255_random()) for _ in range(6)] + [BASE]
    scalars = [rng.randrange(-ORDER, 2 * ORDER) for _ in points]  # any ints, reduced
    want_sum = _rbcl_sum(scalars, points)
    want_base = [mul_base_any(s % ORDER) for s in scalars]
    for backend in (accel, None):
        monkeypatch.setattr(fastgroup, "_ACCEL", backend)
        assert public_msm(scalars, points) == want_sum
        assert public_mul_base_many(scalars) == want_base


def test_decks_decode_as_decode_points_says(
    accel: Accelerator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled check only short-cuts acceptance: same points, same refusals and messages."""
    monkeypatch.setattr(fastgroup, "_ACCEL", accel)
    good = [bytes(rbcl.crypto_core_ristretto255_random()) for _ in range(5)]
    assert decode_public_points(b"".join(good), 5, "deck") == decode_points(
        b"".join(good), 5, "deck"
    )
    for what, data in _encodings():
        deck = b"".join(good[:2]) + data
        try:
            want: object = decode_points(deck, None, "deck")
        except MalformedMessage as exc:
            want = str(exc)
        try:
            got: object = decode_public_points(deck, None, "deck")
        except MalformedMessage as exc:
            got = str(exc)
        assert got == want, what
    for bad in (b"".join(good)[:-1], "not bytes"):
        with pytest.raises(MalformedMessage):
            decode_public_points(bad, None, "deck")
    with pytest.raises(MalformedMessage, match="must hold 4 points"):
        decode_public_points(b"".join(good), 4, "deck")


def test_known_answers_of_rfc_9496(accel: Accelerator) -> None:
    """Multiples of the generator from RFC 9496 appendix A.1, independent of rbcl."""
    known = {
        0: "00" * 32,
        1: "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
        5: "e882b131016b52c1d3337080187cf768423efccbb517bb495ab812c4160ff44e",
    }
    for k, hexed in known.items():
        assert accel.mul_base(_enc([k])) == bytes.fromhex(hexed), k
        assert accel.msm(_enc([k]), BASE) == bytes.fromhex(hexed), k
