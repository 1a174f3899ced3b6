"""``--cluster ADDRESS``: play the games on a Dask distributed cluster instead of local processes.

Why Dask and not Ray: ``distributed.Client`` is a drop-in for the
``concurrent.futures`` pool the runner already uses (``submit``, futures,
``wait``), it is pure Python with a small dependency tree, a worker is one
command on each machine (``dask worker tcp://HOST:8786``), and its
scheduler reruns the tasks of a worker that dies on another worker, so a
lost machine loses no game. Ray would bring its own object store, raylets
and large binary wheels for a job that is a plain list of independent
function calls.

The runner stays the single writer of the results file: games come back
as ``GameResult`` values and go through the same streaming, resume and
SPRT code as local games, so a cluster run and a local one with the same
settings record the same results. Every worker must run the same p2p66
version (and have any external bot's command); run workers with
``--nthreads 1`` so one game has a core.
"""

from __future__ import annotations

import contextlib
import importlib
import uuid
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any, TypeVar

R = TypeVar("R")
MISSING = (
    "--cluster needs Dask distributed: pip install 'p2p66[cluster]' "
    "(or pip install distributed) on this machine and every worker"
)
CONNECT_TIMEOUT = 30.0


class ClusterUnavailable(RuntimeError):
    """Dask is missing, or the scheduler cannot be reached (not a bot's fault)."""


def _distributed() -> Any:
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise ClusterUnavailable(MISSING) from None


def check_cluster_support() -> None:
    """Fail before a run starts when Dask is not installed."""
    _distributed()


def cluster_results(
    address: str,
    work: Callable[[int], R],
    todo: list[int],
    window: int,
    cleanup: Callable[[], None] | None = None,
) -> Iterator[R]:
    """``work(game)`` for every game on the cluster at ``address``, in completion order.

    At most ``window`` games (or twice the cluster's threads, if more) are
    submitted at a time, so stopping early (an SPRT decision, Ctrl-C)
    cancels little. Dask reruns the game of a worker that dies. At the end
    ``cleanup`` runs on every worker (the runner quits the bots kept there).
    """
    distributed = _distributed()
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterUnavailable(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    pending: set[Any] = set()
    tag = uuid.uuid4().hex  # task keys unique across runs sharing one scheduler

    def submit(game: int) -> Any:
        future = client.submit(work, game, pure=False, key=f"p2p66-game-{game}-{tag}")
        pending.add(future)
        return future

    try:
        threads = sum(client.nthreads().values())
        window = max(window, 2 * threads, 1)
        queue = iter(todo)
        first = [submit(game) for game in islice(queue, window)]
        finished = distributed.as_completed(first, loop=client.loop)
        for future in finished:
            pending.discard(future)
            nxt = next(queue, None)
            if nxt is not None:
                finished.add(submit(nxt))
            yield future.result()
    finally:
        for future in pending:
            future.cancel()
        if cleanup is not None:
            with contextlib.suppress(Exception):  # a worker gone by now has no bots left
                client.run(cleanup)
        client.close()
