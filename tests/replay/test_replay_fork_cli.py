"""``verify --fork``, the ``.fork`` beside a replay, and ``replay fork`` through the CLI."""

from __future__ import annotations

import json
import runpy
import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from p2p66.cli.replay_cmd import register
from p2p66.net.identity import fingerprint
from p2p66.replay.fork import MAX_PROOF_BYTES, Evidence, ForkProof
from p2p66.session.headacks import make_head_ack

ROOT = Path(__file__).resolve().parents[2]
FORK_VECTORS = json.loads((ROOT / "protocol" / "vectors" / "fork_proof.json").read_text())
RECEIPTS = json.loads((ROOT / "protocol" / "vectors" / "receipts.json").read_text())
GOLDEN = ROOT / "replays" / "table" / "north-american-match.p66"
TABLE_KEYS = runpy.run_path(str(ROOT / "scripts" / "make_table_replays.py"))["KEYS"]
GOOD = bytes.fromhex(FORK_VECTORS["proofs"][0]["hex"])
HOST_FP = fingerprint(bytes.fromhex(FORK_VECTORS["host_public_key_hex"]))


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer(rich_markup_mode=None)

    @app.callback()
    def main() -> None:
        """p2p66 (test app)."""

    register(app)
    return app


def run(app: typer.Typer, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(autouse=True)
def no_pins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / "config"))


def test_a_good_proof_says_who_forked_and_where(app: typer.Typer, tmp_path: Path) -> None:
    path = tmp_path / "x.fork"
    path.write_bytes(GOOD)
    code, out, _ = run(app, "verify", "--fork", str(path), "--no-known-peers")
    assert code == 0
    assert (
        f"fork proven: host (seat 0, key {HOST_FP}) showed two different records at "
        "position 1" in out
    )
    code, out, _ = run(app, "verify", "--fork", str(path), "--json", "--no-known-peers")
    report = json.loads(out)["fork"]
    assert (code, report["status"], report["seat"], report["position"]) == (0, "proven", 0, 1)


@pytest.mark.parametrize(
    "vector", [v for v in FORK_VECTORS["proofs"] if "error" in v], ids=lambda v: v["name"]
)
def test_a_proof_that_proves_nothing_says_why(
    app: typer.Typer, tmp_path: Path, vector: dict[str, str]
) -> None:
    path = tmp_path / "bad.fork"
    path.write_bytes(bytes.fromhex(vector["hex"]))
    code, out, _ = run(app, "verify", "--fork", str(path), "--no-known-peers")
    assert vector["error"] in out
    assert code == (2 if "canonical" in vector["error"] else 1)


def test_a_forged_signature_proves_nothing(app: typer.Typer, tmp_path: Path) -> None:
    forged = bytearray.fromhex(FORK_VECTORS["proofs"][1]["hex"])
    forged[-1] ^= 0x40  # a bit of the host's receipt inside the joiner's acknowledgement
    path = tmp_path / "forged.fork"
    path.write_bytes(bytes(forged))
    code, out, _ = run(app, "verify", "--fork", str(path), "--no-known-peers")
    assert code == 1
    assert "proves nothing" in out and "is not signed by seat 0" in out


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (GOOD[: len(GOOD) // 2], "not a fork proof"),
        (b"garbage, not msgpack at all \xc1", "not a fork proof"),
        (b"", "not a fork proof"),
        (None, "at most"),
        ("missing", "cannot read"),
    ],
    ids=["truncated", "garbage", "empty", "huge", "missing"],
)
def test_an_unreadable_proof_exits_2(
    app: typer.Typer, tmp_path: Path, content: bytes | str | None, says: str
) -> None:
    path = tmp_path / "p.fork"
    if content is None:
        with path.open("wb") as f:
            f.truncate(MAX_PROOF_BYTES + 1)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    code, out, _ = run(app, "verify", "--fork", str(path), "--no-known-peers")
    assert code == 2
    assert says in out


def test_verify_needs_a_replay_or_a_proof(app: typer.Typer) -> None:
    code, _, err = run(app, "verify")
    assert code == 2 and "--fork FILE" in err


def _golden_copy(tmp_path: Path) -> Path:
    replay = tmp_path / "game.p66"
    shutil.copyfile(GOLDEN, replay)
    return replay


def _host_fork(table: bytes = b"t" * 32) -> bytes:
    """A fork by the golden table's host (seat 0, 'north') at position 5."""
    key = TABLE_KEYS[0]
    sign = key.sign
    a = make_head_ack(table, 0, 5, b"a" * 32, sign)
    b = make_head_ack(table, 0, 5, b"b" * 32, sign)
    public = key.public_key().public_bytes_raw()
    return ForkProof(table, 0, public, Evidence(a), Evidence(b)).encode()


def test_a_proof_beside_a_replay_convicts_its_host(app: typer.Typer, tmp_path: Path) -> None:
    replay = _golden_copy(tmp_path)
    alone = run(app, "verify", str(replay), "--no-known-peers")[0]
    (tmp_path / "game.p66.fork").write_bytes(_host_fork())
    code, out, _ = run(app, "verify", str(replay), "--no-known-peers")
    assert (alone, code) == (0, 1)
    assert "game.p66.fork beside it: fork proven: host north (seat 0, key" in out
    assert "position 5" in out
    report = json.loads(run(app, "verify", str(replay), "--json", "--no-known-peers")[1])
    assert report["reports"][0]["fork"]["status"] == "proven"


def test_a_proof_from_another_match_beside_a_replay_proves_nothing_about_it(
    app: typer.Typer, tmp_path: Path
) -> None:
    replay = _golden_copy(tmp_path)
    (tmp_path / "game.p66.fork").write_bytes(GOOD)  # another host altogether
    code, out, _ = run(app, "verify", str(replay), "--no-known-peers")
    assert code == 0  # the replay stands; the bogus accusation is said, and fails
    assert "proves nothing about this replay" in out


def test_a_proof_for_another_table_than_the_receipts_beside_it_proves_nothing(
    app: typer.Typer, tmp_path: Path
) -> None:
    replay = _golden_copy(tmp_path)
    (tmp_path / "game.p66.fork").write_bytes(_host_fork(table=b"t" * 32))
    receipts = bytes.fromhex(RECEIPTS["files"][0]["hex"])  # its header names another table
    (tmp_path / "game.p66.receipts").write_bytes(receipts)
    code, out, _ = run(app, "verify", str(replay), "--no-known-peers")
    assert code == 0
    assert "another match (its table id differs)" in out


def _receipts(tmp_path: Path, name: str, vector: str) -> Path:
    hexed = next(f["hex"] for f in RECEIPTS["files"] if f["name"] == vector)
    path = tmp_path / name
    path.write_bytes(bytes.fromhex(hexed))
    return path


def test_two_receipts_files_that_disagree_make_a_proof(app: typer.Typer, tmp_path: Path) -> None:
    a = _receipts(tmp_path, "p1.p66.receipts", "seat 1")
    b = _receipts(tmp_path, "p2.p66.receipts", "seat 2")
    code, out, _ = run(app, "replay", "fork", str(a), str(b))
    assert code == 4
    assert "fork proven: host (seat 0" in out and "position 2" in out
    proof = tmp_path / "p1.p66.fork"
    assert proof.read_bytes().hex() == RECEIPTS["fork_of_seat_1_and_seat_2"]["hex"]
    assert run(app, "verify", "--fork", str(proof), "--no-known-peers")[0] == 0
    code, _, err = run(app, "replay", "fork", str(a), str(b))
    assert code == 2 and "exists" in err  # a proof is never overwritten
    code, _, _ = run(app, "replay", "fork", str(a), str(b), "--out", str(tmp_path / "o.fork"))
    assert code == 4 and (tmp_path / "o.fork").read_bytes() == proof.read_bytes()


def test_two_files_that_agree_say_so(app: typer.Typer, tmp_path: Path) -> None:
    a = _receipts(tmp_path, "a.receipts", "seat 1")
    torn = _receipts(tmp_path, "b.receipts", "torn: a crash cut the last entry")
    code, out, err = run(app, "replay", "fork", str(a), str(torn))
    assert code == 0
    assert "no fork: the two agree up to position 1" in out
    assert "cut short" in err
    assert not list(tmp_path.glob("*.fork"))


@pytest.mark.parametrize(
    ("vector", "code", "says"),
    [
        ("invalid: not a receipts file", 2, "not a receipts file"),
        ("invalid: entries out of order", 2, "chain order"),
        ("forged: a flipped signature bit in seat 2's last entry", 1, "damaged or forged"),
    ],
)
def test_files_that_cannot_be_compared_say_whose_fault(
    app: typer.Typer, tmp_path: Path, vector: str, code: int, says: str
) -> None:
    a = _receipts(tmp_path, "a.receipts", "seat 1")
    b = _receipts(tmp_path, "b.receipts", vector)
    got, _, err = run(app, "replay", "fork", str(a), str(b))
    assert got == code
    assert says in err and str(b) in err
