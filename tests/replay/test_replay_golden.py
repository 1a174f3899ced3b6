"""Golden replays: real games that verify, with their expected summaries and rule features."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replaykit import REPLAYS, features, load_generator

from p2p66.replay.report import Status
from p2p66.replay.verify import verify_file

GOLDEN = REPLAYS / "golden"
MANIFEST = json.loads((GOLDEN / "MANIFEST.json").read_text())
REQUIRED = {
    "marriage-20",
    "marriage-40",
    "exchange-9",
    "exchange-J",
    "close-succeeded",
    "close-failed",
    "declare-true",
    "declare-false",
    "declare-auto",
    "last-trick",
    "marriage-when-closed",
    "proofs",
    "unfinished",
    "resigned",
    "refused",
    "custom",
    "tie",
}


def test_every_golden_file_is_in_the_manifest() -> None:
    on_disk = {p.name for p in GOLDEN.glob("*.p66")}
    assert on_disk == set(MANIFEST)
    assert {p.name for p in GOLDEN.glob("*.json")} == {
        "MANIFEST.json",
        *(entry["summary"] for entry in MANIFEST.values()),
    }


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_golden_verifies_to_its_expected_summary(name: str) -> None:
    v = verify_file(GOLDEN / name)
    expected = json.loads((GOLDEN / MANIFEST[name]["summary"]).read_text())
    assert v.report.to_json() == expected
    assert v.report.status in (Status.VALID, Status.UNFINISHED)
    assert v.report.exit_code == 0
    assert set(MANIFEST[name]["features"]) <= features(v)


def test_golden_files_cover_every_feature_and_preset() -> None:
    seen: set[str] = set()
    presets = set()
    for name in MANIFEST:
        v = verify_file(GOLDEN / name)
        seen |= features(v)
        rules = v.report.rules_json()
        if rules is not None and v.report.hands:
            presets.add(rules["preset"])
    assert seen >= REQUIRED, sorted(REQUIRED - seen)
    assert presets >= {"sixty-six", "schnapsen", "vu"}


def test_sizes_stay_small() -> None:
    total = sum(p.stat().st_size for p in REPLAYS.rglob("*") if p.is_file())
    assert total < 2_000_000
    proofs = (GOLDEN / "sixty-six-proofs.p66").stat().st_size
    assert proofs < 40_000  # one hand with soundness-80 proofs
    for path in GOLDEN.glob("*.p66"):
        assert path.stat().st_size < 120_000, path.name


def test_the_generator_reproduces_every_file_byte_for_byte() -> None:
    files: dict[Path, bytes] = load_generator().build()
    stale = [str(p.relative_to(REPLAYS)) for p, data in files.items() if p.read_bytes() != data]
    assert not stale, f"run scripts/make_replays.py: {stale}"
    on_disk = {p for p in REPLAYS.rglob("*") if p.is_file()}
    assert on_disk == set(files)
