"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012).

PIMC (``strong``'s default search) scores each move in each guessed world as
if both players could see that world, then averages: it fuses strategies
that no player could follow and cannot value keeping options open. ISMCTS
grows one tree over the moves of both players instead, keyed by what was
played rather than by the hidden cards. Each iteration deals a fresh world
consistent with what the seat knows, walks the tree through moves legal in
that world (choosing by UCB with availability counts, so a move seen only in
some worlds is judged fairly), adds one node, plays out with the policy and
backs up the utility of the result. The most visited move at the root wins.
Measured against the ``schnapsen`` package's RdeepBot under ``vu`` it wins
about five points more deals than PIMC (``scripts/bench_bots.py``).
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from p2p66.bots.api import Turn, same_hand
from p2p66.bots.playout import policy_move
from p2p66.bots.solver import searched_codes, terminal_value
from p2p66.engine.moves import DECLARE
from p2p66.engine.state import HandState, Phase

EXPLORATION = 0.5  # UCB constant; 0.4 and 0.7 measured alike against RdeepBot


class _Node:
    """A move sequence from the root: visits, summed utility, and how often it was legal."""

    __slots__ = ("available", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.available = 1


def ismcts(
    sample: Callable[[random.Random], HandState],
    me: int,
    worth: Mapping[int, float],
    rng: random.Random,
    *,
    deadline: float | None = None,
    iterations: int | None = None,
    exploration: float = EXPLORATION,
    finish: Callable[[HandState], int] | None = None,
    root: _Node | None = None,
) -> tuple[int, int]:
    """The move to play for seat ``me`` and the number of iterations run.

    ``sample`` deals a world for the seat; ``worth`` maps signed game points
    (for ``me``) to utility in [0, 1]. The search stops at ``deadline`` (a
    ``time.perf_counter()`` instant) or after ``iterations``, whichever is given.
    ``finish`` values the world at a new leaf (game points for seat 0, playing on
    in place); by default the policy plays it out. ``root`` continues a tree
    grown before (``Tree.root_for``): its visits count as iterations already
    run, beside the ``iterations`` of this call.
    """
    search = _Search(me, 1 if me == 0 else -1, worth, rng, exploration, finish or policy_value)
    root = root if root is not None else _Node()
    done = 0
    # The tree has no cycles, so reference counting frees it. Left to the cyclic
    # collector, its thousands of young nodes are scanned (and promoted) in a
    # pause that can cost half a move's budget: collect nothing until it is gone.
    collecting = gc.isenabled()
    gc.disable()
    try:
        while True:
            if iterations is not None and done >= iterations:
                break
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            search.iterate(root, sample(rng))
            done += 1
        best = max(root.children.items(), key=lambda item: item[1].visits)[0]
        del root, search  # a kept tree (``Tree``) lives on in its caller's reference
    finally:
        if collecting:
            gc.enable()
    return best, done


class Tree:
    """One seat's search tree kept between its decisions of a hand (tree reuse).

    The tree is keyed by moves, so after this seat's move and the opponent's
    replies the node they lead to is the root of the next search: the visits
    below it were spent on the position now reached.
    """

    __slots__ = ("_root", "_turn")

    def __init__(self) -> None:
        self._root: _Node | None = None
        self._turn: Turn | None = None  # the decision the kept root was searched for

    def keep(self, root: _Node, turn: Turn) -> None:
        self._root, self._turn = root, turn

    def root_for(self, turn: Turn) -> _Node:
        """The kept node this turn's public moves lead to, or a fresh root (another hand or
        seat, nothing kept, or play that left the tree)."""
        node, kept = self._root, self._turn
        self._root = self._turn = None
        if node is None or kept is None or not same_hand(turn, kept):
            return _Node()
        for pm in turn.moves[len(kept.moves) :]:
            node = node.children.get(pm.move.code)
            if node is None:
                return _Node()
        node.children.pop(DECLARE, None)  # never a root move (see _moves): not one now either
        return node


def policy_value(world: HandState) -> int:
    """Game points for seat 0 when the policy plays ``world`` out (in place)."""
    while world.phase != Phase.OVER:
        world.apply_code_unchecked(policy_move(world))
    return terminal_value(world)


def _moves(world: HandState, at_root: bool) -> list[int]:
    codes = searched_codes(world)
    if at_root and DECLARE in codes and len(codes) > 1:
        codes.remove(DECLARE)  # a false declaration is never the best root move
    return codes


@dataclass(frozen=True, slots=True)
class _Search:
    me: int
    sign: int
    worth: Mapping[int, float]
    rng: random.Random
    exploration: float
    finish: Callable[[HandState], int]

    def iterate(self, root: _Node, world: HandState) -> None:
        """One iteration in one dealt world: select, expand one node, play out, back up."""
        me, rng, exploration = self.me, self.rng, self.exploration
        node = root
        path = [root]
        while world.phase != Phase.OVER:
            codes = _moves(world, node is root)
            untried = [code for code in codes if code not in node.children]
            for code in codes:
                child = node.children.get(code)
                if child is not None:
                    child.available += 1
            if untried:
                code = rng.choice(untried)
                child = _Node()
                node.children[code] = child
                world.apply_code_unchecked(code)
                path.append(child)
                break
            mine = world.to_act == me
            best_code, best_score = codes[0], -math.inf
            for code in codes:
                child = node.children[code]
                mean = child.total / child.visits
                score = (mean if mine else 1.0 - mean) + exploration * math.sqrt(
                    math.log(child.available) / child.visits
                )
                if score > best_score:
                    best_code, best_score = code, score
            world.apply_code_unchecked(best_code)
            node = node.children[best_code]
            path.append(node)
        utility = self.worth[self.sign * self.finish(world)]
        for visited in path:
            visited.visits += 1
            visited.total += utility
