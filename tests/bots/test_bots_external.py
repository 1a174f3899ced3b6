"""External bots over NDJSON: the sample bot plays; faulty bots forfeit or fail the check."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from p2p66.bots import BotFault, parse_bot_spec
from p2p66.bots.external import BotProcess, ExternalBot
from p2p66.bots.random_bot import RandomBot
from p2p66.engine import preset
from p2p66.runner.check import check_bot
from p2p66.runner.game import GameSpec, TimeControl, play_game
from p2p66.runner.run import RunConfig, run

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (sys.executable, str(ROOT / "scripts" / "sample_bot.py"))
RULES = preset("sixty-six")

HEADER = """
import json, sys, time
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        send({"type": "ready", "name": "faulty", "author": "tests"})
    elif m["type"] == "quit":
        break
    elif m["type"] == "request":
"""

FAULTY = {
    "illegal": 'send({"type": "action", "id": m["id"], "move": "declare"})',
    "crash": "sys.exit(3)",
    "timeout": "time.sleep(3)",
    "garbage": 'sys.stdout.write("I think I will play the ace\\n"); sys.stdout.flush()',
    "wrong-id": 'send({"type": "action", "id": m["id"] + 1, "move": m["legal"][0]})',
    "lenient": 'send({"type": "action", "id": m["id"], "move": m["legal"][0].upper()})',
}
EXPECTED_KIND = {
    "illegal": "illegal",
    "crash": "crash",
    "timeout": "timeout",
    "garbage": "protocol",
    "wrong-id": "protocol",
    "lenient": "protocol",
}


def faulty_bot(tmp_path: Path, fault: str) -> tuple[str, ...]:
    body = HEADER + textwrap.indent(FAULTY[fault], " " * 8) + "\n"
    path = tmp_path / f"{fault}.py"
    path.write_text(body)
    return (sys.executable, str(path))


@pytest.mark.timeout(30)
def test_sample_bot_plays_a_match() -> None:
    spec = GameSpec(0, 0, 0, 5, RULES, time=TimeControl(2.0, 1.0))
    bot = ExternalBot(SAMPLE, RULES, name="sample")
    try:
        result = play_game(spec, bot, RandomBot(1))
    finally:
        bot.close()
    assert result.forfeit is None
    assert result.winner == "a"  # the sample bot never declares falsely, random does
    assert bot.hello is not None and bot.hello["name"] == "sample"


@pytest.mark.timeout(30)
@pytest.mark.parametrize("fault", sorted(FAULTY))
def test_faulty_bots_forfeit(tmp_path: Path, fault: str) -> None:
    command = faulty_bot(tmp_path, fault)
    spec = GameSpec(0, 0, 0, 5, RULES, time=TimeControl(0.3, 0.1))
    bot = ExternalBot(command, RULES)
    try:
        result = play_game(spec, bot, RandomBot(1))
    finally:
        bot.close()
    assert result.forfeit is not None, fault
    assert result.forfeit.side == "a"
    assert result.forfeit.kind == EXPECTED_KIND[fault]
    assert result.winner == "b"


@pytest.mark.timeout(30)
def test_runner_carries_on_after_forfeits(tmp_path: Path) -> None:
    command = " ".join(faulty_bot(tmp_path, "crash"))
    cfg = RunConfig(parse_bot_spec(command), parse_bot_spec("random"), RULES, games=2)
    outcome = run(cfg)
    assert [r.forfeit.kind if r.forfeit else None for r in outcome.results] == ["crash", "crash"]


@pytest.mark.timeout(30)
def test_a_bot_that_never_says_ready_forfeits_at_the_start(tmp_path: Path) -> None:
    path = tmp_path / "mute.py"
    path.write_text("import sys, time\nsys.stdin.readline()\ntime.sleep(5)\n")
    bot = ExternalBot((sys.executable, str(path)), RULES, startup_timeout=0.3)
    try:
        result = play_game(GameSpec(0, 0, 0, 5, RULES), bot, RandomBot(1))
    finally:
        bot.close()
    assert result.forfeit is not None
    assert result.forfeit.kind == "timeout" and "at the start" in result.forfeit.detail


def test_a_missing_command_is_a_crash() -> None:
    process = BotProcess(("/nonexistent/bot-binary",))
    with pytest.raises(BotFault, match="cannot start"):
        process.send({"type": "hello"})


@pytest.mark.timeout(60)
def test_check_passes_the_sample_bot() -> None:
    lines: list[str] = []
    report = check_bot(SAMPLE, say=lines.append)
    assert report.ok, report.faults
    assert report.name == "sample" and report.author
    assert report.hands >= 3 * 2 * 3 and report.moves > 10  # 3 presets, 2 matches of 3+ hands
    assert any("quit" in line for line in lines)
    assert any("end of input" in line for line in lines)


@pytest.mark.timeout(60)
def test_check_reports_every_fault(tmp_path: Path) -> None:
    for fault in ("illegal", "garbage", "crash"):
        report = check_bot(
            faulty_bot(tmp_path, fault), games_per_preset=1, movetime=0.5, margin=0.2
        )
        assert not report.ok
        kinds = {f.kind for f in report.faults}
        assert EXPECTED_KIND[fault] in kinds, (fault, report.faults)
        assert report.hands >= 3 * 3  # the check plays whole matches on after a fault
    illegal = check_bot(faulty_bot(tmp_path, "illegal"), games_per_preset=1)
    assert len([f for f in illegal.faults if f.kind == "illegal"]) >= 3


@pytest.mark.timeout(30)
def test_check_catches_a_bot_without_a_name(tmp_path: Path) -> None:
    path = tmp_path / "anon.py"
    path.write_text(
        HEADER.replace('"name": "faulty", "author": "tests"', '"name": ""')
        + "        send({'type': 'action', 'id': m['id'], 'move': m['legal'][0]})\n"
    )
    report = check_bot((sys.executable, str(path)), games_per_preset=1, presets=("vu",))
    assert {f.where for f in report.faults} == {"handshake"}
    assert len(report.faults) == 2  # no name, no author


def logged_bot(tmp_path: Path, log: Path, crash_in_game: int = 0) -> str:
    """The sample bot, logging its pid at start; optionally crashing in game N of its life."""
    path = tmp_path / "logged.py"
    path.write_text(
        textwrap.dedent(
            f"""
            import os, runpy, sys
            with open({str(log)!r}, "a") as f:
                f.write(f"{{os.getpid()}}\\n")
            if {crash_in_game}:
                real = sys.stdin
                class Tap:
                    games = 0
                    def __iter__(self):
                        for line in real:
                            if '"new_game"' in line:
                                Tap.games += 1
                            if '"request"' in line and Tap.games == {crash_in_game}:
                                sys.exit(3)
                            yield line
                    def readline(self):
                        return next(iter(self), "")
                sys.stdin = Tap()
            runpy.run_path({str(SAMPLE[1])!r}, run_name="__main__")
            """
        )
    )
    return f"{sys.executable} {path}"


@pytest.mark.timeout(60)
def test_external_bots_are_kept_between_games(tmp_path: Path) -> None:
    """One process plays every game of a serial run, and quits at the end."""
    log = tmp_path / "pids.txt"
    cfg = RunConfig(
        parse_bot_spec(logged_bot(tmp_path, log)),
        parse_bot_spec("random"),
        RULES,
        games=4,
        mode="hands",
    )
    outcome = run(cfg)
    assert all(r.forfeit is None for r in outcome.results)
    assert len(log.read_text().split()) == 1


@pytest.mark.timeout(60)
def test_a_bot_that_faulted_is_restarted_for_the_next_game(tmp_path: Path) -> None:
    log = tmp_path / "pids.txt"
    cfg = RunConfig(
        parse_bot_spec(logged_bot(tmp_path, log, crash_in_game=2)),
        parse_bot_spec("random"),
        RULES,
        games=4,
        mode="hands",
    )
    outcome = run(cfg)
    kinds = [r.forfeit.kind if r.forfeit else None for r in outcome.results]
    assert kinds == [None, "crash", None, "crash"]
    assert len(log.read_text().split()) == 2


MATCH_ONLY = """
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
games = 0
after_end = False
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        send({"type": "ready", "name": "one-hand-wonder", "author": "tests"})
    elif m["type"] == "new_game":
        games += 1
    elif m["type"] == "hand_end":
        after_end = True
    elif m["type"] == "quit":
        break
    elif m["type"] == "request":
        if BROKEN:
            sys.exit(5)
        send({"type": "action", "id": m["id"], "move": m["legal"][0]})
"""
ONLY_IN_MATCHES = {
    "second new_game": "games > 1",
    "hand_number above 1": 'm["hand_number"] > 1',
    "match points": 'any(m["match_points"])',
    "request after hand_end": "after_end",
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("what", sorted(ONLY_IN_MATCHES))
def test_check_plays_the_protocol_as_a_match_does(tmp_path: Path, what: str) -> None:
    """Bots that pass single fresh hands but fail in a real match fail the check."""
    path = tmp_path / "bot.py"
    path.write_text(MATCH_ONLY.replace("BROKEN", ONLY_IN_MATCHES[what]))
    report = check_bot((sys.executable, str(path)), presets=("sixty-six",))
    assert not report.ok, what
    assert {f.kind for f in report.faults} == {"crash"}


@pytest.mark.timeout(30)
def test_check_catches_a_bot_that_outlives_its_input(tmp_path: Path) -> None:
    path = tmp_path / "clingy.py"
    path.write_text(
        HEADER
        + "        send({'type': 'action', 'id': m['id'], 'move': m['legal'][0]})\n"
        + "if m['type'] != 'quit':\n    time.sleep(30)\n"
    )
    report = check_bot((sys.executable, str(path)), games_per_preset=1, presets=("vu",))
    assert [f.where for f in report.faults] == ["end of input"]


def test_stopping_a_bot_that_closed_its_input_raises_nothing() -> None:
    """What a dead bot never read is dropped: no BrokenPipeError escapes ``stop``."""
    script = "import os, sys, time; os.close(0); print('gone', flush=True); time.sleep(0.5)"
    proc = BotProcess((sys.executable, "-c", script))
    proc.start()
    with pytest.raises(BotFault):
        proc.receive(10.0)  # "gone" is not JSON; by now its input is closed
    with pytest.raises(BotFault, match="exited"):
        proc.send({"type": "hello", "pad": "x" * 100})
    assert proc.stop(grace=5.0) == 0


@pytest.mark.skipif(sys.platform != "linux", reason="autogroup scheduling is Linux's")
def test_a_bot_gets_its_own_process_group_but_not_its_own_session() -> None:
    """A session of its own is a CPU group of its own under autogroup scheduling: on a
    loaded machine a served bot then searched about twice as long as an in-process one
    at the same time per move. Its own group still lets a kill reach what it started."""
    process = BotProcess([sys.executable, "-c", "import sys; sys.stdin.read()"])
    process.start()
    try:
        pid = process._proc.pid  # type: ignore[union-attr]
        assert os.getsid(pid) == os.getsid(0)
        assert os.getpgid(pid) == pid != os.getpgid(0)
    finally:
        process.close_input()
        process.stop()
