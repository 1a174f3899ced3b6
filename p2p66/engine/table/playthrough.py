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
from p2p66.engine.moves import MOVE_NOTATION, parse_move_code
from p2p66.engine.playthrough import read_sections
from p2p66.engine.table.bidding import BiddingHand, TablePhase, new_bidding_hand
from p2p66.engine.table.moves import TABLE_NOTATION, parse_table_move
from p2p66.engine.table.options import (
    BiddingOptions,
    ThreeHandedOptions,
    table_label,
    table_options_from_wire,
    table_preset_name,
)
from p2p66.engine.table.three import ThreeHandedMatch

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


def _preset_text(options: BiddingOptions | ThreeHandedOptions) -> str:
    return table_preset_name(options) or f"custom ({table_label(options)})"


def render(play: TablePlaythrough) -> str:
    """The playthrough as text; raises IllegalMoveError if a move is illegal."""
    s = new_bidding_hand(play.options, play.deck, play.dealer)
    lines = [
        HEADER,
        f"title: {play.title}",
        f"preset: {_preset_text(play.options)}",
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
    fields, move_texts = read_sections(text, HEADER, "a table playthrough")
    moves = [parse_table_move(m) for m in move_texts]
    try:
        options = table_options_from_wire(json.loads(fields["options"]))
        if not isinstance(options, BiddingOptions):
            raise NotationError("a table playthrough is of a bidding game")
        deck = tuple(parse_card_id(c) for c in fields["deck"].split())
        return TablePlaythrough(fields["title"], options, int(fields["dealer"]), deck, tuple(moves))
    except (KeyError, ValueError, RuleOptionError) as exc:
        raise NotationError(f"malformed table playthrough: {exc}") from exc


THREE_HEADER = "# p2p66 three-handed playthrough v1"


@dataclass(frozen=True, slots=True)
class ThreeHandedPlaythrough:
    """A whole three-handed match: its options, first dealer, and each deal's deck and moves."""

    title: str
    options: ThreeHandedOptions
    first_dealer: int
    deals: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]  # (deck, move codes) per hand


def render_three(play: ThreeHandedPlaythrough) -> str:
    """The match as text, hand by hand; raises IllegalMoveError if a move is illegal."""
    match = ThreeHandedMatch(play.options, play.first_dealer)
    lines = [
        THREE_HEADER,
        f"title: {play.title}",
        f"preset: {_preset_text(play.options)}",
        f"options: {json.dumps(play.options.to_dict(), sort_keys=True)}",
        f"first_dealer: {play.first_dealer}",
    ]
    for deck, moves in play.deals:
        deal = match.new_hand(deck)
        left, right = deal.players
        lines.append(
            f"hand {match.hand_number}: dealer {deal.dealer} sits out; seat {left} leads "
            f"against seat {right}"
        )
        lines.append(f"  deck: {' '.join(CARD_CODES[c] for c in deck)}")
        for code in moves:
            deal = deal.apply(code)
        lines.append(f"  moves: {' '.join(MOVE_NOTATION[c] for c in moves)}")
        r = deal.result
        if r is None:
            lines.append("  result: unfinished")
            break
        match = match.record(deal)
        gained = match.results[-1].gained
        lines.append(
            f"  result: winner={deal.winner} how={r.how.value} game_points={r.game_points} "
            f"gained={'/'.join(map(str, gained))} scores={'/'.join(map(str, match.scores))} "
            f"carry={match.carry}"
        )
    places = "/".join(map(str, match.standings()))
    lines.append(f"result: winner={match.winner} places={places}")
    return "\n".join(lines) + "\n"


def parse_three(text: str) -> ThreeHandedPlaythrough:
    """Read the inputs back from a rendered three-handed playthrough."""
    lines = text.splitlines()
    if not lines or lines[0] != THREE_HEADER:
        raise NotationError(
            f"not a three-handed playthrough: the first line must be {THREE_HEADER!r}"
        )
    fields: dict[str, str] = {}
    decks: list[tuple[int, ...]] = []
    moves: list[tuple[int, ...]] = []
    try:
        for line in lines[1:]:
            key, _, value = line.strip().partition(": ")
            if key == "deck":
                decks.append(tuple(parse_card_id(c) for c in value.split()))
            elif key == "moves":
                moves.append(tuple(parse_move_code(m) for m in value.split()))
            elif not line.startswith(" "):
                fields[key] = value
        options = table_options_from_wire(json.loads(fields["options"]))
        if not isinstance(options, ThreeHandedOptions):
            raise NotationError("a three-handed playthrough is of three-handed")
        if len(decks) != len(moves):
            raise NotationError("every hand needs its deck and its moves")
        return ThreeHandedPlaythrough(
            fields["title"],
            options,
            int(fields["first_dealer"]),
            tuple(zip(decks, moves, strict=True)),
        )
    except (KeyError, ValueError, RuleOptionError) as exc:
        raise NotationError(f"malformed three-handed playthrough: {exc}") from exc
