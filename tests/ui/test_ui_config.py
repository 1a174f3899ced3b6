"""Settings: stored under $P2P66_HOME (or the user config dir), shown and set by `p2p66 config`."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from p2p66.cli import config_cmd
from p2p66.ui.config import (
    Config,
    ConfigError,
    config_dir,
    load_config,
    save_config,
    use_color,
    with_setting,
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path))
    return tmp_path


def cli() -> typer.Typer:
    app = typer.Typer(rich_markup_mode=None)  # plain errors: never wrapped to the width

    @app.command()
    def version() -> None:  # a second command so `config` stays a subcommand
        """Unused."""

    config_cmd.register(app)
    return app


def test_ui_config_defaults_round_trip_and_home(home: Path) -> None:
    assert config_dir() == home
    assert load_config() == Config()  # no file yet: defaults
    config = Config(name='Ann "the Ace" Ö', preset="schnapsen", bot="first", color="never")
    config = with_setting(config, "ascii", "yes")
    path = save_config(config)
    assert path == home / "config.toml"
    assert load_config() == config
    assert config_dir({}).name == "p2p66"  # without P2P66_HOME: the platform's directory


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("colour", "auto", "unknown setting 'colour'"),
        ("preset", "poker", "unknown preset 'poker'"),
        ("bot", "no-such-bot", "no bot named 'no-such-bot'"),
        ("color", "pink", "color must be one of auto, always, never"),
        ("ascii", "maybe", "setting ascii must be true or false"),
        ("name", "", "the player name cannot be empty"),
        ("name", "x" * 40, "at most 32 characters"),
        ("name", "a\x1bb", "control characters"),
    ],
)
def test_ui_config_rejects_bad_values(key: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        with_setting(Config(), key, value)


def test_ui_config_bad_file_says_where(home: Path) -> None:
    (home / "config.toml").write_text("name = \n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"config\.toml is not valid TOML"):
        load_config()
    (home / "config.toml").write_text('preset = "poker"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"config.toml: unknown preset 'poker'"):
        load_config()


def test_ui_config_colour_honours_no_color() -> None:
    assert use_color(Config(), {}, is_tty=True)
    assert not use_color(Config(), {}, is_tty=False)
    assert not use_color(Config(), {"NO_COLOR": "1"}, is_tty=True)
    assert use_color(Config(color="always"), {"NO_COLOR": "1"}, is_tty=False)
    assert not use_color(Config(color="never"), {}, is_tty=True)


def test_ui_config_command_shows_and_sets(home: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(cli(), ["config"])
    assert shown.exit_code == 0, shown.output
    assert "name    = (not set)" in shown.output and str(home) in shown.output  # login name
    done = runner.invoke(cli(), ["config", "set", "name", "Ann"])
    assert done.exit_code == 0, done.output
    assert "name = Ann" in done.output
    assert load_config().name == "Ann"
    assert "name    = Ann" in runner.invoke(cli(), ["config", "show"]).output
    bad = runner.invoke(cli(), ["config", "set", "preset", "poker"])
    assert bad.exit_code == 2 and "unknown preset 'poker'" in bad.output
    assert runner.invoke(cli(), ["config", "reset"]).exit_code == 0
    assert load_config() == Config()
