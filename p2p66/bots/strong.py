"""``strong``: determinised search over the hidden cards, within a time budget.

Two searches share the card inference and the endgame: PIMC, described
here, and ISMCTS (``ismcts.py``); ``StrongBot`` picks one by the rules.

Each iteration deals the hidden cards at random, consistent with everything
the seat has seen and inferred (``knowledge.WorldSampler``), then scores
every candidate move in that perfect-information world: exactly with the
alpha-beta ``Solver`` when the talon is closed (and for the ``close`` move
itself), otherwise by a fast policy playout to the end of the hand. The move
with the best average match equity over all worlds is played. The solved
moves race (``race.py``, ``race=Z``, Z 2 by default): one shown worse than
the best by Z standard errors on the same worlds is no longer scored. The
exact solve of a ``close`` costs most of a world, so dropping a bad close
buys several times the worlds. With ``solve=N``, once at most N cards are
left in the talon, whichever search is used, the few worlds still possible
are listed and each is solved exactly (``_every_world``); it is off by
default, as measured (``SOLVE_TALON``).
With ``endgame=N`` both searches finish a playout with the solver once the
talon is gone and at most N cards are left in each hand; with ``infer`` the
worlds are drawn by how well they explain the opponent's lead
(``inference.py``); with ``model`` by how well they explain every decision
the opponent made since this seat's previous one, judged by the expert's
policy (``opponent_model.py``); with ``reuse`` ISMCTS goes on with the tree
of this seat's previous decision (``ismcts.Tree``).
Once the talon is exhausted nothing is hidden any more: ``ExploitSolver``
plays exactly, and where the hand is lost against perfect play it keeps the
most chances that the opponent errs.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Literal

from p2p66.bots.api import Action, Bot, Turn
from p2p66.bots.equity import utilities
from p2p66.bots.expert import decide
from p2p66.bots.exploit import ExploitSolver
from p2p66.bots.inference import lead_likelihood
from p2p66.bots.ismcts import Tree, ismcts
from p2p66.bots.knowledge import WorldSampler, knowledge_of
from p2p66.bots.opponent_model import policy_likelihood
from p2p66.bots.playout import policy_move
from p2p66.bots.race import Race
from p2p66.bots.solver import INF, OutOfTime, Solver, terminal_value
from p2p66.engine.moves import CLOSE, DECLARE, EXCHANGE, MOVES, PASS, Move
from p2p66.engine.state import HandState, Phase

SAFETY = 0.8  # share of the budget spent searching; the rest covers overheads
WIN_WINDOW = (-1, 1)  # a null window around a tie: the search proves win or loss
HARD_STOP = 0.9  # a world still being solved at this share of the budget is dropped
# From this talon size down every world is dealt and solved exactly (0: off). Off by default:
# at 2 it lost in sixty-six (samples=60 vs expert, 170 matches: 71.8% against 80.6% without,
# 12 against 27 of the matches that differ) and changed nothing under vu (282/400 either way).
# Again once the solver's table told closers apart: 211/300 against 235/300 matches vs expert.
SOLVE_TALON = 0
ALL_WORLDS = 24  # ... when at most this many are possible; else they are sampled (PIMC)
INFER = False  # weigh worlds by the likelihood of the opponent's lead (inference.py)
REUSE = False  # ISMCTS continues the tree of this seat's previous decision of the hand
MODEL = 0.0  # >0: weigh worlds by the opponent's recent decisions, a surprise counting MODEL
# PIMC stops solving a move (a close) this many standard errors worse than the best (race.py;
# 0: off). Against the strong of issue 18's filing commit, at equal time: 52.9% of 1386
# sixty-six deals, Elo +20 [+4, +36], SPRT(0, 20) accepted H1 (median worlds a move 36 -> 110).
RACE = 2.0
EPSILON = 0.25  # how often the endgame search expects the opponent to err (exploit.py)


Search = Literal["auto", "pimc", "ismcts"]
SEARCHES: dict[str, Search] = {"auto": "auto", "pimc": "pimc", "ismcts": "ismcts"}


class StrongBot(Bot):
    """PIMC or ISMCTS with card inference, policy playouts and an exact endgame solver.

    ``search="auto"`` picks by the rules: PIMC where the talon can be closed
    (its exact solver then settles closed worlds: 77% of matches against
    ``expert`` in Sixty-Six, ISMCTS 70%), ISMCTS where it cannot (under ``vu``
    it wins 72.5% of deals against RdeepBot, PIMC 67.8%).
    """

    name = "strong"

    def __init__(
        self,
        seed: int = 0,
        budget: float = 0.1,
        *,
        max_samples: int | None = None,
        endgame: int = 0,
        solve_talon: int = SOLVE_TALON,
        search: Search = "auto",
        infer: bool = INFER,
        model: float = MODEL,
        reuse: bool = REUSE,
        race: float = RACE,
    ) -> None:
        self.race = race
        self.reuse = reuse
        self._tree = Tree()  # ISMCTS's tree, kept for this seat's next decision
        self.infer = infer
        self.model = model
        self._previous: Turn | None = None  # this bot's last decision (the model's anchor)
        self._rng = random.Random(seed)
        self.endgame = endgame
        self.solve_talon = solve_talon
        self.search = search
        self.budget = budget
        self.max_samples = max_samples

    def choose(self, turn: Turn) -> Move | Action:
        previous, self._previous = self._previous, turn
        view = turn.view
        legal = [m.code for m in view.legal]
        if len(legal) == 1:
            return MOVES[legal[0]]
        if DECLARE in legal and view.my_points >= 66:
            return MOVES[DECLARE]  # game points only shrink while play goes on
        if view.phase in (Phase.MARRIAGE_DECLARE, Phase.FINAL_DECLARE):
            return MOVES[DECLARE if view.my_points >= 66 else PASS]
        if EXCHANGE in legal:
            return MOVES[EXCHANGE]
        started = time.perf_counter()
        budget = self.budget
        if turn.time_limit is not None:
            budget = min(budget, turn.time_limit)
        deadline = started + budget * SAFETY
        know = knowledge_of(turn)
        sampler = WorldSampler(turn, know, self._likelihood(turn, previous))
        worth = utilities(view.options, turn.match_points, view.seat)
        if know.talon_size == 0:
            exact = ExploitSolver(view.seat, worth, EPSILON)
            code, equity = exact.best_move(sampler.sample(self._rng))
            return Action(MOVES[code], {"equity": round(equity, 3), "exact": True})
        hard_stop = None if self.max_samples is not None else started + budget * HARD_STOP
        candidates = [c for c in legal if c != DECLARE]
        if 0 < know.talon_size <= self.solve_talon and sampler.count() <= ALL_WORLDS:
            late = self._every_world(sampler, view.seat, worth, candidates, hard_stop)
            if late is not None:
                return late
        if self.search == "ismcts" or (self.search == "auto" and not view.options.allow_close):
            root = self._tree.root_for(turn) if self.reuse else None
            code, iterations = ismcts(
                sampler.sample,
                view.seat,
                worth,
                self._rng,
                deadline=None if self.max_samples is not None else deadline,
                iterations=self.max_samples,
                finish=_finisher(self.endgame, worth),
                root=root,
            )
            if root is not None:
                self._tree.keep(root, turn)
            return Action(MOVES[code], {"iterations": iterations})
        # Only a solved candidate is worth racing: a card's playout costs next to nothing,
        # so dropping it would buy no worlds, only the risk of dropping the best move.
        solved_all = not know.talon_open or know.talon_size <= self.solve_talon
        costly = candidates if solved_all else [c for c in candidates if c == CLOSE]
        return self._pimc(sampler, view.seat, worth, (candidates, costly), (deadline, hard_stop))

    def _likelihood(self, turn: Turn, previous: Turn | None) -> Callable[[HandState], float] | None:
        """How the worlds are weighed: by the opponent's recent choices, its lead, or not."""
        if self.model:
            return policy_likelihood(turn, previous, decide, self.model)
        if self.infer:
            return lead_likelihood(turn)
        return None

    def _every_world(
        self,
        sampler: WorldSampler,
        seat: int,
        worth: dict[int, float],
        candidates: list[int],
        hard_stop: float | None,
    ) -> Action | None:
        """Late in a hand few worlds are left: solve every one exactly, average the utility.

        No sampling noise and no playout policy remain, only PIMC's strategy fusion (small
        here: the next tricks empty the talon and everything is known). Out of time, the
        worlds solved so far decide; None if there was time for none.
        """
        sign = 1 if seat == 0 else -1
        window = WIN_WINDOW if _only_winning(worth) else None
        worlds = sampler.every_world()
        totals = dict.fromkeys(candidates, 0.0)
        solved = 0
        for world in worlds:
            try:
                scores = evaluate(
                    world,
                    candidates,
                    solve_talon=world.talon_left,
                    deadline=hard_stop,
                    window=window,
                )
            except OutOfTime:
                break
            for code, score in scores.items():
                totals[code] += worth[int(sign * score)]
            solved += 1
        if not solved:
            return None
        best = max(candidates, key=lambda c: totals[c])
        info: dict[str, str | int | float | bool] = {
            "equity": round(totals[best] / solved, 3),
            "worlds": solved,
            "exact": solved == len(worlds),
        }
        return Action(MOVES[best], info)

    def _pimc(
        self,
        sampler: WorldSampler,
        seat: int,
        worth: dict[int, float],
        moves: tuple[list[int], list[int]],
        stops: tuple[float, float | None],
    ) -> Action:
        """Average each candidate's utility over worlds until the soft stop (or the sample cap).

        A world still being solved at the hard stop is dropped.
        """
        deadline, hard_stop = stops
        candidates, costly = moves
        sign = 1 if seat == 0 else -1
        window = WIN_WINDOW if _only_winning(worth) else None
        race = Race(candidates, self.race, costly=costly)
        worlds = 0
        slowest = 0.0
        while True:
            began = time.perf_counter()
            world = sampler.sample(self._rng)
            try:
                scores = evaluate(
                    world,
                    race.running,
                    endgame=self.endgame,
                    solve_talon=self.solve_talon,
                    deadline=hard_stop,
                    window=window,
                )
            except OutOfTime:
                if worlds:
                    break
                return Action(MOVES[policy_move(world)], {"worlds": 0})  # no time to search
            if race.record({code: worth[int(sign * score)] for code, score in scores.items()}):
                slowest = 0.0  # a dropped candidate no longer slows a world down
            worlds += 1
            now = time.perf_counter()
            slowest = max(slowest, now - began)
            if self.max_samples is not None:
                if worlds >= self.max_samples:
                    break
            elif now + slowest >= deadline:
                break
        best = race.best()
        info: dict[str, str | int | float | bool] = {
            "equity": round(race.mean(best), 3),
            "worlds": worlds,
        }
        if race.dropped():
            info["dropped"] = ",".join(MOVES[code].notation for code in race.dropped())
        return Action(MOVES[best], info)


def _finisher(endgame: int, worth: dict[int, float]) -> Callable[[HandState], int] | None:
    """ISMCTS's leaf value with ``endgame``: the policy's playout, solved exactly from
    ``endgame`` cards a hand once the talon is gone (None: the plain playout). One
    solver serves every world of the move: its table is keyed by whole positions,
    and the few cards of a late endgame recur across worlds. It has no deadline:
    one endgame costs well under a millisecond, and ISMCTS stops between iterations."""
    if not endgame:
        return None
    solver = Solver()
    window = WIN_WINDOW if _only_winning(worth) else (-INF, INF)

    def finish(world: HandState) -> int:
        return play_out(world, solver, endgame, window)

    return finish


def _only_winning(worth: dict[int, float]) -> bool:
    """A one-hand game, or a match's last hand: the solver then only proves win or loss,
    about three times faster than exact points."""
    return worth[1] == worth[3] and worth[-1] == worth[-3]


def evaluate(
    world: HandState,
    candidates: list[int],
    *,
    endgame: int = 0,
    solve_talon: int = SOLVE_TALON,
    deadline: float | None = None,
    window: tuple[int, int] | None = None,
) -> dict[int, float]:
    """Value for seat 0 of each candidate move in one perfect-information world.

    Closed positions, and open ones with at most ``solve_talon`` cards left
    in the talon, are solved exactly; the rest are played out by the policy,
    which hands over to the solver once the talon is closed or exhausted with
    at most ``endgame`` cards in each hand. Past ``deadline`` the solver
    raises ``OutOfTime``. With a ``window`` the solved values are only
    exact in their sign (what a win/lose utility needs).
    """
    low, high = window or (-INF, INF)
    out: dict[int, float] = {}
    solver = Solver(deadline)
    for code in candidates:
        child = world.copy()
        child.apply_code_unchecked(code)
        if child.phase != Phase.OVER and (child.closed or child.talon_left <= solve_talon):
            out[code] = solver.value(child, low, high)
            continue
        out[code] = play_out(child, solver, endgame, (low, high))
    return out


def play_out(
    world: HandState, solver: Solver, endgame: int, window: tuple[int, int] = (-INF, INF)
) -> int:
    """Game points for seat 0 at the end of ``world``, played on in place by the policy.

    Once the talon is closed or exhausted with at most ``endgame`` cards in the
    hand on lead, nothing is left to chance in this world and ``solver`` finishes
    it exactly (exact in its sign only, with a null ``window``).
    """
    while world.phase != Phase.OVER:
        if (
            not world.talon_open
            and world.lead_card < 0
            and world.hands[world.to_act].bit_count() <= endgame
        ):
            return solver.value(world, *window)
        world.apply_code_unchecked(policy_move(world))
    return terminal_value(world)
