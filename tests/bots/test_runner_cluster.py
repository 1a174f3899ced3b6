"""``--cluster``: a Dask scheduler and worker processes the test starts on 127.0.0.1.

The games played there must be exactly those played locally, and a worker
killed in the middle of a game must lose no game (Dask reruns it).
Skipped when Dask distributed is not installed (``pip install -e '.[cluster]'``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from p2p66.bots import parse_bot_spec  # noqa: E402
from p2p66.engine import preset  # noqa: E402
from p2p66.runner.records import GameResult  # noqa: E402
from p2p66.runner.run import RunConfig, run  # noqa: E402
from p2p66.runner.stats import Sprt, Summary  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


def _dask(*args: str, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[int]]]:
    """A scheduler on 127.0.0.1 and two single-thread workers without nannies."""
    tmp = tmp_path_factory.mktemp("dask")
    info = tmp / "scheduler.json"
    common = ("--no-dashboard",)
    scheduler = ("scheduler", "--host", "127.0.0.1", "--port", "0", "--scheduler-file")
    procs = [_dask(*scheduler, str(info), *common, log=tmp / "scheduler.log")]
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert info.exists(), (tmp / "scheduler.log").read_text()
        address = json.loads(info.read_text())["address"]
        for n in range(2):
            worker = ("worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny")
            procs.append(_dask(*worker, *common, log=tmp / f"worker{n}.log"))
        client = distributed.Client(address, timeout=START_TIMEOUT, set_as_default=False)
        try:
            client.wait_for_workers(2, timeout=START_TIMEOUT)
        finally:
            client.close()
        yield address, [p.pid for p in procs[1:]]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _config(games: int, **kw: object) -> RunConfig:
    return RunConfig(
        parse_bot_spec("strong:samples=6"),
        parse_bot_spec("expert"),
        preset("sixty-six"),
        games=games,
        seed=9,
        mode="hands",
        **kw,  # type: ignore[arg-type]
    )


def _key(results: list[GameResult]) -> list[tuple[object, ...]]:
    return sorted((r.game, r.winner, r.points, r.moves, r.deals) for r in results)


@pytest.mark.timeout(240)
def test_a_cluster_run_records_what_a_local_run_does(cluster: tuple[str, list[int]]) -> None:
    address, _ = cluster
    local = run(_config(8))
    remote = run(_config(8, cluster=address))
    assert _key(remote.results) == _key(local.results)


@pytest.mark.timeout(240)
def test_the_sprt_stops_a_cluster_run_as_it_stops_a_local_one(
    cluster: tuple[str, list[int]],
) -> None:
    address, _ = cluster
    cfg = RunConfig(
        parse_bot_spec("expert"),
        parse_bot_spec("random"),
        preset("sixty-six"),
        games=400,
        mode="hands",
        sprt=Sprt(0.0, 150.0),
        cluster=address,
    )
    outcome = run(cfg)
    assert outcome.stopped_early == "SPRT accepted H1" and len(outcome.results) < 400


@pytest.mark.timeout(240)
def test_a_worker_killed_mid_game_loses_no_game(cluster: tuple[str, list[int]]) -> None:
    """The last test: it kills one of the two workers while it plays a game."""
    address, pids = cluster
    killed: list[int] = []

    def kill_a_busy_worker(result: GameResult, summary: Summary) -> None:
        if killed:
            return
        with distributed.Client(address, timeout=START_TIMEOUT, set_as_default=False) as c:
            busy = [w for w, tasks in c.processing().items() if tasks]
            if not busy:
                return
            pid = c.run(os.getpid, workers=[busy[0]])[busy[0]]
        assert pid in pids
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    local = run(_config(10))
    remote = run(_config(10, cluster=address), listener=kill_a_busy_worker)
    assert killed, "no worker was busy when a game ended"
    assert _key(remote.results) == _key(local.results)
