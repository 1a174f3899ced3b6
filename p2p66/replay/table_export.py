"""``replay export`` (and ``show``) for the games for three and four players.

The same shape as the two-player export: tag pairs for the match, then per
hand its dealer, the audited deck with every seat's cards (and the
cut-throat widow), the calls and the tricks in RULES.md notation with who
played each card, and the hand's result. Cards a hand never showed (the moon
partner's, or all of them in a hand cut short before its seeds) are given
only once the hand was audited.
"""

from __future__ import annotations

import json
from typing import Any

from p2p66.engine.cards import CARD_CODES
from p2p66.engine.moves import MARRY_BASE
from p2p66.engine.table import BiddingHand, BiddingOptions
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.replay.report import Report, TableHandSummary, score_line
from p2p66.replay.verify import Verification
from p2p66.session.handplay import HandTable
from p2p66.session.tablegame import TableGame
from p2p66.ui.escape import printable


def _tag(name: str, value: object) -> str:
    text = printable(str(value).replace("\\", "\\\\").replace('"', '\\"'))
    return f'[{name} "{text}"]'


def table_result(report: Report) -> str:
    """The winning side (``side 1``), or ``*`` when no side won."""
    return "*" if report.winner is None else f"side {report.winner}"


def _dealt(hand: HandTable, seat: int) -> list[int]:
    assert hand.deck is not None
    return sorted(hand.deck[p] for p, t in enumerate(hand.config.deal) if t == seat)


def _widow(hand: HandTable) -> list[int]:
    if hand.deck is None or not isinstance(hand.options, BiddingOptions):
        return []
    return [hand.deck[p] for p, t in enumerate(hand.config.deal) if t < 0]


def _trick_size(table: TableGame, hand: HandTable) -> int:
    if table.three_handed:
        return 2
    state = hand.final if hand.final is not None else hand.state
    assert isinstance(state, BiddingHand)
    return state.active_seats


def _lines_of_moves(table: TableGame, hand: HandTable, names: tuple[str, ...]) -> list[str]:
    """The calls on one line, then one numbered line per trick (marriages, exchanges inside)."""
    lines: list[str] = []
    moves = list(zip(hand.authors, hand.public.moves, strict=True))
    size = _trick_size(table, hand)
    ncalls = 0
    if not table.three_handed:
        while ncalls < len(moves) and moves[ncalls][1] >= 2 * MARRY_BASE:
            ncalls += 1
    if ncalls:
        called = moves[:ncalls]
        lines.append("Calls: " + "  ".join(f"{names[a]} {TABLE_NOTATION[c]}" for a, c in called))
    trick: list[str] = []
    cards = 0
    number = 0
    for author, code in moves[ncalls:]:
        trick.append(f"{names[author]} {TABLE_NOTATION[code]}")
        if code < 2 * MARRY_BASE:
            cards += 1
        if cards == size:
            number += 1
            lines.append(f"{number}. " + "  ".join(trick))
            trick, cards = [], 0
    if trick:
        lines.append(f"{number + 1}. " + "  ".join(trick))
    return lines


def _summary(report: Report, number: int) -> TableHandSummary | None:
    return next((h for h in report.table_hands if h.number == number), None)


def export_table_text(verification: Verification) -> str:
    """A match of three or four as tag pairs and move text."""
    report, machine = verification.report, verification.machine
    table = machine.table
    assert table is not None and report.table is not None
    names = tuple(report.name(s) for s in range(machine.seats))
    lines = [_tag("Event", "p2p66 match"), _tag("Date", "????.??.??")]
    lines += [_tag(f"Seat{s}", name) for s, name in enumerate(names)]
    lines += [_tag(f"Seat{p.seat}Key", p.fingerprint) for p in report.players]
    rules = report.rules_json()
    assert rules is not None
    lines.append(_tag("Preset", rules["preset"]))
    lines.append(_tag("Options", json.dumps(report.table.to_dict(), sort_keys=True)))
    lines.append(_tag("Soundness", report.soundness))
    if report.session_id is not None:
        lines.append(_tag("Session", report.session_id.hex()))
    if report.first_dealer is not None:
        lines.append(_tag("FirstDealer", names[report.first_dealer]))
    lines.append(_tag("Scores", score_line(report.scores)))
    lines.append(_tag("Verified", report.status.value))
    lines.append(_tag("Result", table_result(report)))
    for hand in machine.hands:
        summary = _summary(report, hand.number)
        if summary is None:
            continue
        lines.append("")
        lines += table_hand_lines(table, hand, names, summary, report.stop_note())
    lines.append("")
    lines.append(f"{table_result(report)} {{{report.headline()}}}")
    return "\n".join(lines) + "\n"


def table_hand_lines(
    table: TableGame,
    hand: HandTable,
    names: tuple[str, ...],
    summary: TableHandSummary,
    note: str,
) -> list[str]:
    """One hand: dealer, deal (once audited), calls and tricks, the result."""
    lines = [_tag("Hand", hand.number), _tag("Dealer", names[hand.table_dealer])]
    if hand.deck is not None:
        lines.append(_tag("Deck", " ".join(CARD_CODES[c] for c in hand.deck)))
        for seat in range(len(names)):
            cards = " ".join(CARD_CODES[c] for c in _dealt(hand, seat))
            lines.append(_tag(f"Seat{seat}Cards", cards or "-"))
        widow = _widow(hand)
        if widow:
            lines.append(_tag("Widow", " ".join(CARD_CODES[c] for c in widow)))
    lines += _lines_of_moves(table, hand, names)
    lines.append(f"{{{summary.outcome if summary.outcome is not None else note}}}")
    return lines


def export_table_json(verification: Verification) -> dict[str, Any]:
    """A match of three or four as the versioned ``p2p66-game`` document."""
    report, machine = verification.report, verification.machine
    summary = report.to_json()
    hands = []
    for hand in machine.hands:
        log = verification.logs.get(hand.number)
        if log is None or not log.records:
            continue
        deal = None
        if hand.deck is not None:
            deal = {
                "deck": [CARD_CODES[c] for c in hand.deck],
                "hands": [[CARD_CODES[c] for c in _dealt(hand, s)] for s in range(machine.seats)],
                "widow": [CARD_CODES[c] for c in _widow(hand)],
            }
        hs = _summary(report, hand.number)
        hands.append(
            {
                "number": hand.number,
                "dealer": hand.table_dealer,
                "deal": deal,
                "moves": [
                    {"seat": a, "move": TABLE_NOTATION[c], "record": r}
                    for (a, c), r in zip(
                        zip(hand.authors, hand.public.moves, strict=True), log.moves, strict=False
                    )
                ],
                "outcome": None if hs is None else hs.outcome,
                "scores": None if hs is None or hs.scores is None else list(hs.scores),
            }
        )
    return {
        "format": "p2p66-game",
        "version": 1,
        "players": summary["players"],
        "rules": summary["rules"],
        "session_id": summary["session_id"],
        "first_dealer": report.first_dealer,
        "result": table_result(report),
        "hands": hands,
        "verification": summary,
    }


def table_show_sections(
    verification: Verification, seat: int | None
) -> list[tuple[int | None, bool, list[str]]]:
    """``replay show`` of a table game: (hand, is-a-trick, lines) in order.

    ``seat`` None shows every seat's cards; a seat sees only its own (and the
    widow once it was shown to all); the moves are public to everybody.
    """
    report, machine = verification.report, verification.machine
    table = machine.table
    assert table is not None
    names = tuple(report.name(s) for s in range(machine.seats))
    out: list[tuple[int | None, bool, list[str]]] = []
    for hand in machine.hands:
        summary = _summary(report, hand.number)
        if summary is None:
            continue
        head = [f"Hand {hand.number}, dealer {names[hand.table_dealer]}:"]
        if hand.deck is not None:
            for s in range(machine.seats):
                if seat is None or seat == s:
                    cards = " ".join(CARD_CODES[c] for c in _dealt(hand, s)) or "none"
                    head.append(f"  {names[s]} holds {cards}")
            widow = _widow(hand)
            if widow and (seat is None or hand.state.widow_taker >= 0):
                head.append(f"  widow: {' '.join(CARD_CODES[c] for c in widow)}")
        out.append((hand.number, False, head))
        for line in _lines_of_moves(table, hand, names):
            out.append((hand.number, not line.startswith("Calls"), [f"  {line}"]))
        outcome = summary.outcome if summary.outcome is not None else report.stop_note()
        out.append((hand.number, False, [f"  {outcome}"]))
    return out
