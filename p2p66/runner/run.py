"""Run a whole match between two bots: schedule, play (in parallel), record, stop early.

A run is a list of numbered games. Game ``i`` is fully determined by the
settings and ``i``: with duplicate deals, games 2k and 2k+1 share deal pair
k and swap the seats; without, every game has its own deals and the seats
alternate. That is what makes ``--resume`` exact: a resumed run plays the
missing numbers and nothing else.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import IO, Any

from p2p66.bots.api import Bot
from p2p66.bots.registry import BotSpec, bot_settings
from p2p66.bots.wire import ENGINE
from p2p66.engine.options import RuleOptions, preset_name
from p2p66.runner.dealbook import book_digest
from p2p66.runner.deals import Deal, bot_seed
from p2p66.runner.game import GameSpec, Mode, TimeControl
from p2p66.runner.gamerecord import append_game, game_text
from p2p66.runner.keep import KEEPER, worker_start
from p2p66.runner.reaper import stop_on_signals
from p2p66.runner.records import GameResult, ResultsFileError, Side, replay_file_name
from p2p66.runner.stats import Sprt, Summary
from p2p66.runner.transport import get_transport

RESULTS_FORMAT = "p2p66-match-results/1"


@dataclass(frozen=True, slots=True)
class RunConfig:
    """Everything that decides which games are played and how."""

    bot_a: BotSpec
    bot_b: BotSpec
    options: RuleOptions
    games: int
    seed: int = 1
    mode: Mode = "matches"
    duplicate: bool = True
    time: TimeControl = field(default_factory=TimeControl)
    concurrency: int = 1
    transport: str = "inproc"
    replay_dir: str | None = None
    sprt: Sprt | None = None
    bot_logs: str | None = None
    deals: tuple[Deal, ...] | None = None  # a deal book: pair k plays deals[k]
    record_file: str | None = None  # the game record file (in-process games)
    cluster: str | None = None  # a Dask scheduler's address: play the games there

    def deal(self, pair: int) -> Deal:
        """The deal of pair ``pair``: from the book, else from the run seed."""
        if self.deals is None:
            return Deal(self.seed, pair)
        return self.deals[pair]

    @property
    def pairs(self) -> int:
        """How many deals the run plays."""
        return (self.games + 1) // 2 if self.duplicate else self.games

    def spec(self, game: int) -> GameSpec:
        """The game with number ``game``."""
        pair = game // 2 if self.duplicate else game
        deal = self.deal(pair)
        return GameSpec(
            game=game,
            pair=pair,
            a_seat=game % 2,
            seed=self.seed,
            options=self.options if self.mode == "matches" else one_hand(self.options),
            mode=self.mode,
            first_dealer=deal.dealer,
            time=self.time,
            replay_dir=self.replay_dir,
            deal=deal,
            record_moves=self.record_file is not None,
        )

    def identity(self) -> dict[str, Any]:
        """The settings a resumed run must share with the original (not the game count)."""
        return {
            "bot_a": self.bot_a.label,
            "bot_b": self.bot_b.label,
            "options": self.options.to_dict(),
            "seed": self.seed,
            "mode": self.mode,
            "duplicate": self.duplicate,
            "per_move": self.time.per_move,
            "margin": self.time.margin,
            "transport": self.transport,
            **({} if self.deals is None else {"deals": book_digest(self.deals)}),
        }


@cache
def one_hand(options: RuleOptions) -> RuleOptions:
    """The rules of a one-hand game (``--hands``): a match to 1, so bots know it.

    Cached: every game of a run asks, and building options checks every field.
    """
    return options.with_options(match_target=1)


@dataclass(slots=True)
class RunOutcome:
    """The games of the run (including resumed ones) and why it stopped."""

    results: list[GameResult] = field(default_factory=list)
    stopped_early: str | None = None

    def summary(self, config: RunConfig) -> Summary:
        return Summary.of(self.results, config.duplicate, config.sprt)


Listener = Callable[[GameResult, Summary], None]


def play_one(config: RunConfig, game: int) -> GameResult:
    """Play game ``game`` (the unit of work of a worker process).

    External bots come from this process's ``KEEPER``, so one process per
    side plays game after game; built-in bots are made afresh, seeded by game.
    """
    transport = get_transport(config.transport)
    spec = config.spec(game)
    margin = config.time.margin
    specs: dict[Side, BotSpec] = {"a": config.bot_a, "b": config.bot_b}
    bots: dict[Side, Bot] = {}
    result: GameResult | None = None
    try:
        for side in ("a", "b"):
            seed = bot_seed(config.seed, game, side)
            bots[side] = KEEPER.take(
                side, specs[side], seed, config.options, margin=margin, log_dir=config.bot_logs
            )
        result = transport.play(spec, bots["a"], bots["b"])
        return result
    finally:
        for side, bot in bots.items():
            KEEPER.give_back(side, specs[side], bot, result)


def run(
    config: RunConfig,
    *,
    out: IO[str] | None = None,
    previous: list[GameResult] | None = None,
    listener: Listener | None = None,
) -> RunOutcome:
    """Play every game not in ``previous``, streaming each result to ``out`` as it ends."""
    get_transport(config.transport)  # fail before starting anything
    outcome = RunOutcome(results=list(previous or []))
    done = {r.game for r in outcome.results}
    todo = [g for g in range(config.games) if g not in done]
    decided = outcome.results and config.sprt is not None
    if decided and _sprt_decided(outcome, outcome.summary(config)):
        return outcome
    try:
        with stop_on_signals():
            _collect(config, outcome, todo, out, listener)
    finally:
        KEEPER.close_all()
    return outcome


def _collect(
    config: RunConfig,
    outcome: RunOutcome,
    todo: list[int],
    out: IO[str] | None,
    listener: Listener | None,
) -> None:
    for result in _results(config, todo):
        outcome.results.append(result)
        if out is not None:
            out.write(result.to_line() + "\n")
            out.flush()
        if config.record_file is not None:
            append_game(Path(config.record_file), record_text(config, result))
        if listener is None and config.sprt is None:
            continue
        summary = outcome.summary(config)
        if listener is not None:
            listener(result, summary)
        if _sprt_decided(outcome, summary):
            break


def _sprt_decided(outcome: RunOutcome, summary: Summary) -> bool:
    if summary.sprt in ("H0", "H1"):
        outcome.stopped_early = f"SPRT accepted {summary.sprt}"
        return True
    return False


def _results(config: RunConfig, todo: list[int]) -> Iterator[GameResult]:
    """Results in completion order; stops submitting when the consumer stops iterating."""
    if config.cluster is not None:
        from p2p66.runner.cluster import cluster_results

        yield from cluster_results(
            config.cluster,
            partial(play_one, config),
            todo,
            2 * config.concurrency,
            cleanup=KEEPER.close_all,
        )
        return
    if config.concurrency <= 1 or len(todo) <= 1:
        for game in todo:
            yield play_one(config, game)
        return
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(
        max_workers=config.concurrency,
        mp_context=context,
        initializer=worker_start,
        initargs=(os.getpid(),),
    )
    pending: set[Future[GameResult]] = set()
    queue = iter(todo)
    try:
        for game in queue:
            pending.add(pool.submit(play_one, config, game))
            if len(pending) >= config.concurrency * 2:
                break
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(play_one, config, nxt))
                yield future.result()
    except GeneratorExit:
        raise  # the consumer is done (an SPRT decision): let the games in play finish
    except BaseException:
        _terminate_workers(pool)  # Ctrl-C, SIGTERM: stop now, the workers kill their bots
        raise
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def _terminate_workers(pool: ProcessPoolExecutor) -> None:
    """SIGTERM every worker of ``pool`` (each kills its bots on the way out)."""
    processes = getattr(pool, "_processes", None) or {}  # no public API lists them
    for process in list(processes.values()):
        process.terminate()


def record_text(config: RunConfig, result: GameResult) -> str:
    """The game's block of the game record file."""
    return game_text(
        result,
        labels=(config.bot_a.label, config.bot_b.label),
        bots={"a": bot_settings(config.bot_a), "b": bot_settings(config.bot_b)},
        seed=config.seed,
        options=config.options.to_dict(),
        preset=preset_name(config.options) or "custom",
        replay=replay_file_name(result.game) if config.replay_dir is not None else None,
    )


def start_line(config: RunConfig) -> str:
    """The first line of a results file: the run's identity, game count and exact bots.

    ``bots`` records every option of each bot with its defaults filled in and
    whether ``--seed`` reproduces it (a time budget does not).
    """
    return json.dumps(
        {
            "type": "start",
            "format": RESULTS_FORMAT,
            "games": config.games,
            **config.identity(),
            "bots": {"a": bot_settings(config.bot_a), "b": bot_settings(config.bot_b)},
            "engine": ENGINE,
        },
        separators=(",", ":"),
    )


def open_results(path: Path, config: RunConfig, resume: bool) -> tuple[IO[str], list[GameResult]]:
    """Open the results file for appending; with ``resume``, also return the games in it.

    A torn last line (the run was killed mid-write) is cut off. A file from a
    different run (other bots, rules, seed, ...) is refused, naming the field.
    """
    if not resume or not path.exists():
        if path.exists() and path.stat().st_size and not resume:
            raise ResultsFileError(
                f"{path} already holds results: pass --resume to continue it, "
                "or choose another --out file"
            )
        handle = path.open("w", encoding="utf-8")
        handle.write(start_line(config) + "\n")
        handle.flush()
        return handle, []
    previous = read_results(path, config)
    _rewrite_start(path, config)
    return path.open("a", encoding="utf-8"), previous


def _rewrite_start(path: Path, config: RunConfig) -> None:
    """Make the start line say this run's game count (a resume may ask for more games),
    and drop the summary of the interrupted run: a new one is written at the end."""
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    kept = [start_line(config).encode()] + [
        line for line in lines[1:] if line and b'"type":"summary"' not in line
    ]
    new = b"\n".join(kept) + b"\n"
    if new == raw:
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(new)
    os.replace(tmp, path)


def read_results(path: Path, config: RunConfig) -> list[GameResult]:
    """The games recorded in ``path`` (which must belong to ``config``'s run)."""
    raw = path.read_bytes()
    if raw and not raw.endswith(b"\n"):
        cut = raw.rfind(b"\n") + 1
        with path.open("r+b") as handle:
            handle.truncate(cut)
        raw = raw[:cut]
    lines = raw.decode("utf-8", errors="replace").splitlines()
    if not lines:
        raise ResultsFileError(f"{path} is empty: nothing to resume")
    try:
        head = json.loads(lines[0])
    except json.JSONDecodeError:
        raise ResultsFileError(f"{path}:1 is not JSON: not a results file") from None
    if not isinstance(head, dict) or head.get("format") != RESULTS_FORMAT:
        raise ResultsFileError(f"{path}:1 is not a p2p66 match results header")
    for key, value in config.identity().items():
        if head.get(key) != value:
            raise ResultsFileError(
                f"{path} belongs to another run: its {key} is {head.get(key)!r}, "
                f"this run's is {value!r}"
            )
    results: dict[int, GameResult] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            raise ResultsFileError(f"{path}:{number} is not JSON") from None
        if isinstance(data, dict) and data.get("type") != "game":
            continue  # other record types are for people and other tools
        try:
            result = GameResult.from_json(data)
        except ResultsFileError as exc:
            raise ResultsFileError(f"{path}:{number}: {exc}") from None
        results[result.game] = result
    return [results[g] for g in sorted(results)]
