"""Match equity: what a hand's result is worth for winning the match.

A bot that maximises game points plays the same at 0-0 and at 6-6; one that
maximises the chance of winning the match does not (at 6-6 one game point is
as good as three). ``MatchEquity`` turns a signed hand result (game points,
+ for me) into my probability of winning the match afterwards, assuming
even play from there: each hand a coin flip, with the game-point
distribution measured in expert-against-expert play. In a one-hand game
(``match_target = 1``) it is simply: win = 1, loss = 0.
"""

from __future__ import annotations

from functools import cache

from p2p66.engine.options import RuleOptions

# Share of hands won by 1, 2 and 3 game points (expert vs expert, 600 hands each).
GP_SHARE = {24: (0.59, 0.37, 0.04), 20: (0.56, 0.38, 0.06)}


@cache
def _win_chance(mine: int, theirs: int, share: tuple[float, float, float]) -> float:
    """P(I win the match) needing ``mine`` points against ``theirs``, hands even."""
    if mine <= 0:
        return 1.0
    if theirs <= 0:
        return 0.0
    total = 0.0
    for gp, p in enumerate(share, start=1):
        total += (
            0.5
            * p
            * (_win_chance(mine - gp, theirs, share) + _win_chance(mine, theirs - gp, share))
        )
    return total


def utilities(options: RuleOptions, match_points: tuple[int, int], seat: int) -> dict[int, float]:
    """Utility (match-win chance) of each signed hand result -3..3 for ``seat``."""
    share = GP_SHARE[options.deck_size]
    target = options.match_target
    mine = target - match_points[seat]
    theirs = target - match_points[1 - seat]
    out = {0: _win_chance(mine, theirs, share)}
    for gp in (1, 2, 3):
        out[gp] = _win_chance(mine - gp, theirs, share)
        out[-gp] = _win_chance(mine, theirs - gp, share)
    return out
