"""Human-readable playthroughs of the bidding games: a deal, its moves, the state after each.

The same idea as the two-player ``engine/playthrough.py``: documentation and a
golden test at once. ``parse`` reads back the inputs (options, dealer, deck,
moves) so that a test can replay them and compare ``render`` byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from p2p66.engine.cards import CARD_CODES, SUIT_NAMES, cards_of, parse_card_id
from p2p66.engine.errors import NotationError, RuleOptionError
from p2p66.engine.table.bidding import BiddingHand, TablePhase, new_bidding_hand
from p2p66.engine.table.moves import TABLE_NOTATION, parse_table_move
from p2p66.engine.table.options import (
    BiddingOptions,
    table_label,
    table_options_from_wire,
    table_preset_name,
)

HEADER = "# p2p66 table playthrough v1"


@dataclass(frozen=True, slots=True)
class TablePlaythrough:
    """The inputs of a playthrough: enough to reproduce every line of it."""

    title: str
    options: BiddingOptions
    dealer: int
    deck: tuple[int, ...]
    moves: tuple[int, ...]


def _state_line(s: BiddingHand) -> str:
    if s.phase == TablePhase.BID:
        return f"high={s.high_bid} by={s.bidder}"
    trump = SUIT_NAMES[s.trump] if s.trump >= 0 else "-"
    table = " ".join(CARD_CODES[c] for _, c in s.trick)
    widow = f" widow->{s.widow_taker}" if s.widow_taker >= 0 else ""
    return (
        f"trump={trump} points={'/'.join(map(str, s.points))} "
        f"tricks={'/'.join(map(str, s.tricks))}{widow}" + (f" table={table}" if table else "")
    )


def render(play: TablePlaythrough) -> str:
    """The playthrough as text; raises IllegalMoveError if a move is illegal."""
    s = new_bidding_hand(play.options, play.deck, play.dealer)
    lines = [
        HEADER,
        f"title: {play.title}",
        f"preset: {table_preset_name(play.options) or table_label(play.options) + ' (custom)'}",
        f"options: {json.dumps(play.options.to_dict(), sort_keys=True)}",
        f"dealer: {play.dealer}",
        f"deck: {' '.join(CARD_CODES[c] for c in play.deck)}",
        *(
            f"hand {seat}: {' '.join(c.code for c in cards_of(s.hands[seat]))}"
            for seat in range(s.players)
        ),
    ]
    if s.widow:
        lines.append(f"widow: {' '.join(c.code for c in cards_of(s.widow))}")
    lines.append("moves:")
    for number, code in enumerate(play.moves, start=1):
        seat, phase = s.to_act, s.phase
        s = s.apply(code)
        lines.append(
            f"{number:3d}. seat {seat} {TablePhase(phase).name.lower():6s} "
            f"{TABLE_NOTATION[code]:10s} {_state_line(s)}"
        )
    r = s.result
    if r is None:
        lines.append("result: unfinished")
    else:
        lines.append(
            f"result: how={r.how.value} bidder={r.bidder} bid={r.bid} "
            f"points={'/'.join(map(str, r.side_points))} "
            f"marriages={'/'.join(map(str, r.counted_marriages))} "
            f"marks={'/'.join(f'{m:+d}' for m in r.marks)}"
        )
        sides = ("side 0", "side 1") if s.players == 4 else ("seat 0", "seat 1", "seat 2")
        lines.append(f"summary: {r.describe(sides, tuple(f'seat {i}' for i in range(s.players)))}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> TablePlaythrough:
    """Read the inputs back from a rendered playthrough (NotationError on a bad file)."""
    fields: dict[str, str] = {}
    moves: list[int] = []
    in_moves = False
    lines = text.splitlines()
    if not lines or lines[0] != HEADER:
        raise NotationError(f"not a table playthrough: the first line must be {HEADER!r}")
    for line in lines[1:]:
        if line == "moves:":
            in_moves = True
        elif in_moves and not line.startswith("result:"):
            parts = line.split()
            if len(parts) < 5:
                raise NotationError(f"malformed move line: {line!r}")
            moves.append(parse_table_move(parts[4]))
        else:
            in_moves = False
            key, _, value = line.partition(": ")
            fields[key] = value
    try:
        options = table_options_from_wire(json.loads(fields["options"]))
        if not isinstance(options, BiddingOptions):
            raise NotationError("a table playthrough is of a bidding game")
        deck = tuple(parse_card_id(c) for c in fields["deck"].split())
        return TablePlaythrough(fields["title"], options, int(fields["dealer"]), deck, tuple(moves))
    except (KeyError, ValueError, RuleOptionError) as exc:
        raise NotationError(f"malformed table playthrough: {exc}") from exc
