"""``p2p66 tournament BOT BOT [BOT...]``: round-robin or gauntlet, a crosstable and Elo for all.

Each pairing is a match run on the same deals (``--seed`` or ``--deals``);
with ``--out DIR`` each writes its own results file there, which
``--resume`` continues. The table at the end ranks the bots by one
Bradley-Terry fit over every game, with 95% intervals. Exit codes as for
``match``: 0 done, 1 a bot forfeited a game, 2 bad input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Annotated

import typer

from p2p66.bots.api import BotError
from p2p66.cli.match_cmd import EXIT_FORFEITS, EXIT_OK, EXIT_USAGE, build_config
from p2p66.cli.run_json import tournament_json, write_json
from p2p66.cli.run_options import Concurrency, Duplicate, Margin, Movetime, Transport
from p2p66.engine.errors import RuleOptionError
from p2p66.engine.options import PRESETS
from p2p66.runner.cluster import ClusterUnavailable
from p2p66.runner.ratings import RatingError
from p2p66.runner.reaper import RunStopped
from p2p66.runner.records import GameResult, ResultsFileError
from p2p66.runner.run import RunConfig, RunOutcome, open_results, run
from p2p66.runner.tournament import (
    Format,
    Pairing,
    Standings,
    crosstable_lines,
    pairings,
    results_path,
    standings,
)
from p2p66.runner.transport import TransportUnavailable


def register(app: typer.Typer) -> None:
    """Add the ``tournament`` command to ``app``."""
    app.command(name="tournament")(tournament)


def tournament(
    bots: Annotated[list[str], typer.Argument(help="Two or more bots, named as for 'match'")],
    *,
    gauntlet: Annotated[
        bool, typer.Option(help="The first bot plays each other bot (default: every pair)")
    ] = False,
    matches: Annotated[
        int | None, typer.Option("--matches", help="Matches per pairing (default 100)")
    ] = None,
    hands: Annotated[int | None, typer.Option("--hands", help="Single hands per pairing")] = None,
    preset_name: Annotated[
        str, typer.Option("--preset", help=f"Rules: {', '.join(PRESETS)}")
    ] = "sixty-six",
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="Rule option NAME=VALUE (repeatable)")
    ] = None,
    seed: Annotated[
        int, typer.Option(help="Seed of every deal and bot (reproduces bots not budgeted by time)")
    ] = 1,
    deals: Annotated[
        Path | None, typer.Option("--deals", help="Play this deal book in every pairing")
    ] = None,
    concurrency: Concurrency = 1,
    duplicate: Duplicate = True,
    movetime: Movetime = None,
    margin: Margin = 0.05,
    out: Annotated[
        Path | None, typer.Option(help="Directory for one results file per pairing")
    ] = None,
    resume: Annotated[bool, typer.Option(help="Continue the pairings recorded in --out")] = False,
    transport: Transport = "inproc",
    record: Annotated[
        Path | None, typer.Option("--record", help="Every game of every pairing as text here")
    ] = None,
    cluster: Annotated[
        str | None, typer.Option("--cluster", help="Play the games on this Dask scheduler")
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the crosstable and ratings as one JSON object"),
    ] = False,
) -> None:
    """Play every pairing of BOTS on the same deals; print a crosstable and Elo for all."""
    fmt: Format = "gauntlet" if gauntlet else "round-robin"
    try:
        if len(set(bots)) != len(bots):
            raise ValueError("each bot may appear once (give a copy another option to tell it)")
        plan = pairings(len(bots), fmt)
        configs = [
            build_config(
                bots[p.a],
                bots[p.b],
                matches=matches,
                hands=hands,
                preset_name=preset_name,
                options=option or [],
                seed=seed,
                concurrency=concurrency,
                duplicate=duplicate,
                movetime=movetime,
                margin=margin,
                sprt=None,
                alpha=0.05,
                beta=0.05,
                replays=None,
                transport=transport,
                bot_logs=None if out is None else out / "bot-logs",
                deals=deals,
                record=record,
                cluster=cluster,
            )
            for p in plan
        ]
        if resume and out is None:
            raise ResultsFileError("--resume needs --out DIR: the pairings to continue")
    except (
        BotError,
        RuleOptionError,
        TransportUnavailable,
        ClusterUnavailable,
        ResultsFileError,
        ValueError,
    ) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    outcomes = [_pairing(p, c, bots, out, resume) for p, c in zip(plan, configs, strict=True)]
    if as_json:
        table = _standings(bots, plan, outcomes)
        write_json(tournament_json(fmt, configs, outcomes, table), sys.stdout)
    else:
        _print(bots, plan=plan, configs=configs, outcomes=outcomes, fmt=fmt, stream=sys.stdout)
    forfeits = any(r.forfeit is not None for o in outcomes for r in o.results)
    raise typer.Exit(EXIT_FORFEITS if forfeits else EXIT_OK)


def _pairing(
    pairing: Pairing, config: RunConfig, names: list[str], out: Path | None, resume: bool
) -> RunOutcome:
    """Play (or continue) one pairing, its results in its own file under ``out``."""
    handle: IO[str] | None = None
    previous: list[GameResult] = []
    try:
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            handle, previous = open_results(results_path(out, pairing, names), config, resume)
    except (ResultsFileError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    typer.echo(
        f"pairing {pairing.number + 1}: {names[pairing.a]} vs {names[pairing.b]}"
        + (f" ({len(previous)} games already played)" if previous else ""),
        err=True,
    )
    try:
        outcome = run(config, out=handle, previous=previous)
        if handle is not None:
            summary = outcome.summary(config).to_json(None)
            handle.write(json.dumps(summary, separators=(",", ":")) + "\n")
    except KeyboardInterrupt:
        typer.echo("\ninterrupted: finished games are in the results files", err=True)
        raise typer.Exit(130) from None
    except RunStopped as stop:
        typer.echo(f"\n{stop}: finished games are in the results files", err=True)
        raise typer.Exit(128 + stop.signum) from None
    except ClusterUnavailable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    finally:
        if handle is not None:
            handle.close()
    return outcome


def _print(
    names: list[str],
    *,
    plan: list[Pairing],
    configs: list[RunConfig],
    outcomes: list[RunOutcome],
    fmt: Format,
    stream: IO[str],
) -> None:
    unit = "hands" if configs[0].mode == "hands" else "matches"
    games = sum(len(o.results) for o in outcomes)
    deals = "duplicate deals" if configs[0].duplicate else "independent deals"
    stream.write(
        f"{fmt} of {len(names)} bots, {len(plan)} pairings, {games} {unit}, "
        f"seed {configs[0].seed}, {deals}, the same deals in every pairing\n"
    )
    table = _standings(names, plan, outcomes, stream)
    if table is None:
        return
    stream.write("\n".join(crosstable_lines(table)) + "\n")
    stream.write(
        "Elo: one Bradley-Terry fit over all games (mean 0, a prior of 2 drawn games "
        "per pairing), 95% intervals\n"
    )


def _standings(
    names: list[str],
    plan: list[Pairing],
    outcomes: list[RunOutcome],
    stream: IO[str] = sys.stderr,
) -> Standings | None:
    """The crosstable and ratings, or None (and why, on ``stream``) when no fit is possible."""
    try:
        return standings(names, plan, outcomes)
    except RatingError as exc:
        stream.write(f"no ratings: {exc}\n")
        return None
