"""The optional compiled engine (``scripts/build_accel.py``) against the pure-Python reference.

Both builds play the same random games under random rules in fresh
processes; every state, legal-move list and both seats' views must agree
(``enginekit.trace_digest``). Skipped only where no compiled build can be
made at all: without mypyc or a C compiler.
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

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = 1000
BUILD_TIMEOUT = 900.0
RUN_TIMEOUT = 300.0

_TRACE = """
import json
import p2p66.engine.state as state
from enginekit import trace_digest
print(json.dumps({"file": state.__file__, "digest": trace_digest(GAMES)}))
""".replace("GAMES", str(GAMES))


def _trace(package_root: Path) -> dict[str, str]:
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
    result: dict[str, str] = json.loads(done.stdout)
    return result


@pytest.mark.slow
@pytest.mark.timeout(BUILD_TIMEOUT + 2 * RUN_TIMEOUT)
def test_compiled_engine_plays_exactly_like_the_pure_python_one(tmp_path: Path) -> None:
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
    assert reference["file"].endswith(".py")
    assert accelerated["file"].endswith(".so")
    assert accelerated["digest"] == reference["digest"]
