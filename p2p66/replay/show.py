"""``replay show``: the game as it happened, hand by hand and trick by trick, as text.

Either with all cards open (the deal, both hands, the talon order, every
draw) or through one seat's eyes: its own hand before each trick, its own
draws, and only what was public (cards played, marriages shown, the trump
card and who took it). The text comes in chunks, one per trick, so that
``--step`` can pause between them. Hands whose seeds were never revealed
show public cards only, whatever the view.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from p2p66.engine import CARDS, Phase, view_of
from p2p66.engine.cards import SUIT_NAMES, cards_of
from p2p66.engine.deal import deal_layout
from p2p66.engine.moves import CLOSE, DECLARE, DRAW, EXCHANGE, MARRY_BASE, PASS
from p2p66.replay.report import Report, Status
from p2p66.replay.story import HandStory, Step, hand_stories
from p2p66.replay.table_export import table_show_sections
from p2p66.replay.verify import Verification
from p2p66.ui.cards_text import TextStyle, card_text, display_order

Lines = list[str]


@dataclass(frozen=True, slots=True)
class Chunk:
    """Lines shown together; ``--step`` pauses after each trick."""

    lines: tuple[str, ...]
    trick: bool = False
    hand: int | None = None  # the hand the lines belong to (None: the intro or the verdict)
    verdict: bool = False


class Narrator:
    """Turns stories into lines for one viewer (``seat`` None: all cards open)."""

    def __init__(self, report: Report, seat: int | None, style: TextStyle) -> None:
        self.report = report
        self.seat = seat
        self.style = style
        self.names = (report.name(0), report.name(1))
        self.seat_names = tuple(report.name(s) for s in range(max(2, len(report.players))))

    def card(self, card: int) -> str:
        return card_text(CARDS[card], self.style)

    def cards(self, ids: Iterable[int], trump_suit: int | None = None) -> str:
        chosen = tuple(CARDS[c] for c in ids)
        if trump_suit is not None:
            chosen = display_order(chosen, trump_suit)
        return " ".join(card_text(c, self.style) for c in chosen) or "none"

    def sees(self, seat: int) -> bool:
        return self.seat is None or self.seat == seat

    # ------------------------------------------------------------------ chunks

    def chunks(self, stories: list[HandStory]) -> list[Chunk]:
        out = [Chunk(tuple(self.intro()))]
        for story in stories:
            number = story.number
            out.append(Chunk(tuple(self.hand_header(story)), hand=number))
            played = 0
            for trick in story.tricks():
                if any(step.ends_trick for step in trick):
                    played += 1
                    title = f"Trick {played}:"
                else:
                    title = f"After trick {played}:" if played else "Before the first trick:"
                out.append(Chunk(tuple(self.trick(story, title, trick)), trick=True, hand=number))
            out.append(Chunk(tuple(self.hand_footer(story)), hand=number))
        out.append(verdict_chunk(self.report))
        return out

    def intro(self) -> Lines:
        r = self.report
        lines = []
        if len(r.players) == 2:
            a, b = r.players
            lines.append(
                f"{a.name} (seat 0, key {a.fingerprint}) vs {b.name} (seat 1, key {b.fingerprint})"
            )
        elif r.players:
            lines.append(
                ", ".join(f"{p.name} (seat {p.seat}, key {p.fingerprint})" for p in r.players)
            )
        if r.options is not None or r.table is not None:
            lines.append(r.rules_line())
        if r.first_dealer is not None:
            lines.append(f"first dealer (by the coin flip): {self.seat_names[r.first_dealer]}")
        view = (
            "all cards open"
            if self.seat is None
            else f"as {self.seat_names[self.seat]} (seat {self.seat}) saw it"
        )
        lines.append(f"view: {view}")
        return lines

    def hand_header(self, story: HandStory) -> Lines:
        s = story.start
        names = self.names
        lines = [
            "",
            f"== Hand {story.number}, dealer {names[story.dealer]}: trump "
            f"{self.card(s.trump_card)} ({SUIT_NAMES[s.trump_suit]}) ==",
        ]
        if not story.exact:
            lines.append("(the seeds of this hand were never revealed: public cards only)")
            return lines
        for seat in (1 - story.dealer, story.dealer):
            if self.sees(seat):
                held = self.cards(_ids(s.hands[seat]), s.trump_suit)
                lines.append(f"{names[seat]} holds: {held}")
            else:
                lines.append(f"{names[seat]} holds {s.hands[seat].bit_count()} cards")
        if self.seat is None and story.deck is not None:
            talon = deal_layout(story.options).talon
            lines.append(
                f"talon, top first: {self.cards(story.deck[p] for p in talon)}, "
                f"then {self.card(s.trump_card)}"
            )
        return lines

    def trick(self, story: HandStory, title: str, steps: list[Step]) -> Lines:
        lines = [title]
        first = steps[0].before
        if story.exact and self.seat is not None and first.phase != Phase.OVER:
            view = view_of(first, self.seat)
            mine = self.cards((c.id for c in view.hand), first.trump_suit)
            shown = ""
            if view.opponent_shown:
                other = self.names[1 - self.seat]
                shown = f"; {other} has shown {self.cards(c.id for c in view.opponent_shown)}"
            lines.append(f"  {self.names[self.seat]} holds: {mine}{shown}")
        for step in steps:
            lines.extend(f"  {line}" for line in self.step(story, step))
        return lines

    def hand_footer(self, story: HandStory) -> Lines:
        if story.result is None:
            return [f"Hand {story.number}: {self.report.stop_note()}."]
        text = story.result.describe(self.names)
        standing = ""
        if story.game_points is not None:
            a, b = story.game_points
            standing = f" Match: {self.names[0]} {a}, {self.names[1]} {b}."
        return [f"Hand {story.number}: {text}.{standing}"]

    # ------------------------------------------------------------------ moves

    def step(self, story: HandStory, step: Step) -> list[str]:
        who = self.names[step.seat]
        before, after, code = step.before, step.after, step.code
        lines: list[str] = []
        if code == DRAW:
            return self.draws(story, step)
        if code == EXCHANGE:
            lines.append(
                f"{who} exchanges {self.card(before.exchange_card)} for the trump card "
                f"{self.card(before.trump_card)}"
            )
        elif code == CLOSE:
            lines.append(f"{who} closes the talon")
        elif code == DECLARE:
            lines.append(f"{who} declares 66")
        elif code == PASS:
            end = "; the cards have run out" if before.phase == Phase.FINAL_DECLARE else ""
            lines.append(f"{who} does not declare{end}")
        elif code >= MARRY_BASE:
            card = code - MARRY_BASE
            points = after.marriages[-1].points
            lines.append(
                f"{who} announces the marriage in {SUIT_NAMES[card // 6]} ({points}), "
                f"shows {self.card(card ^ 1)} and leads {self.card(card)}"
            )
        elif before.phase == Phase.FOLLOW:
            lines.append(self.follow(step))
        else:
            lines.append(f"{who} leads {self.card(code)}")
        lines.extend(self.draws(story, step))
        return lines

    def follow(self, step: Step) -> str:
        after = step.after
        winner = after.tricks_log[-1][3]
        gained = after.score[winner] - step.before.score[winner]
        a, b = after.score
        return (
            f"{self.names[step.seat]} plays {self.card(step.code)}: {self.names[winner]} wins "
            f"the trick (+{gained}; card points {self.names[0]} {a}, {self.names[1]} {b})"
        )

    def draws(self, story: HandStory, step: Step) -> list[str]:
        draws = step.draws()
        if not draws:
            return []
        before, after = step.before, step.after
        parts = []
        for seat, drawn in draws:
            took_trump = before.trump_card in drawn and after.talon_left == 0
            if took_trump:
                parts.append(
                    f"{self.names[seat]} takes the trump card {self.card(before.trump_card)}"
                )
            elif story.exact and self.sees(seat) and drawn:
                parts.append(f"{self.names[seat]} draws {self.cards(drawn)}")
            else:
                parts.append(f"{self.names[seat]} draws")
        return [", ".join(parts)]


def _ids(mask: int) -> list[int]:
    return [c.id for c in cards_of(mask)]


def verdict_chunk(report: Report) -> Chunk:
    return Chunk((f"Verdict: {report.headline()}",), verdict=True)


def show_chunks(verification: Verification, seat: int | None, style: TextStyle) -> list[Chunk]:
    """The replay as chunks of lines (intro, each hand's deal, each trick, results, verdict)."""
    narrator = Narrator(verification.report, seat, style)
    if verification.report.status is Status.UNREADABLE:
        return [verdict_chunk(verification.report)]
    if verification.machine.table is not None:
        intro = Chunk(tuple(narrator.intro()))
        sections = table_show_sections(verification, seat)
        body = [Chunk(tuple(lines), trick=trick, hand=hand) for hand, trick, lines in sections]
        return [intro, *body, verdict_chunk(verification.report)]
    return narrator.chunks(hand_stories(verification))


@dataclass(frozen=True, slots=True)
class Page:
    """What ``--step`` shows at once: everything up to and including one trick."""

    lines: tuple[str, ...]
    hand: int | None


def pages(chunks: list[Chunk]) -> tuple[list[Page], Chunk | None]:
    """The chunks before the verdict cut into pages after each trick, and the verdict."""
    out: list[Page] = []
    lines: list[str] = []
    hand: int | None = None
    verdict = None
    for chunk in chunks:
        if chunk.verdict:
            verdict = chunk
            continue
        lines.extend(chunk.lines)
        hand = chunk.hand
        if chunk.trick:
            out.append(Page(tuple(lines), hand))
            lines = []
    if lines:
        out.append(Page(tuple(lines), hand))
    return out, verdict


def only_hand(chunks: list[Chunk], number: int) -> list[Chunk]:
    """The intro, the chunks of hand ``number``, and the verdict."""
    return [c for c in chunks if c.hand in (None, number)]
