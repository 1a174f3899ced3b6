"""The optional compiled engine (``scripts/build_accel.py``) against the pure-Python reference.

Both builds play the same random games under random rules in fresh
processes; every state, legal-move list and both seats' views must agree
(``enginekit.trace_digest``). The search bots' hot loops are compiled too, so
both builds also play the same deals with ``strong`` at a sample budget (PIMC
and ISMCTS, with and without the endgame solver): every move and its info
must agree. Skipped only where no compiled build can be made at all: without
mypyc or a C compiler.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = 1000
BUILD_TIMEOUT = 900.0
RUN_TIMEOUT = 300.0
BOTS = (  # (spec, preset): PIMC where the talon can be closed, ISMCTS under vu
    ("strong:samples=24", "sixty-six"),
    ("strong:samples=24,endgame=4", "schnapsen"),
    ("strong:samples=200", "vu"),
    ("strong:samples=200,endgame=5", "vu"),
)

_TRACE = """
import hashlib, json
import p2p66.bots.ismcts as ismcts
import p2p66.engine.state as state
from enginekit import trace_digest
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.engine import preset
from p2p66.runner.game import GameSpec, play_game

def bots_digest():
    moves = []
    for spec, rules in BOTS:
        for game in range(4):
            bot_a = make_bot(parse_bot_spec(spec), game, preset(rules))
            bot_b = make_bot(parse_bot_spec("expert"), 1, preset(rules))
            game_spec = GameSpec(
                game, game, game % 2, 11, preset(rules), mode="hands", record_moves=True
            )
            result = play_game(game_spec, bot_a, bot_b)
            for hand in result.moves_timed or ():
                moves.extend((m.seat, m.move, sorted(m.info.items())) for m in hand)
    return hashlib.sha256(json.dumps(moves).encode()).hexdigest(), len(moves)

print(json.dumps({
    "files": [state.__file__, ismcts.__file__],
    "digest": trace_digest(GAMES),
    "bots": bots_digest(),
}))
""".replace("GAMES", str(GAMES)).replace("BOTS", repr(BOTS))


def _trace(package_root: Path) -> dict[str, Any]:
    path = os.pathsep.join([str(package_root), str(ROOT / "tests" / "engine")])
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, "-c", _TRACE],
        cwd=package_root,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"the trace under {package_root} failed:\n{done.stderr}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.slow
@pytest.mark.timeout(BUILD_TIMEOUT + 2 * RUN_TIMEOUT)
def test_compiled_build_plays_exactly_like_the_pure_python_one(tmp_path: Path) -> None:
    for module in ("mypyc", "setuptools"):  # mypyc comes with mypy, in the test extra
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed: no compiled engine can be built")
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) to build the compiled engine")
    pure, compiled = tmp_path / "pure", tmp_path / "compiled"
    shutil.copytree(
        ROOT / "p2p66", pure / "p2p66", ignore=shutil.ignore_patterns("*.so", "_accel.json")
    )
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_accel.py"), "--into", str(compiled)],
        check=True,
        capture_output=True,
        timeout=BUILD_TIMEOUT,
    )
    reference, accelerated = _trace(pure), _trace(compiled)
    assert all(path.endswith(".py") for path in reference["files"])
    assert all(path.endswith(".so") for path in accelerated["files"])
    assert accelerated["digest"] == reference["digest"]
    assert reference["bots"][1] > 150  # moves of the bots' games were compared
    assert accelerated["bots"] == reference["bots"]


def _build_accel() -> Any:
    script = ROOT / "scripts" / "build_accel.py"
    spec = importlib.util.spec_from_file_location("build_accel", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_build_in_place_goes_stale_when_any_compiled_source_changes(tmp_path: Path) -> None:
    accel = _build_accel()
    package = tmp_path / "p2p66"
    for folder in ("engine", "bots"):
        shutil.copytree(
            ROOT / "p2p66" / folder,
            package / folder,
            ignore=shutil.ignore_patterns("*.so", "*.pyd", accel.STAMP, "__pycache__"),
        )
    assert not accel.stale(package)  # nothing built
    extension = package / "bots" / f"ismcts{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
    extension.write_bytes(b"")
    assert accel.stale(package)  # an extension module without a stamp
    stamp = package / "engine" / accel.STAMP
    stamp.write_text(json.dumps({"sources": accel.sources(package)}))
    assert not accel.stale(package)
    with (package / "bots" / "solver.py").open("a") as source:
        source.write("# edited\n")  # a search module, not only the engine's, is watched
    assert accel.stale(package)
    old_format = {name.split("/")[1]: digest for name, digest in accel.sources(package).items()}
    stamp.write_text(json.dumps({"sources": old_format}))  # an engine-only build's stamp
    assert accel.stale(package)
    assert sorted(accel.clean(package)) == sorted([extension, stamp])
    assert not accel.stale(package)
