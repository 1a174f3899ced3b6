"""Each verified hand as a sequence of engine states, for ``replay show`` and ``export``.

A hand whose seeds were revealed is rebuilt exactly: the audited deck, the
canonical deal layout and the engine re-running every move. A hand without
its seeds (the game stopped mid-hand) is rebuilt from public knowledge only:
the cards opened to everyone are in place and the rest is filler, so only
public facts (cards played, tricks, points, marriages, the trump card) may
be shown from it; ``exact`` says which kind a story is.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.engine import HandResult, HandState, Phase, RuleOptions, new_hand
from p2p66.engine.cards import cards_of
from p2p66.engine.partial import PartialHand
from p2p66.replay.verify import Verification


@dataclass(frozen=True, slots=True)
class Step:
    """One move: who made it, its code, the record that carried it, the states around it."""

    seat: int
    code: int
    record: int | None
    before: HandState
    after: HandState

    @property
    def ends_trick(self) -> bool:
        return self.before.phase == Phase.FOLLOW

    def draws(self) -> list[tuple[int, list[int]]]:
        """Who drew which cards after this move, the trick's winner first (none: no draw)."""
        before, after = self.before, self.after
        if after.talon_left >= before.talon_left:
            return []
        winner = after.leader
        out = []
        for seat in (winner, 1 - winner):
            new = after.hands[seat] & ~before.hands[seat]
            out.append((seat, [c.id for c in cards_of(new) if c.id != self.code]))
        return out


@dataclass(frozen=True, slots=True)
class HandStory:
    number: int
    dealer: int
    options: RuleOptions
    exact: bool
    deck: tuple[int, ...] | None
    start: HandState
    steps: tuple[Step, ...]
    result: HandResult | None
    game_points: tuple[int, int] | None

    def tricks(self) -> list[list[Step]]:
        """Moves grouped by trick: from the lead (with any exchange, close or declaration
        before it) through the follow and the decisions right after it."""
        groups: list[list[Step]] = []
        current: list[Step] = []
        done = False
        for step in self.steps:
            if done and step.before.phase == Phase.LEAD:
                groups.append(current)
                current, done = [], False
            current.append(step)
            done = done or step.ends_trick
        if current:
            groups.append(current)
        return groups


def hand_stories(verification: Verification) -> list[HandStory]:
    """Every hand of a verified replay that got as far as a complete deal."""
    report = verification.report
    out = []
    for summary in report.hands:
        table = verification.table(summary.number)
        if table is None or table.dealing:
            continue
        log = verification.logs.get(summary.number)
        records: list[int | None] = list(log.moves) if log is not None else []
        if table.deck is not None:
            start = new_hand(table.options, table.deck, table.dealer)
        else:
            partial = PartialHand(table.options, table.dealer)
            partial.known = list(table.public.known)
            start = partial.state()
        steps = []
        state = start
        for i, (code, seat) in enumerate(zip(table.public.moves, table.authors, strict=True)):
            after = state.copy()
            after.apply_code_unchecked(code)
            record = records[i] if i < len(records) else None
            steps.append(Step(seat, code, record, state, after))
            state = after
        out.append(
            HandStory(
                number=table.number,
                dealer=table.dealer,
                options=table.options,
                exact=table.deck is not None,
                deck=table.deck,
                start=start,
                steps=tuple(steps),
                result=table.result,
                game_points=summary.game_points,
            )
        )
    return out
