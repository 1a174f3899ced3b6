"""Runs of matches between bots in the games for three and four players.

``north-american`` / ``south-bend`` seat bot A with A against B with B; the
three-seat games (``cut-throat``, ``three-handed``) play a round-robin of
three bots A, B, C at one table. With duplicate deals every deal sequence is
played again with the bots moved round the table (partnerships swapped, or
the three cyclic seatings), so the cards' luck cancels out. Each match is
one NDJSON record; the statistics are each bot's match wins and, per pair
of bots, the score of one over the other (1 ahead, 1/2 level, 0 behind) as
Elo with a 95% interval.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import IO

from p2p66.engine.table import BiddingOptions, TableOptions, ThreeHandedOptions, table_label
from p2p66.runner.stats import Estimate, estimate, wilson
from p2p66.runner.tables import TableGameResult, play_bidding_match, play_three_handed_match

LETTERS = "ABC"


@dataclass(frozen=True, slots=True)
class TableRunConfig:
    """What to play: the rules, the bots (2 for partnerships, 3 otherwise), how many matches."""

    options: TableOptions
    bots: tuple[str, ...]
    matches: int
    seed: int = 1
    duplicate: bool = True

    def __post_init__(self) -> None:
        need = 2 if self.options.players == 4 else 3
        if len(self.bots) != need:
            what = "two bots (A with A against B with B)" if need == 2 else "three bots"
            raise ValueError(f"{table_label(self.options)} is played by {what}")
        if self.matches < 1:
            raise ValueError("the number of matches must be at least 1")

    @property
    def rotation(self) -> int:
        """Matches per deal sequence: each seating once with duplicate deals, else 1."""
        return (2 if self.options.players == 4 else 3) if self.duplicate else 1


@dataclass(frozen=True, slots=True)
class TableRecord:
    """One match: who sat where, the final scores, each bot's place."""

    game: int
    group: int  # matches of one group share their deals
    preset: str
    deal_seed: int
    seats: tuple[str, ...]  # bot letter per seat
    scores: tuple[int, ...]  # per side (partnerships) or per seat
    winner: str | None  # the winning bot's letter
    places: tuple[int, ...]  # per bot A, B(, C): 1 = first; ties share
    forfeit: str | None  # "B: timeout: ..." when a bot broke the rules (it is placed last)
    hands: int
    moves: int
    seconds: float

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def seating(config: TableRunConfig, game: int) -> tuple[int, tuple[int, ...]]:
    """(group, bot index per seat) of match number ``game``."""
    group, turn = divmod(game, config.rotation)
    if config.options.players == 4:
        return group, (0, 1, 0, 1) if turn == 0 else (1, 0, 1, 0)
    return group, tuple((seat + turn) % 3 for seat in range(3))


def play_one(config: TableRunConfig, game: int) -> TableRecord:
    group, seats = seating(config, game)
    deal_seed = config.seed * 100_003 + group
    specs = [config.bots[b] for b in seats]
    first_dealer = group % config.options.players
    opts = config.options
    result: TableGameResult
    if isinstance(opts, ThreeHandedOptions):
        result = play_three_handed_match(opts, specs, deal_seed, first_dealer=first_dealer)
    else:
        assert isinstance(opts, BiddingOptions)
        result = play_bidding_match(opts, specs, deal_seed, first_dealer=first_dealer)
    bot_score = _bot_scores(config, seats, result)
    winner = None
    if result.winner_side is not None:
        winner_bot = seats[result.winner_side]  # side 0/1 sits at seats 0/1; players sit alone
        winner = LETTERS[winner_bot]
        bot_score[winner_bot] = max(bot_score) + 1  # the winner is first whatever its score
    forfeit = None
    if result.forfeit is not None:
        culprit = seats[result.forfeit[0]]
        bot_score[culprit] = min(bot_score) - 1
        forfeit = f"{LETTERS[culprit]}: {result.forfeit[1]}"
    places = tuple(1 + sum(other > mine for other in bot_score) for mine in bot_score)
    return TableRecord(
        game=game,
        group=group,
        preset=table_label(opts),
        deal_seed=deal_seed,
        seats=tuple(LETTERS[b] for b in seats),
        scores=result.scores,
        winner=winner,
        places=places,
        forfeit=forfeit,
        hands=result.hands,
        moves=result.moves,
        seconds=round(result.seconds, 4),
    )


def _bot_scores(config: TableRunConfig, seats: tuple[int, ...], r: TableGameResult) -> list[int]:
    n_bots = len(config.bots)
    if config.options.players == 4:
        out = [0] * n_bots
        for side in (0, 1):
            out[seats[side]] = r.scores[side]
        return out
    out = [0] * n_bots
    for seat, bot in enumerate(seats):
        out[bot] = r.scores[seat]
    return out


def run_table(
    config: TableRunConfig,
    out: IO[str] | None = None,
    listener: Callable[[TableRecord], None] | None = None,
) -> list[TableRecord]:
    """Play every match in order, streaming each record to ``out`` as it ends."""
    records = []
    for game in range(config.matches):
        record = play_one(config, game)
        records.append(record)
        if out is not None:
            out.write(record.to_json() + "\n")
            out.flush()
        if listener is not None:
            listener(record)
    return records


@dataclass(frozen=True, slots=True)
class PairStat:
    """Bot ``a`` against bot ``b`` over the run: its score with a 95% interval (and Elo)."""

    a: str
    b: str
    estimate: Estimate


def pair_stats(config: TableRunConfig, records: list[TableRecord]) -> list[PairStat]:
    """Per pair of bots: 1 when ahead in a match, 1/2 level, 0 behind; groups averaged."""
    out = []
    for x, y in combinations(range(len(config.bots)), 2):
        groups: dict[int, list[float]] = {}
        for r in records:
            px, py = r.places[x], r.places[y]
            groups.setdefault(r.group, []).append(1.0 if px < py else 0.5 if px == py else 0.0)
        samples = [sum(v) / len(v) for _, v in sorted(groups.items())]
        out.append(PairStat(LETTERS[x], LETTERS[y], estimate(samples)))
    return out


def win_rates(
    config: TableRunConfig, records: list[TableRecord]
) -> list[tuple[int, tuple[float, float, float]]]:
    """Per bot: matches won and the win rate with its 95% Wilson interval."""
    out = []
    for b in range(len(config.bots)):
        wins = sum(1 for r in records if r.winner == LETTERS[b])
        out.append((wins, wilson(wins, len(records))))
    return out
