"""Moves of the bidding games: the two-player codes plus ``bid:1`` .. ``bid:5``.

A card move keeps its two-player code (0-23 ``play:X``, 24-47 ``marry:X``)
and ``pass`` keeps ``PASS``, so bots, the UI and replays share one notation;
the bids take the codes after the two-player ones.
"""

from __future__ import annotations

import re
from typing import Final

from p2p66.engine.errors import NotationError
from p2p66.engine.moves import MOVE_NOTATION, NUM_MOVE_CODES, PASS, describe, parse_move_code

BID_BASE: Final = NUM_MOVE_CODES  # bid:N is BID_BASE + N - 1
MAX_BID: Final = 5
NUM_TABLE_CODES: Final = BID_BASE + MAX_BID
TABLE_NOTATION: Final = (*MOVE_NOTATION, *(f"bid:{n}" for n in range(1, MAX_BID + 1)))
_NOTATION_TO_CODE: Final = {n: i for i, n in enumerate(TABLE_NOTATION)}
_BID: Final = re.compile(r"^(?:bid|b)?\s*[: ]?\s*(?P<n>\d+)$")


def bid_code(n: int) -> int:
    """The code of ``bid:n`` (1..5)."""
    if not 1 <= n <= MAX_BID:
        raise NotationError(f"a bid is 1 to {MAX_BID}, not {n}")
    return BID_BASE + n - 1


def bid_of(code: int) -> int:
    """The number bid by a ``bid:N`` code, 0 for anything else."""
    return code - BID_BASE + 1 if BID_BASE <= code < NUM_TABLE_CODES else 0


def parse_table_move(text: str) -> int:
    """Canonical or lenient move text (``bid:2``, ``b2``, ``2``, ``pass``, ``ah``) to a code."""
    raw = text.strip()
    exact = _NOTATION_TO_CODE.get(raw)
    if exact is not None:
        return exact
    low = " ".join(raw.lower().split())
    bid = _BID.match(low)
    if bid:
        return bid_code(int(bid.group("n")))
    try:
        return parse_move_code(raw)
    except NotationError:
        raise NotationError(
            f"{text!r} is not a move: expected 'bid:N' (N = 1..5, or just N), 'pass', "
            f"a card (e.g. 'AH', '10h') or 'marry:QH' (or 'm qh')"
        ) from None


def describe_table_move(code: int) -> str:
    """Short human description, e.g. 'bid 2 (66 points)'."""
    n = bid_of(code)
    if n == MAX_BID:
        return "bid the moon (play alone, all six tricks)"
    if n:
        return f"bid {n} ({33 * n} points)"
    if code == PASS:
        return "pass"
    return describe(code)
