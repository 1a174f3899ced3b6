"""``p2p66 match BOT_A BOT_B``: automated matches between bots, with statistics you can trust.

Results stream to ``--out`` as NDJSON, one line per game as it ends; the
final table gives win rates and Elo with 95% intervals (and the SPRT verdict
with ``--sprt``). Exit codes: 0 done; 1 a bot forfeited at least one game;
2 bad input (unknown bot, bad options, a results file from another run).
"""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path
from typing import IO, Annotated

import typer

from p2p66.bots.api import BotError
from p2p66.bots.registry import BotSpec, make_bot, parse_bot_spec
from p2p66.bots.table import make_table_bot
from p2p66.cli.exits import MATCH_HELP
from p2p66.cli.output import EXIT_READER_GONE, silence_stdout
from p2p66.cli.run_json import match_json, table_match_json, write_json
from p2p66.cli.run_options import Concurrency, Duplicate, Margin, Movetime, Transport
from p2p66.engine.errors import RuleOptionError
from p2p66.engine.options import PRESETS, RuleOptions, preset
from p2p66.engine.table import (
    TABLE_PRESETS,
    TableOptions,
    ThreeHandedOptions,
    is_table_preset,
    table_options,
)
from p2p66.runner.cluster import ClusterUnavailable, check_cluster_support
from p2p66.runner.dealbook import read_book
from p2p66.runner.deals import Deal
from p2p66.runner.game import Mode, TimeControl
from p2p66.runner.gsprt import MODELS, Model
from p2p66.runner.reaper import RunStopped
from p2p66.runner.records import GameResult, ResultsFileError
from p2p66.runner.run import RunConfig, RunOutcome, open_results, run, start_line
from p2p66.runner.stats import Sprt, Summary
from p2p66.runner.transport import TransportUnavailable, get_transport
from p2p66.ui.escape import printable_lines

EXIT_OK, EXIT_FORFEITS, EXIT_USAGE = 0, 1, 2


def register(app: typer.Typer) -> None:
    """Add the ``match`` command to ``app``."""
    app.command(name="match", epilog=MATCH_HELP)(match)


def match(
    bot_a: Annotated[
        str, typer.Argument(help="A built-in bot (see 'p2p66 bot list') or a command")
    ],
    bot_b: Annotated[str, typer.Argument(help="The opponent, named the same way")],
    bot_c: Annotated[
        str | None,
        typer.Argument(help="The third bot of a three-seat game (cut-throat, three-handed)"),
    ] = None,
    *,
    matches: Annotated[
        int | None, typer.Option("--matches", help="Number of matches to the target (default 100)")
    ] = None,
    hands: Annotated[
        int | None, typer.Option("--hands", help="Play single hands (deals) instead of matches")
    ] = None,
    preset_name: Annotated[
        str, typer.Option("--preset", help=f"Rules: {', '.join([*PRESETS, *TABLE_PRESETS])}")
    ] = "sixty-six",
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="Rule option NAME=VALUE (repeatable)")
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            help="Seed of every deal and every bot. It reproduces a run only when no bot is "
            "budgeted by time: give strong samples=N (and no ms) for a reproducible run"
        ),
    ] = 1,
    concurrency: Concurrency = 1,
    duplicate: Duplicate = True,
    movetime: Movetime = None,
    margin: Margin = 0.05,
    out: Annotated[
        Path | None, typer.Option(help="NDJSON results file, one line per game ('-': stdout)")
    ] = None,
    resume: Annotated[bool, typer.Option(help="Continue the run recorded in --out")] = False,
    sprt: Annotated[
        tuple[float, float] | None,
        typer.Option(help="Stop early: SPRT of H0 Elo=ELO0 against H1 Elo=ELO1"),
    ] = None,
    alpha: Annotated[float, typer.Option(help="SPRT false-positive rate")] = 0.05,
    beta: Annotated[float, typer.Option(help="SPRT false-negative rate")] = 0.05,
    sprt_model: Annotated[
        str,
        typer.Option("--sprt-model", help="What ELO0 and ELO1 mean: logistic or normalized Elo"),
    ] = "logistic",
    replays: Annotated[
        Path | None,
        typer.Option(help="Write every game's replay here (JSON; signed .p66 over loopback)"),
    ] = None,
    transport: Transport = "inproc",
    progress: Annotated[bool, typer.Option(help="Show a progress line on stderr")] = True,
    deals: Annotated[
        Path | None,
        typer.Option(
            "--deals",
            help="Play the deals of this deal book (see 'p2p66 deals make'), one per pair",
        ),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            help="Play the games on this Dask scheduler (tcp://HOST:8786) instead of local "
            "processes; needs pip install 'p2p66[cluster]'",
        ),
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record",
            help="Write every game as text to this one file (PGN-like: bots and their "
            "options, decks, each move with its time), in process or over loopback",
        ),
    ] = None,
    bot_logs: Annotated[
        Path | None,
        typer.Option(
            "--bot-logs",
            help="Keep each external bot's stderr in a file here "
            "(default with --out FILE: FILE's name without suffix plus '-bots')",
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the final table as one JSON object instead of text"),
    ] = False,
) -> None:
    """Play BOT_A against BOT_B and report win rates, Elo and (optionally) an SPRT.

    With a game for three or four players: north-american and south-bend seat
    BOT_A with BOT_A against BOT_B with BOT_B; cut-throat and three-handed play
    BOT_A, BOT_B and BOT_C at one table, every deal in each seating.
    """
    if is_table_preset(preset_name):
        unsupported = {
            "--hands": hands is not None,
            "--sprt": sprt is not None,
            "--replays": replays is not None,
            "--resume": resume,
            "--movetime": movetime is not None,
            "--concurrency": concurrency != 1,
            "--transport": transport != "inproc",
            "--deals": deals is not None,
            "--record": record is not None,
            "--cluster": cluster is not None,
            "--bot-logs": bot_logs is not None,
        }
        table_match(
            preset_name,
            (bot_a, bot_b) if bot_c is None else (bot_a, bot_b, bot_c),
            matches=matches if matches is not None else 30,
            options=option or [],
            seed=seed,
            duplicate=duplicate,
            out=out,
            unsupported=[name for name, given in unsupported.items() if given],
            as_json=as_json,
        )
    if bot_c is not None:
        typer.echo(f"error: {preset_name} is a two-player game: give two bots", err=True)
        raise typer.Exit(EXIT_USAGE)
    try:
        config = build_config(
            bot_a,
            bot_b,
            matches=matches,
            hands=hands,
            preset_name=preset_name,
            options=option or [],
            seed=seed,
            concurrency=concurrency,
            duplicate=duplicate,
            movetime=movetime,
            margin=margin,
            sprt=sprt,
            alpha=alpha,
            beta=beta,
            sprt_model=sprt_model,
            replays=replays,
            transport=transport,
            bot_logs=bot_logs_dir(bot_logs, out),
            deals=deals,
            record=record,
            cluster=cluster,
        )
    except (
        BotError,
        RuleOptionError,
        TransportUnavailable,
        ClusterUnavailable,
        ValueError,
    ) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    to_stdout = _json_or_results(as_json, out)
    report: IO[str] = sys.stderr if to_stdout else sys.stdout
    previous: list[GameResult] = []
    handle: IO[str] | None = None
    try:
        if resume and (out is None or to_stdout):
            raise ResultsFileError("--resume needs --out FILE: the results to continue")
        if out is not None and not to_stdout:
            handle, previous = open_results(out, config, resume)
    except (ResultsFileError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    if to_stdout:
        handle = sys.stdout
        try:
            handle.write(start_line(config) + "\n")
            handle.flush()
        except BrokenPipeError:  # the reader of --out - left before the run began
            silence_stdout()
            raise typer.Exit(EXIT_READER_GONE) from None
    bar = Progress(config, sys.stderr) if progress else None
    if previous and bar is not None:
        typer.echo(f"resuming: {len(previous)} of {config.games} games already played", err=True)
    try:
        outcome = run(config, out=handle, previous=previous, listener=bar)
        if handle is not None:
            summary_line = json.dumps(
                outcome.summary(config).to_json(config.sprt), separators=(",", ":")
            )
            handle.write(summary_line + "\n")
            handle.flush()
    except KeyboardInterrupt:
        typer.echo("\ninterrupted: finished games are in the results file", err=True)
        raise typer.Exit(130) from None
    except RunStopped as stop:
        typer.echo(f"\n{stop}: finished games are in the results file", err=True)
        raise typer.Exit(128 + stop.signum) from None
    except ClusterUnavailable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    except BrokenPipeError:  # the reader of --out - left: nobody wants the rest
        silence_stdout()
        raise typer.Exit(EXIT_READER_GONE) from None
    finally:
        if bar is not None:
            bar.done()
        if handle is not None and handle is not sys.stdout:
            handle.close()
    try:
        if as_json:
            write_json(match_json(config, outcome), sys.stdout)
        else:
            print_table(config, outcome, report)
    except BrokenPipeError:  # a closed pipe is not a result: the exit code still says it
        silence_stdout()
    summary = outcome.summary(config)
    raise typer.Exit(EXIT_FORFEITS if sum(summary.forfeits) else EXIT_OK)


def table_match(
    preset_name: str,
    bots: tuple[str, ...],
    *,
    matches: int,
    options: list[str],
    seed: int,
    duplicate: bool,
    out: Path | None,
    unsupported: list[str],
    as_json: bool = False,
) -> None:
    """``match`` for the games for three and four players (``runner/table_run.py``)."""
    from p2p66.runner.table_run import TableRunConfig, pair_stats, run_table, win_rates

    try:
        if unsupported:
            raise ValueError(
                f"{', '.join(unsupported)} not available for {preset_name} yet "
                "(matches run one at a time, in this process)"
            )
        rules = table_options(preset_name, option_values(options))
        config = TableRunConfig(rules, bots, matches, seed, duplicate)
        whole = -(-matches // config.rotation) * config.rotation  # complete seatings only
        config = TableRunConfig(rules, bots, whole, seed, duplicate)
        for spec in bots:
            _check_table_bot(spec, rules)
    except (BotError, RuleOptionError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    to_stdout = _json_or_results(as_json, out)
    report: IO[str] = sys.stderr if to_stdout else sys.stdout
    try:
        handle: IO[str] | None = (
            sys.stdout if to_stdout else (out.open("w") if out is not None else None)
        )
    except OSError as exc:
        typer.echo(f"error: cannot write {out}: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    try:
        records = run_table(config, handle)
    except KeyboardInterrupt:
        typer.echo("\ninterrupted: finished matches are in the results file", err=True)
        raise typer.Exit(130) from None
    finally:
        if handle is not None and handle is not sys.stdout:
            handle.close()
    if as_json:
        document = table_match_json(
            preset_name,
            bots,
            matches=len(records),
            seed=seed,
            duplicate=duplicate,
            wins=win_rates(config, records),
            pairs=pair_stats(config, records),
        )
        write_json(document, sys.stdout)
        raise typer.Exit(EXIT_OK)
    labels = dict(zip("ABC", bots, strict=False))
    seating = "A+A vs B+B" if rules.players == 4 else "round-robin at one table"
    lines = [
        f"{preset_name}: {' / '.join(f'{k}={v}' for k, v in labels.items())}; "
        f"{len(records)} matches, seed {seed}, {seating}, "
        f"{'duplicate deals rotated through the seats' if duplicate else 'independent deals'}"
    ]
    for letter, (wins, (rate, low, high)) in zip("ABC", win_rates(config, records), strict=False):
        lines.append(
            f"  {letter} {labels[letter]:<16} {wins:>4} wins  {100 * rate:5.1f}% "
            f"[{100 * low:.1f}, {100 * high:.1f}]"
        )
    for p in pair_stats(config, records):
        e = p.estimate
        lines.append(
            f"  {p.a} over {p.b}: score {100 * e.score:.1f}% [{100 * e.score_low:.1f}, "
            f"{100 * e.score_high:.1f}]  Elo {_elo(e.elo)} [{_elo(e.elo_low)}, {_elo(e.elo_high)}]"
        )
    report.write("\n".join(lines) + "\n")
    raise typer.Exit(EXIT_OK)


def _json_or_results(as_json: bool, out: Path | None) -> bool:
    """Whether the results go to standard output (``--out -``); never with ``--json`` too."""
    to_stdout = out is not None and str(out) == "-"
    if as_json and to_stdout:
        typer.echo("error: --json and --out - both write to standard output: choose one", err=True)
        raise typer.Exit(EXIT_USAGE)
    return to_stdout


def _check_table_bot(spec: str, rules: TableOptions) -> None:
    """Fail early on a bot the table game cannot seat."""
    if isinstance(rules, ThreeHandedOptions):
        check_spec(parse_bot_spec(spec), rules.hand_rules)
    else:
        make_table_bot(spec, 0)


def build_config(
    bot_a: str,
    bot_b: str,
    *,
    matches: int | None,
    hands: int | None,
    preset_name: str,
    options: list[str],
    seed: int,
    concurrency: int,
    duplicate: bool,
    movetime: float | None,
    margin: float,
    sprt: tuple[float, float] | None,
    alpha: float,
    beta: float,
    replays: Path | None,
    transport: str,
    sprt_model: str = "logistic",
    bot_logs: Path | None = None,
    deals: Path | None = None,
    record: Path | None = None,
    cluster: str | None = None,
) -> RunConfig:
    """The run the options describe; ValueError (or BotError, ...) says what is wrong."""
    if matches is not None and hands is not None:
        raise ValueError("give --matches or --hands, not both")
    mode: Mode = "hands" if hands is not None else "matches"
    rules = _rules(preset_name, options)
    book = read_book(deals, rules.deck_size) if deals is not None else None
    per_deal = 2 if duplicate else 1
    default = 100 if book is None else per_deal * len(book)
    games = hands if hands is not None else (matches if matches is not None else default)
    if games < 1:
        raise ValueError("the number of games must be at least 1")
    if duplicate and games % 2:
        flag = "--hands" if hands is not None else "--matches"
        raise ValueError(
            f"{flag} {games} is odd: duplicate deals play every deal twice, seats swapped; "
            f"give {games + 1} (or {games - 1}), or --no-duplicate"
            if games > 1
            else f"{flag} 1: duplicate deals play every deal twice; give 2, or --no-duplicate"
        )
    if movetime is not None and movetime <= 0:
        raise ValueError("--movetime must be positive")
    if cluster is not None:
        check_cluster_support()  # replays and bot logs go to each worker's disk (README)
    if book is not None:
        peers = None  # who deals: the referee (None), or peers playing the protocol
        if transport != "inproc":
            peers = f"--transport {transport}"
        elif replays is not None:
            peers = "--replays"
        check_book(book, games, per_deal, mode=mode, peers=peers, path=deals)
    specs = (parse_bot_spec(bot_a), parse_bot_spec(bot_b))
    for spec in specs:
        check_spec(spec, rules)
    get_transport(transport)
    return RunConfig(
        bot_a=specs[0],
        bot_b=specs[1],
        options=rules,
        games=games,
        seed=seed,
        mode=mode,
        duplicate=duplicate,
        time=TimeControl(movetime, margin),
        concurrency=concurrency,
        transport=transport,
        replay_dir=str(replays) if replays is not None else None,
        bot_logs=str(bot_logs) if bot_logs is not None else None,
        deals=tuple(book) if book is not None else None,
        record_file=str(record) if record is not None else None,
        cluster=cluster,
        sprt=Sprt(sprt[0], sprt[1], alpha, beta, _model(sprt_model)) if sprt is not None else None,
    )


def check_book(
    book: list[Deal],
    games: int,
    per_deal: int,
    *,
    mode: Mode,
    peers: str | None,
    path: Path | None,
) -> None:
    """A deal book must hold enough deals, and explicit decks only fit single hands in process."""
    needed = -(-games // per_deal)
    if needed > len(book):
        raise ValueError(
            f"{path} holds {len(book)} deals; {games} games need {needed} "
            f"({per_deal} game{'s' if per_deal > 1 else ''} per deal)"
        )
    if any(d.deck is not None for d in book[:needed]):
        if mode != "hands":
            raise ValueError(
                f"{path} gives explicit decks, which are single hands: use --hands "
                "(or a book of seeds: 'p2p66 deals make' without --decks)"
            )
        if peers is not None:
            raise ValueError(
                f"{path} gives explicit decks, which peers ({peers}) cannot deal "
                "(a mental-poker deck cannot be chosen): use a book of seeds"
            )


def _model(name: str) -> Model:
    for model in MODELS:
        if name == model:
            return model
    raise ValueError(f"--sprt-model is logistic or normalized, not {name!r}")


def bot_logs_dir(given: Path | None, out: Path | None) -> Path | None:
    """Where external bots' stderr goes: ``--bot-logs``, else beside a results file."""
    if given is not None:
        return given
    if out is None or str(out) == "-":
        return None
    return out.with_name(f"{out.stem}-bots")


def _rules(preset_name: str, options: list[str]) -> RuleOptions:
    base = preset(preset_name)
    values = option_values(options)
    return RuleOptions.from_mapping(values, base=base) if values else base


def option_values(options: list[str]) -> dict[str, str]:
    """``--option NAME=VALUE`` items as a mapping (RuleOptionError for one without ``=``)."""
    values: dict[str, str] = {}
    for item in options:
        key, eq, value = item.partition("=")
        if not eq:
            raise RuleOptionError(f"--option {item!r} is not NAME=VALUE")
        values[key.strip()] = value.strip()
    return values


def check_spec(spec: BotSpec, rules: RuleOptions) -> None:
    """Fail early on a bot that cannot be built (bad options, missing command, wrong rules)."""
    if spec.kind == "external":
        if shutil.which(spec.command[0]) is None:
            raise BotError(
                f"{spec.command[0]!r} is neither a built-in bot (see 'p2p66 bot list') "
                "nor a command on PATH"
            )
        return
    make_bot(spec, 0, rules).close()


class Progress:
    """One status line on stderr, rewritten after every game."""

    def __init__(self, config: RunConfig, stream: IO[str]) -> None:
        self.config = config
        self.stream = stream
        self.shown = False
        self.tty = stream.isatty()

    def __call__(self, result: GameResult, summary: Summary) -> None:
        total = self.config.games
        if not self.tty and summary.games % max(1, total // 10) and summary.games != total:
            return  # not a terminal: a line every tenth of the run, no carriage returns
        width = 24
        filled = min(width, width * summary.games // max(1, total))
        est = summary.estimate
        line = (
            f"\r[{'#' * filled}{'.' * (width - filled)}] {summary.games}/{total} "
            f"{self.config.bot_a.label}: {100 * est.score:.1f}% Elo {_elo(est.elo)}"
            f" ±{_num(est.elo_error)}"
        )
        if summary.llr is not None:
            line += f" LLR {summary.llr:+.2f}"
        if self.tty:
            self.stream.write(line + "   ")
            self.shown = True
        else:
            self.stream.write(line[1:] + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def _elo(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value) or 0:+d}"  # no "-0" for an even score


def _num(value: float) -> str:
    return "inf" if math.isinf(value) or math.isnan(value) else f"{value:.0f}"


def print_table(config: RunConfig, outcome: RunOutcome, stream: IO[str]) -> None:
    """The final table: games, results, win rate and Elo with 95% intervals, SPRT."""
    s = outcome.summary(config)
    est = s.estimate
    unit = "hands" if config.mode == "hands" else "matches"
    name_w = max(len(config.bot_a.label), len(config.bot_b.label), 4)
    rate, low, high = s.win_rate
    lines = [
        f"{config.bot_a.label} vs {config.bot_b.label}: {s.games} {unit}, "
        f"seed {config.seed}, {'duplicate deals' if config.duplicate else 'independent deals'}",
        f"{'Bot':<{name_w}}  {'Wins':>5}  {'Losses':>6}  {'Draws':>5}  {'Points':>6}  "
        f"{'Win rate (95%)':<22}",
        f"{config.bot_a.label:<{name_w}}  {s.wins:>5}  {s.losses:>6}  {s.draws:>5}  "
        f"{s.points[0]:>6}  {100 * rate:5.1f}% [{100 * low:.1f}, {100 * high:.1f}]",
        f"{config.bot_b.label:<{name_w}}  {s.losses:>5}  {s.wins:>6}  {s.draws:>5}  "
        f"{s.points[1]:>6}  {100 * (s.losses / max(1, s.games)):5.1f}%",
        f"Score of {config.bot_a.label}: {100 * est.score:.1f}% "
        f"[{100 * est.score_low:.1f}, {100 * est.score_high:.1f}]  "
        f"Elo {_elo(est.elo)} [{_elo(est.elo_low)}, {_elo(est.elo_high)}]  "
        f"LOS {100 * s.los:.1f}%",
    ]
    if sum(s.counts):
        shape = ("pairs", "0-½-1-1½-2") if len(s.counts) == 5 else ("games", "loss-draw-win")
        lines.append(
            f"{shape[0].capitalize()} scored {shape[1]}: {' '.join(map(str, s.counts))}  "
            f"nElo {_elo(s.nelo[0])} ±{_num(s.nelo[1])}"
        )
    if config.sprt is not None and s.llr is not None:
        verdict = {"H0": "H0 accepted", "H1": "H1 accepted", "continue": "no decision yet"}
        lines.append(
            f"SPRT ({config.sprt.model}, {'pentanomial' if len(s.counts) == 5 else 'trinomial'}) "
            f"elo0={config.sprt.elo0:g} elo1={config.sprt.elo1:g} "
            f"alpha={config.sprt.alpha:g} beta={config.sprt.beta:g}: LLR {s.llr:+.2f} "
            f"[{config.sprt.lower:.2f}, {config.sprt.upper:.2f}] {verdict[s.sprt or 'continue']}"
        )
    if sum(s.forfeits):
        lines.append(
            f"Forfeits: {config.bot_a.label} {s.forfeits[0]}, {config.bot_b.label} {s.forfeits[1]}"
        )
        for r in outcome.results:
            if r.forfeit is not None:
                who = config.bot_a.label if r.forfeit.side == "a" else config.bot_b.label
                lines.append(f"  game {r.game}: {who} {r.forfeit.kind}: {r.forfeit.detail}")
    if outcome.results:
        longest = [max(r.max_move[i] for r in outcome.results) for i in (0, 1)]
        moves = sum(r.moves for r in outcome.results)
        lines.append(
            f"Longest move: {config.bot_a.label} {1000 * longest[0]:.0f} ms, "
            f"{config.bot_b.label} {1000 * longest[1]:.0f} ms; {moves} moves"
        )
    if outcome.stopped_early:
        lines.append(f"Stopped early: {outcome.stopped_early}")
    stream.write(printable_lines("\n".join(lines)) + "\n")
    stream.flush()
