"""Identities on disk and the known-peers pins (trust on first use)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import platformdirs
import pytest
from netkit import ALICE_SEED, MALLORY_SEED

from p2p66.net.errors import BadSignature
from p2p66.net.identity import (
    IDENTITY_FILE,
    KNOWN_PEERS_FILE,
    Identity,
    IdentityError,
    KnownPeers,
    PeerIdentity,
    check_name,
    fingerprint,
    home_dir,
    load_or_create_identity,
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_home_dir_prefers_argument_then_environment_then_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("P2P66_HOME", raising=False)
    assert home_dir() == Path(platformdirs.user_config_dir("p2p66"))
    monkeypatch.setenv("P2P66_HOME", str(tmp_path / "env"))
    assert home_dir() == tmp_path / "env"
    assert home_dir(tmp_path / "arg") == tmp_path / "arg"


def test_identity_is_created_once_with_owner_only_permissions(home: Path) -> None:
    first = load_or_create_identity("alice")
    path = home / IDENTITY_FILE
    assert _mode(path) == 0o600
    assert _mode(home) == 0o700
    again = load_or_create_identity()
    assert again.public_key == first.public_key
    assert again.name == "alice"


def test_renaming_keeps_the_key(home: Path) -> None:
    first = load_or_create_identity("alice")
    renamed = load_or_create_identity("alice2")
    assert renamed.public_key == first.public_key
    assert load_or_create_identity().name == "alice2"


def test_explicit_directory_wins_over_environment(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    load_or_create_identity("carol", other)
    assert (other / IDENTITY_FILE).exists()
    assert not (home / IDENTITY_FILE).exists()


def test_identity_readable_by_others_is_refused(home: Path) -> None:
    load_or_create_identity("alice")
    path = home / IDENTITY_FILE
    os.chmod(path, 0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_or_create_identity()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ("[]", "JSON object"),
        ('{"format": "other"}', "not a p2p66 identity"),
        ('{"format": "p2p66-identity/1", "name": "a", "ed25519_private": "zz"}', "corrupt"),
    ],
)
def test_corrupt_identity_file_is_reported(home: Path, content: str, message: str) -> None:
    home.mkdir(parents=True)
    path = home / IDENTITY_FILE
    path.write_text(content)
    os.chmod(path, 0o600)
    with pytest.raises(IdentityError, match=message):
        load_or_create_identity()


def test_mismatched_public_key_is_detected(home: Path) -> None:
    load_or_create_identity("alice")
    path = home / IDENTITY_FILE
    data = json.loads(path.read_text())
    data["ed25519_public"] = "00" * 32
    path.write_text(json.dumps(data))
    with pytest.raises(IdentityError, match="does not match"):
        load_or_create_identity()


@pytest.mark.parametrize("name", ["", " alice", "a\nb", "x" * 33, "tab\there"])
def test_bad_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="player name"):
        check_name(name)


def test_fingerprint_is_five_hex_groups_and_signatures_verify() -> None:
    alice = Identity.from_seed("alice", ALICE_SEED)
    fp = fingerprint(alice.public_key)
    assert len(fp.split("-")) == 5 and all(len(g) == 4 for g in fp.split("-"))
    assert alice.fingerprint == fp == alice.public.fingerprint
    signature = alice.sign(b"message")
    alice.public.verify(signature, b"message")
    with pytest.raises(BadSignature, match="does not verify"):
        alice.public.verify(signature, b"other message")


def test_known_peers_pin_on_first_contact_and_survive_reload(home: Path) -> None:
    alice = Identity.from_seed("alice", ALICE_SEED).public
    peers = KnownPeers.load()
    assert peers.check(alice) is False
    peers.pin(alice)
    assert _mode(home / KNOWN_PEERS_FILE) == 0o600
    reloaded = KnownPeers.load()
    assert reloaded.check(alice) is True
    assert reloaded.name_for_key(alice.public_key) == "alice"
    assert "alice" in reloaded and reloaded.names() == ["alice"]
    text = (home / KNOWN_PEERS_FILE).read_text()
    assert alice.fingerprint in text


def test_pins_are_keys_and_a_shared_name_is_told_apart(home: Path) -> None:
    alice = Identity.from_seed("alice", ALICE_SEED).public
    other = Identity.from_seed("alice", MALLORY_SEED).public
    peers = KnownPeers.load()
    peers.pin(alice)
    assert peers.check(other) is False  # a new player, not an error
    assert peers.label(alice) == "alice"
    peers.pin(other)
    reloaded = KnownPeers.load()
    assert reloaded.names() == ["alice"] and len(reloaded) == 2
    assert reloaded.key_of("alice") is None  # two keys: a name alone does not say which
    assert reloaded.label(other) == f"alice ({other.fingerprint[:4]})"
    assert reloaded.forget("alice") == []  # ambiguous: nothing removed
    assert reloaded.forget(other.fingerprint[:9]) == [other]
    assert KnownPeers.load().peers() == [alice]
    assert KnownPeers.load().forget("alice") == [alice]


def test_a_peer_that_renamed_itself_keeps_its_pin(home: Path) -> None:
    alice = Identity.from_seed("alice", ALICE_SEED).public
    peers = KnownPeers.load()
    peers.pin(alice)
    renamed = PeerIdentity("alicia", alice.public_key)
    assert peers.check(renamed) is False and peers.name_for_key(alice.public_key) == "alice"
    peers.pin(renamed)
    assert KnownPeers.load().peers() == [renamed]


def test_known_peers_files_of_the_old_format_are_read_and_migrated(home: Path) -> None:
    alice = Identity.from_seed("alice", ALICE_SEED).public
    bob = Identity.from_seed("bob", MALLORY_SEED).public
    home.mkdir(parents=True)
    path = home / KNOWN_PEERS_FILE
    old = {
        "format": "p2p66-known-peers/1",
        "peers": {
            "alice": {"public_key": alice.public_key.hex(), "fingerprint": alice.fingerprint}
        },
    }
    path.write_text(json.dumps(old, indent=2))
    os.chmod(path, 0o600)
    peers = KnownPeers.load()
    assert peers.peers() == [alice] and peers.check(alice)
    peers.pin(bob)
    data = json.loads(path.read_text())
    assert data["format"] == "p2p66-known-peers/2"
    assert data["peers"] == [
        {"name": "alice", "public_key": alice.public_key.hex(), "fingerprint": alice.fingerprint},
        {"name": "bob", "public_key": bob.public_key.hex(), "fingerprint": bob.fingerprint},
    ]
    assert KnownPeers.load().peers() == [alice, bob]


@pytest.mark.parametrize(
    "content",
    [
        '{"format": "p2p66-known-peers/1", "peers": []}',
        '{"format": "p2p66-known-peers/1", "peers": {"a": {"public_key": "xyz"}}}',
        '{"format": "p2p66-known-peers/1", "peers": {"a": {"public_key": "0011"}}}',
        '{"format": "p2p66-known-peers/1", "peers": {"a": 5}}',
        '{"format": "p2p66-known-peers/2", "peers": [{"public_key": "00"}]}',
        '{"format": "p2p66-known-peers/2", "peers": {"a": {}}}',
    ],
)
def test_corrupt_known_peers_file_is_reported(home: Path, content: str) -> None:
    home.mkdir(parents=True)
    path = home / KNOWN_PEERS_FILE
    path.write_text(content)
    os.chmod(path, 0o600)
    with pytest.raises(IdentityError, match=r"known-peers|public_key|32-byte"):
        KnownPeers.load()
