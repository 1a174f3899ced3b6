"""The command as a Unix tool: version flags, plain errors off a terminal, crashes as bugs."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from p2p66 import __version__
from p2p66.cli import app as app_module
from p2p66.cli.crash import EXIT_INTERNAL, report_crash
from p2p66.cli.output import markup_mode, wants_plain


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_output_off_a_terminal_or_when_colour_is_refused() -> None:
    tty, pipe = FakeTty(), io.StringIO()
    assert not wants_plain({}, (tty, tty))
    assert wants_plain({}, (tty, pipe))
    assert wants_plain({"NO_COLOR": "1"}, (tty, tty))
    assert wants_plain({"TERM": "dumb"}, (tty, tty))
    assert markup_mode({"NO_COLOR": "1"}) is None


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_flags(flag: str) -> None:
    result = CliRunner().invoke(app_module.app, [flag])
    assert result.exit_code == 0
    assert result.output == f"p2p66 {__version__}\n"


def test_short_help_flag() -> None:
    result = CliRunner().invoke(app_module.app, ["-h"])
    assert result.exit_code == 0
    assert "--install-completion" in result.output
    assert "Usage:" in result.output


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "P2P66_HOME": str(home), "COLUMNS": "20"}
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "p2p66.cli.app", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_a_piped_error_is_one_plain_line_whatever_the_width(tmp_path: Path) -> None:
    done = _cli("play", "--vs", "nobody", home=tmp_path)
    assert done.returncode == 2
    assert "Error: Invalid value for --vs: no bot named 'nobody'" in done.stderr
    assert not any(ch in done.stderr for ch in "╭│╰─")


def test_a_crash_is_reported_as_a_bug_with_a_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def explode() -> None:
        raise RuntimeError("boom")

    monkeypatch.setenv("P2P66_HOME", str(tmp_path))
    monkeypatch.setattr(app_module, "app", explode)
    with pytest.raises(SystemExit) as stop:
        app_module.main()
    assert stop.value.code == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.startswith("p2p66: internal error (RuntimeError)")
    assert __version__ in err
    (log,) = (tmp_path / "logs").glob("crash-*.log")
    assert str(log) in err
    assert "RuntimeError: boom" in log.read_text(encoding="utf-8")


def test_a_crash_whose_log_cannot_be_written_still_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    out = io.StringIO()
    assert report_crash(ValueError("x"), out=out, home=blocker) == EXIT_INTERNAL
    assert "could not be written" in out.getvalue()


def test_peers_list_looks_without_creating_an_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    monkeypatch.setenv("P2P66_HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(app_module.app, ["peers", "list"])
    assert result.exit_code == 0
    assert "no identity yet" in result.output
    assert not (tmp_path / "home").exists()  # looking made nothing
    listed = json.loads(CliRunner().invoke(app_module.app, ["peers", "list", "--json"]).output)
    assert listed == {"you": None, "peers": []}


def test_config_as_json_has_the_settings_and_where_they_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    monkeypatch.setenv("P2P66_HOME", str(tmp_path))
    shown = json.loads(CliRunner().invoke(app_module.app, ["config", "--json"]).output)
    assert shown["settings"]["preset"] == "sixty-six"
    assert shown["paths"] == {
        "config": str(tmp_path / "config.toml"),
        "home": str(tmp_path),
        "replays": str(tmp_path / "replays"),
        "logs": str(tmp_path / "logs"),
    }


def test_replays_and_logs_live_in_the_data_dir_and_old_replays_move_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from p2p66.live.loopback import replay_path
    from p2p66.net.identity import data_dir, home_dir

    monkeypatch.delenv("P2P66_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    old = home_dir() / "replays"
    old.mkdir(parents=True)
    (old / "earlier.p66").write_bytes(b"kept")
    path = replay_path("sixty-six")
    assert path.parent == data_dir() / "replays" == tmp_path / "data" / "p2p66" / "replays"
    assert (path.parent / "earlier.p66").read_bytes() == b"kept"  # moved, not lost
    assert not old.exists()
    assert replay_path("vu").parent == path.parent  # once: nothing more to move


@pytest.mark.parametrize(
    "command",
    [
        ["play"],
        ["host"],
        ["join"],
        ["verify"],
        ["replay", "show"],
        ["replay", "export"],
        ["match"],
        ["bot", "check"],
    ],
)
def test_every_command_that_ends_with_a_verdict_lists_its_exit_codes(command: list[str]) -> None:
    result = CliRunner().invoke(app_module.app, [*command, "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "Exit codes: 0 " in result.output
