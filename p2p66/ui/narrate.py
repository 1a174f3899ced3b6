"""Table events as sentences, for the log panel and for ``--plain`` mode.

Pure: an event, this seat's previous view and a ``Voice`` in, sentences out.
The player is "you"; the opponent is called by name.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.engine import HandResult, HowEnded, Phase, PlayerView
from p2p66.engine.cards import Card
from p2p66.engine.moves import MOVES
from p2p66.ui.cards_text import DEFAULT_STYLE, TextStyle, card_text, suit_name
from p2p66.ui.table import (
    ConnectionStatus,
    HandOver,
    HandStarted,
    MatchOver,
    MovePlayed,
    Notice,
    TableEvent,
    ViewChanged,
)

STRICT_DUTY = "follow suit and win if you can, else trump"


@dataclass(frozen=True, slots=True)
class Voice:
    """Who "you" are, the players' names and how cards are written."""

    seat: int
    names: tuple[str, str]
    style: TextStyle = DEFAULT_STYLE

    @property
    def opponent(self) -> str:
        return self.names[1 - self.seat]

    def who(self, seat: int, *, start: bool = True) -> str:
        if seat == self.seat:
            return "You" if start else "you"
        return self.names[seat]

    def verb(self, seat: int, you_form: str, other_form: str) -> str:
        return you_form if seat == self.seat else other_form

    def says(self, seat: int, you_form: str, other_form: str, *, start: bool = True) -> str:
        """Subject and verb agreeing: "You win" / "Bot wins"."""
        return f"{self.who(seat, start=start)} {self.verb(seat, you_form, other_form)}"

    def card(self, card: Card) -> str:
        return card_text(card, self.style)

    def score(self, points: tuple[int, int]) -> str:
        me, other = self.seat, 1 - self.seat
        return f"you {points[me]}, {self.opponent} {points[other]}"


def narrate(event: TableEvent, before: PlayerView | None, voice: Voice) -> tuple[str, ...]:
    """The sentences an event deserves (possibly none), in order."""
    if isinstance(event, MovePlayed):
        return _move(event, before, voice) + _changes(event.view, before, voice, event.code)
    if isinstance(event, ViewChanged):
        return _changes(event.view, before, voice, None)
    if isinstance(event, HandStarted):
        target = event.view.options.match_target
        if event.hand_number == 1 and target:
            first = f"The first to {target} game point{'s' if target != 1 else ''} wins the match."
            return (first, _hand_started(event, voice))
        return (_hand_started(event, voice),)
    if isinstance(event, HandOver):
        standing = voice.score(event.game_points)
        return (f"{result_sentence(event.result, voice)}; the match stands {standing}.",)
    if isinstance(event, MatchOver):
        return (_match_over(event, voice),)
    if isinstance(event, ConnectionStatus):
        return (connection_sentence(event, voice),)
    if isinstance(event, Notice):
        return (event.text,)
    return (f"Problem with {voice.opponent}: {event.text}",)


def _hand_started(event: HandStarted, voice: Voice) -> str:
    view = event.view
    dealer = voice.says(view.dealer, "deal", "deals")
    leader = voice.says(1 - view.dealer, "lead", "leads", start=False)
    trump = suit_name(view.trump_suit)
    turned = f" ({voice.card(view.trump_card)} turned up)" if view.trump_card else ""
    return f"Hand {event.hand_number}: {dealer}, trumps are {trump}{turned}, and {leader} first."


def _move(event: MovePlayed, before: PlayerView | None, voice: Voice) -> tuple[str, ...]:
    move, view, seat = MOVES[event.code], event.view, event.seat
    if move.kind == "play" and move.card is not None:
        trick = view.tricks[-1] if view.tricks else None
        if view.lead != move.card and trick is not None and trick.follow == move.card:
            winning = trick.lead if trick.winner == trick.leader else trick.follow
            worth = trick.lead.points + trick.follow.points
            played = f"{voice.says(seat, 'play', 'plays')} {voice.card(move.card)}"
            if trick.winner == seat:
                won = f"and {voice.verb(seat, 'win', 'wins')} the trick"
                return (f"{played} {won} ({worth} points).",)
            wins = voice.says(trick.winner, "win", "wins", start=False)
            return (f"{played}; {wins} the trick with {voice.card(winning)} ({worth} points).",)
        return (f"{voice.says(seat, 'lead', 'leads')} {voice.card(move.card)}.",)
    if move.kind == "marry" and move.card is not None:
        marriage = view.marriages[-1] if view.marriages else None
        points = marriage.points if marriage else (40 if move.card.suit == view.trump_suit else 20)
        held = ""
        if (view.my_held_points if seat == voice.seat else view.opponent_held_points) > 0:
            held = f" (it counts once {voice.says(seat, 'win', 'wins', start=False)} a trick)"
        return (
            f"{voice.says(seat, 'announce', 'announces')} {points} in {suit_name(move.card.suit)}"
            f" and {voice.verb(seat, 'lead', 'leads')} {voice.card(move.card)}{held}.",
        )
    if move.kind == "exchange":
        old = before.trump_card if before is not None else None
        took = f" for the trump card {voice.card(old)}" if old is not None else ""
        nine = f" {voice.card(view.trump_card)}" if view.trump_card is not None else ""
        return (f"{voice.says(seat, 'exchange', 'exchanges')}{nine}{took}.",)
    if move.kind == "close":
        return (f"{voice.says(seat, 'close', 'closes')} the talon: from now on {STRICT_DUTY}.",)
    if move.kind == "declare":
        return (f"{voice.says(seat, 'declare', 'declares')} 66.",)
    if move.kind == "pass" and before is not None and before.phase == Phase.FINAL_DECLARE:
        return (f"{voice.says(seat, 'do', 'does')} not declare, and the cards have run out.",)
    return ()  # draw: told by _changes; a pass after a marriage is a non-event, as at a table


def _changes(
    view: PlayerView, before: PlayerView | None, voice: Voice, code: int | None
) -> tuple[str, ...]:
    """Cards drawn and the talon running out, found by comparing two views."""
    if before is None:
        return ()
    out: list[str] = []
    if code is None or MOVES[code].kind != "exchange":
        drawn = [c for c in view.hand if c not in before.hand]
        if drawn:
            out.append(f"You draw {', '.join(voice.card(c) for c in drawn)}.")
    trump = before.trump_card
    if (
        trump is not None
        and before.talon_size > 0
        and view.talon_size == 0
        and trump not in view.hand
    ):
        out.append(f"{voice.opponent} takes the trump card {voice.card(trump)}.")
    if before.talon_size > 0 and view.talon_size == 0 and not view.closed:
        out.append(f"The talon is exhausted: {STRICT_DUTY}.")
    return tuple(out)


def result_sentence(result: HandResult, voice: Voice) -> str:
    """Who won the hand and why, without a final full stop."""
    if result.winner is None:
        points = result.card_points[0]
        return f"Tie at {points} card points: nobody scores, the next hand's winner gets one more"
    w, loser = result.winner, 1 - result.winner
    gp = f"{result.game_points} game point{'s' if result.game_points != 1 else ''}"
    win, lose = voice.who(w), voice.who(loser)
    and_scores = f"and {voice.verb(w, 'score', 'scores')} {gp}"
    so_scores = f"so {voice.says(w, 'score', 'scores', start=False)} {gp}"
    text = {
        HowEnded.DECLARED_66: f"{voice.says(w, 'declare', 'declares')} 66 truly {and_scores}",
        HowEnded.FALSE_DECLARATION: f"{lose} declared 66 without having it, {so_scores}",
        HowEnded.CLOSER_SUCCEEDED: f"{win} closed the talon, reached 66 {and_scores}",
        HowEnded.CLOSER_FAILED: f"{lose} closed the talon but failed, {so_scores}",
        HowEnded.LAST_TRICK: f"{win} won the last trick {and_scores}",
        HowEnded.MORE_POINTS: f"{voice.says(w, 'have', 'has')} more card points {and_scores}",
    }[result.how]
    me, other = voice.seat, 1 - voice.seat
    return (
        f"{text} (card points: you {result.card_points[me]}, "
        f"{voice.opponent} {result.card_points[other]})"
    )


def _match_over(event: MatchOver, voice: Voice) -> str:
    if event.winner is None:
        return f"The match ended unfinished at {voice.score(event.game_points)}."
    me, other = voice.seat, 1 - voice.seat
    points = event.game_points
    mine, theirs = points[me], points[other]
    if event.resigned == voice.seat:
        return f"You resigned, so {voice.opponent} wins the match ({voice.score(points)})."
    if event.resigned is not None:
        return f"{voice.opponent} resigned, so you win the match ({voice.score(points)})."
    if event.winner == voice.seat:
        return f"You win the match {mine} to {theirs}."
    return f"{voice.opponent} wins the match {theirs} to {mine}."


def connection_sentence(event: ConnectionStatus, voice: Voice) -> str:
    latency = f" ({event.latency_ms:.0f} ms)" if event.latency_ms is not None else ""
    return {
        "local": f"Playing against {voice.opponent} on this computer.",
        "connecting": f"Connecting to {voice.opponent}.",
        "connected": f"Connected to {voice.opponent}{latency}.",
        "reconnecting": f"Connection to {voice.opponent} lost: reconnecting.",
        "waiting": f"Connected to {voice.opponent}{latency}.",  # linked; their move is due
        "closed": f"The connection to {voice.opponent} is closed.",
    }[event.state]
