"""Exact perfect-information search: alpha-beta with a transposition table.

Used once nothing is hidden: the talon is exhausted (the opponent's hand is
then the unseen cards), or inside one determinisation of a search bot, where
the guessed world is perfect information by construction. Values are game
points signed for seat 0 (+3 .. -3); a tie under ``unclaimed_end = points``
is 0.

Two prunings are exact, not heuristic: a player on lead with 66 or more
declares at once (game points for the winner only shrink while the loser
keeps taking tricks, and the closer's are frozen at the close), and a false
declaration is a leaf, so it is searched (it can beat losing schwarz).
"""

from __future__ import annotations

from time import perf_counter
from typing import Final

from p2p66.engine.cards import CARD_POINTS
from p2p66.engine.moves import CLOSE, DECLARE, DRAW, EXCHANGE, MARRY_BASE, PASS
from p2p66.engine.state import HandState, Phase

_EXACT: Final = 0
_LOWER: Final = 1
_UPPER: Final = 2
INF: Final = 100

TTEntry = tuple[int, int, int]  # (flag, value, best move)


def terminal_value(state: HandState) -> int:
    """Game points of a finished hand, signed for seat 0."""
    result = state.result
    if result is None or result.winner is None:
        return 0
    return result.game_points if result.winner == 0 else -result.game_points


def solver_key(s: HandState) -> tuple[int, ...]:
    """Everything the rest of the hand depends on (the table's key: one entry per position).

    A closed talon scores by who closed and what the other seat had then
    (``close_snapshot``); positions that differ only in those are not the same.
    """
    score, held, tricks = s.score, s.held, s.tricks
    snapshot = s.close_snapshot
    return (
        s.hands[0],
        s.hands[1],
        s.to_act,
        s.phase,
        s.lead_card,
        score[0],
        score[1],
        held[0],
        held[1],
        (tricks[0] > 0) | (tricks[1] > 0) << 1,
        s.talon_left,
        s.closed,
        s.trump_card,
        s.stock_pos,
        s.closer,
        snapshot[0],
        snapshot[1],
        snapshot[2],
    )


class OutOfTime(Exception):
    """A search passed its deadline; its partial result is worthless and is dropped."""


class Solver:
    """Alpha-beta over the engine's fast path; keep one instance per determinisation.

    ``nodes`` counts searched positions, for benchmarks and budgets. With a
    ``deadline`` (a ``time.perf_counter()`` instant) the search raises
    ``OutOfTime`` once past it, so a bot's move never runs over its budget.
    """

    def __init__(self, deadline: float | None = None) -> None:
        self.table: dict[tuple[int, ...], TTEntry] = {}
        self.nodes = 0
        self.deadline = deadline

    def value(self, state: HandState, alpha: int = -INF, beta: int = INF) -> int:
        """Exact game-point value for seat 0 (within the window ``alpha``..``beta``)."""
        return self._search(state, alpha, beta)

    def move_values(self, state: HandState) -> dict[int, int]:
        """Exact value (for seat 0) of every legal move at ``state``."""
        out: dict[int, int] = {}
        for code in state.legal_codes():
            child = state.copy()
            child.apply_code_unchecked(code)
            out[code] = self._search(child, -INF, INF)
        return out

    def best_move(self, state: HandState) -> tuple[int, int]:
        """The best move for the player to act and its value for seat 0.

        The first legal move that reaches the best value, as ``move_values``
        would pick, but each later move is only asked whether it beats the
        best so far (a null window; values are whole game points) and solved
        exactly only when it does: a few times cheaper than every value.
        """
        sign = 1 if state.to_act == 0 else -1
        best_code, best = -1, -INF  # best: the value for the player to act
        for code in state.legal_codes():
            child = state.copy()
            child.apply_code_unchecked(code)
            if best_code < 0:
                best_code, best = code, self._for_mover(child, sign, -INF, INF)
            elif self._for_mover(child, sign, best, best + 1) > best:
                best_code, best = code, self._for_mover(child, sign, best, INF)
        return best_code, sign * best

    def _for_mover(self, child: HandState, sign: int, low: int, high: int) -> int:
        """``child``'s value within ``low``..``high`` for the player whose sign is ``sign``."""
        if sign == 1:
            return self._search(child, low, high)
        return -self._search(child, -high, -low)

    def _search(self, s: HandState, alpha: int, beta: int) -> int:
        if s.phase == Phase.OVER:
            return terminal_value(s)
        self.nodes += 1
        if self.deadline is not None and not self.nodes & 63 and perf_counter() > self.deadline:
            raise OutOfTime
        key = solver_key(s)
        entry = self.table.get(key)
        best_hint = -1
        if entry is not None:
            flag, val, best_hint = entry
            if flag == _EXACT:
                return val
            if flag == _LOWER:
                if val >= beta:
                    return val
                alpha = max(alpha, val)
            elif val <= alpha:
                return val
            else:
                beta = min(beta, val)
        alpha0, beta0 = alpha, beta
        maximizing = s.to_act == 0
        best = -INF if maximizing else INF
        best_code = -1
        for code in _ordered(s, best_hint):
            child = s.copy()
            child.apply_code_unchecked(code)
            v = (
                terminal_value(child)
                if child.phase == Phase.OVER
                else self._search(child, alpha, beta)
            )
            if maximizing:
                if v > best:
                    best, best_code = v, code
                    alpha = max(alpha, v)
            elif v < best:
                best, best_code = v, code
                beta = min(beta, v)
            if alpha >= beta:
                break
        if best <= alpha0:
            flag = _UPPER
        elif best >= beta0:
            flag = _LOWER
        else:
            flag = _EXACT
        self.table[key] = (flag, best, best_code)
        return best


def searched_codes(s: HandState) -> list[int]:
    """Legal moves, except that a player with 66 declares at once (the exact pruning above)."""
    codes = s.legal_codes()
    if DECLARE in codes and s.score[s.to_act] >= 66:
        return [DECLARE]
    return codes


def _ordered(s: HandState, hint: int) -> list[int]:
    """Legal moves, best-first guesses, with the exact declare prunings applied."""
    codes = searched_codes(s)
    phase = s.phase
    if DECLARE in codes:
        if len(codes) == 1:
            return codes
        if phase != Phase.LEAD:
            return codes  # [DECLARE, PASS]: both are searched
    if phase == Phase.FOLLOW:
        lead = s.lead_card
        trump = s.trump_suit

        def follow_rank(c: int) -> int:
            wins = (c // 6 == lead // 6 and c < lead) or (c // 6 == trump and lead // 6 != trump)
            return (0 if wins else 100) - CARD_POINTS[c] if wins else 100 + CARD_POINTS[c]

        codes.sort(key=follow_rank)
    elif phase == Phase.LEAD:
        codes.sort(key=_lead_rank)
    if hint >= 0 and hint in codes:
        codes.remove(hint)
        codes.insert(0, hint)
    return codes


def _lead_rank(code: int) -> int:
    if code == DECLARE:
        return 1000  # a false declaration: searched last
    if code >= MARRY_BASE and code < EXCHANGE:
        return -50
    if code in (EXCHANGE, CLOSE, DRAW, PASS):
        return -40
    return -CARD_POINTS[code]
