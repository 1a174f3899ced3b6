"""``p2p66 peers list`` and ``p2p66 peers forget`` on a real known-peers file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from p2p66.cli.app import app
from p2p66.net import Identity, KnownPeers


def test_list_and_forget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path))
    bob = Identity.from_seed("bob", b"b" * 32)
    pins = KnownPeers.load()
    pins.pin(bob.public)
    runner = CliRunner()
    listed = runner.invoke(app, ["peers", "list"])
    assert listed.exit_code == 0 and f"bob {bob.fingerprint}" in listed.stdout
    assert runner.invoke(app, ["peers", "forget", "bob"]).exit_code == 0
    assert KnownPeers.load().key_of("bob") is None
    missing = runner.invoke(app, ["peers", "forget", "bob"])
    assert missing.exit_code == 1 and "no pinned peer named 'bob'" in missing.stderr


def test_an_unusable_home_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("P2P66_HOME", "/proc/no-such-dir/p2p66")
    runner = CliRunner()
    for args in (["play", "--plain"], ["host", "--port", "0", "--bot", "random"]):
        result = runner.invoke(app, args, input="")
        assert result.exit_code == 6, result.output
        assert "cannot use the p2p66 home" in result.stderr
