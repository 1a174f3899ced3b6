"""host and join take the player's name and default rules from ``p2p66 config``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2p66.ui.config import Config, load_config, save_config


def test_only_a_name_the_player_chose_replaces_the_identity_name(tmp_path: Path) -> None:
    assert Config().name is None
    path = tmp_path / "config.toml"
    save_config(Config(preset="vu"), path)
    assert "name" not in path.read_text()  # never chosen: not written either
    assert load_config(path) == Config(preset="vu")
    path.write_text('name = "Player"\npreset = "vu"\n')  # as older versions wrote the default
    assert load_config(path).name is None
    save_config(Config(name="Alice"), path)
    assert load_config(path).name == "Alice"


def host(
    home: Path, seat: tuple[str, ...] = ("--bot", "random")
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "p2p66.cli.app", "host", "--port", "0", "--bind", "127.0.0.1",
         *seat, "--wait", "1"],
        check=False, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
        env={**os.environ, "P2P66_HOME": str(home)},
    )  # fmt: skip


@pytest.mark.timeout(60)
def test_host_uses_the_configured_name_and_preset(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('name = "Alice"\npreset = "vu"\n')
    run = host(tmp_path)
    assert run.returncode == 3  # nobody joined within a second
    assert "Hosting as Alice" in run.stderr + run.stdout
    assert "preset vu" in run.stderr + run.stdout
    assert "config set name" not in run.stderr  # a name was chosen: no hint


@pytest.mark.timeout(60)
def test_a_human_host_without_a_chosen_name_is_told_how_to_choose_one(tmp_path: Path) -> None:
    run = host(tmp_path, seat=("--plain",))
    assert run.returncode == 3, run.stderr  # nobody joined within a second
    assert "Your opponent will see the name" in run.stderr
    assert "'p2p66 config set name NAME'" in run.stderr


@pytest.mark.timeout(60)
def test_a_broken_config_file_is_a_usage_error_that_names_it(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("garbage = [")
    run = host(tmp_path)
    assert run.returncode == 2
    assert "config" in run.stderr and "not valid TOML" in run.stderr
