"""Who holds which deck position, which keys are out, and the checks on card claims.

Pure bookkeeping, no group operations: the hand state verifies each key
against its commitment and hands the ledger a function that opens a position
once all keys are known. The same ledger runs live (for every party's
messages, ours included) and in the audit, so both apply the same rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from p2p66.crypto.config import FACE_DOWN, PUBLIC, HandConfig
from p2p66.crypto.errors import (
    FalseExchange,
    FalseMarriage,
    NotYourCard,
    PositionConflict,
    WrongCardClaim,
)
from p2p66.crypto.group import Scalar
from p2p66.crypto.messages import Reveal
from p2p66.engine.cards import CARD_CODES, KING, QUEEN, RANKS

Opener = Callable[[int], int]
"""Opens a position whose keys are all known; returns the card id or raises."""


@dataclass(slots=True)
class Position:
    """The public state of one deck position."""

    keys: dict[int, Scalar] = field(default_factory=dict)
    to: int | None = None
    """The seat the keys revealed so far open it to (a private opening)."""
    holder: int | None = None
    """The seat holding this card in hand (once every other key reached it)."""
    private: int | None = None
    """The seat it was opened to privately, once it was (kept after plays and exchanges)."""
    card: int | None = None
    """The card id, once it is public."""
    played: bool = False


@dataclass(frozen=True, slots=True)
class Event:
    """One change the ledger recorded, for reports and the session layer."""

    seat: int
    kind: str
    pos: int
    card: int | None = None
    to: int | None = None


def _copied(p: Position) -> Position:
    return Position(dict(p.keys), p.to, p.holder, p.private, p.card, p.played)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The parts of a ledger a message may change, as they were before it."""

    positions: tuple[tuple[int, Position], ...]
    face_up: int | None
    events: int
    last_play: dict[int, int]
    dealt: bool


class Ledger:
    """The rules of openings: private to one seat, public, played, shown, exchanged, taken."""

    def __init__(self, config: HandConfig) -> None:
        self.config = config
        self.positions = [Position() for _ in range(config.size)]
        self.face_up = config.face_up
        self.events: list[Event] = []
        self._last_play: dict[int, int] = {}
        self._dealt = False  # deal_complete() once True stays True: openings are never undone

    def checkpoint(self, touched: Iterable[int]) -> Checkpoint:
        """What applying reveals at positions ``touched`` may change, to ``restore`` it.

        A reveal changes only its own position and, by an exchange, the face-up
        card's; copying those few is what a message's rollback needs (a whole
        ``copy`` per key message was a twentieth of a replay's verification).
        """
        spots = {j for j in touched if 0 <= j < len(self.positions)}
        if self.face_up is not None:
            spots.add(self.face_up)
        return Checkpoint(
            tuple((j, _copied(self.positions[j])) for j in sorted(spots)),
            self.face_up,
            len(self.events),
            dict(self._last_play),
            self._dealt,
        )

    def restore(self, saved: Checkpoint) -> None:
        """Back to ``saved``, undoing every reveal applied since (a message failed half-way)."""
        for j, position in saved.positions:
            self.positions[j] = _copied(position)  # the checkpoint stays as it was
        self.face_up = saved.face_up
        del self.events[saved.events :]
        self._last_play = dict(saved.last_play)
        self._dealt = saved.dealt

    def copy(self) -> Ledger:
        """A copy to roll back to if a message fails half-way (the config is shared)."""
        other = Ledger.__new__(Ledger)
        other.config = self.config
        other.positions = [_copied(p) for p in self.positions]
        other.face_up = self.face_up
        other.events = list(self.events)
        other._last_play = dict(self._last_play)
        other._dealt = self._dealt
        return other

    # --- queries -------------------------------------------------------------

    def holder(self, pos: int) -> int | None:
        return self.positions[pos].holder

    def card(self, pos: int) -> int | None:
        return self.positions[pos].card

    def held_by(self, seat: int) -> list[int]:
        """Positions in ``seat``'s hand, not yet played (shown cards included)."""
        return [j for j, p in enumerate(self.positions) if p.holder == seat and not p.played]

    def opened_to(self, seat: int) -> list[int]:
        """Positions opened privately to ``seat`` so far (played or not)."""
        return [j for j, p in enumerate(self.positions) if p.private == seat]

    def deal_complete(self) -> bool:
        """True once every position of the deal plan is opened as planned.

        Asked before every record; a position's private opening and a public
        card are never taken back, so the answer is kept once it is True.
        """
        if self._dealt:
            return True
        for target, p in zip(self.config.deal, self.positions, strict=True):
            if target >= 0 and p.private != target:
                return False
            if target == PUBLIC and p.card is None:
                return False
        self._dealt = True
        return True

    # --- the rules -----------------------------------------------------------

    def apply(self, seat: int, reveal: Reveal, open_card: Opener) -> None:
        """Record one reveal by ``seat`` (its key already checked), or raise naming ``seat``."""
        if not 0 <= reveal.pos < self.config.size:
            raise PositionConflict(
                seat, f"revealed a key for position {reveal.pos}, outside the deck"
            )
        handler = {
            "to": self._to,
            "public": self._public,
            "play": self._held,
            "marriage": self._held,
            "exchange": self._held,
            "take": self._take,
        }[reveal.kind]
        handler(seat, reveal, open_card)

    def _fresh_key(self, seat: int, reveal: Reveal) -> Position:
        p = self.positions[reveal.pos]
        if seat in p.keys:
            raise PositionConflict(seat, f"revealed its key for position {reveal.pos} twice")
        return p

    def _to(self, seat: int, reveal: Reveal, open_card: Opener) -> None:
        j, target = reveal.pos, reveal.to
        assert target is not None
        p = self._fresh_key(seat, reveal)
        if target == seat or not 0 <= target < self.config.parties:
            raise PositionConflict(
                seat, f"opened position {j} to player {target}, not another player"
            )
        if p.card is not None or p.holder is not None:
            raise PositionConflict(
                seat, f"opened position {j} to player {target}, but it is already {self._where(j)}"
            )
        if target in p.keys:
            raise PositionConflict(
                seat, f"opened position {j} to player {target}, whose own key for it is public"
            )
        if p.to is not None and p.to != target:
            raise PositionConflict(
                seat,
                f"opened position {j} to player {target}, but it is being opened to player {p.to}",
            )
        planned = self.config.deal[j]
        if planned not in (FACE_DOWN, target):
            raise PositionConflict(
                seat,
                f"opened position {j} to player {target}; the deal gives it to {_plan(planned)}",
            )
        p.keys[seat] = reveal.key
        p.to = target
        if len(p.keys) == self.config.parties - 1:
            p.holder = p.private = target
            self.events.append(Event(seat, "opened-to", j, to=target))

    def _public(self, seat: int, reveal: Reveal, open_card: Opener) -> None:
        j = reveal.pos
        p = self._fresh_key(seat, reveal)
        if p.holder is not None or p.to is not None:
            raise PositionConflict(
                seat, f"opened position {j} publicly, but it is {self._where(j)}"
            )
        if self.config.deal[j] >= 0:
            raise PositionConflict(
                seat,
                f"opened position {j} publicly; the deal gives it to player {self.config.deal[j]}",
            )
        p.keys[seat] = reveal.key
        if len(p.keys) == self.config.parties:
            p.card = open_card(j)
            self.events.append(Event(seat, "public", j, p.card))

    def check_holds(self, seat: int, pos: int, verb: str = "played") -> None:
        """Raise NotYourCard unless ``seat`` holds ``pos`` and has not played it yet.

        The rule every play, shown marriage partner and exchange passes; the
        session layer may also call it to vet a move before the keys arrive.
        """
        if not 0 <= pos < self.config.size:
            raise NotYourCard(seat, f"{verb} position {pos}, outside the deck")
        p = self.positions[pos]
        if p.holder != seat:
            raise NotYourCard(seat, f"{verb} position {pos}, which is {self._where(pos)}")
        if p.played:
            raise NotYourCard(seat, f"{verb} position {pos}, which it has already played")

    def _held(self, seat: int, reveal: Reveal, open_card: Opener) -> None:
        j = reveal.pos
        p = self.positions[j]
        verb = {"play": "played", "marriage": "showed", "exchange": "exchanged"}[reveal.kind]
        self.check_holds(seat, j, verb)
        p.keys.setdefault(seat, reveal.key)
        if p.card is None:
            p.card = open_card(j)
        if reveal.card != p.card:
            raise WrongCardClaim(
                seat,
                f"named {_code(reveal.card)}, but its keys open {CARD_CODES[p.card]} at {j}",
            )
        if reveal.kind == "play":
            p.played = True
            self._last_play[seat] = j
        elif reveal.kind == "marriage":
            self._check_marriage(seat, j, reveal.partner)
        else:
            self._exchange(seat, j)
        self.events.append(Event(seat, reveal.kind, j, p.card))

    def _check_marriage(self, seat: int, shown: int, partner: int | None) -> None:
        card = self.positions[shown].card
        assert card is not None
        if partner is None or self._last_play.get(seat) != partner:
            raise FalseMarriage(
                seat,
                f"showed {CARD_CODES[card]} with position {partner}, not the card it just led",
            )
        led = self.positions[partner].card
        assert led is not None
        if led // 6 != card // 6 or {led % 6, card % 6} != {KING, QUEEN}:
            raise FalseMarriage(
                seat,
                f"led {CARD_CODES[led]} and showed {CARD_CODES[card]}: "
                f"a marriage is the {RANKS[KING]} and {RANKS[QUEEN]} of one suit",
            )

    def _exchange(self, seat: int, j: int) -> None:
        f = self.face_up
        card = self.positions[j].card
        assert card is not None
        if self.config.exchange_rank is None or f is None:
            raise FalseExchange(seat, f"exchanged {CARD_CODES[card]}, but there is no face-up card")
        up = self.positions[f]
        if up.card is None or up.holder is not None:
            raise FalseExchange(seat, f"exchanged {CARD_CODES[card]}, but the face-up card is gone")
        wanted = up.card // 6 * 6 + self.config.exchange_rank
        if card != wanted:
            raise FalseExchange(
                seat,
                f"gave {CARD_CODES[card]} for the face-up {CARD_CODES[up.card]}; "
                f"only {CARD_CODES[wanted]} may be exchanged",
            )
        up.holder = seat
        self.positions[j].holder = None
        self.face_up = j

    def _take(self, seat: int, reveal: Reveal, open_card: Opener) -> None:
        j = reveal.pos
        p = self.positions[j]
        if j != self.face_up or p.card is None or p.holder is not None:
            raise NotYourCard(
                seat, f"took position {j} into its hand, but it is not the face-up card"
            )
        p.keys.setdefault(seat, reveal.key)
        p.holder = seat
        self.face_up = None
        self.events.append(Event(seat, "take", j, p.card))

    def _where(self, j: int) -> str:
        p = self.positions[j]
        if p.played:
            return "already played"
        if p.holder is not None:
            return f"held by player {p.holder}"
        if p.card is not None:
            return f"face up ({CARD_CODES[p.card]})"
        return "never opened to it"


def _plan(target: int) -> str:
    return "everyone" if target == PUBLIC else f"player {target}"


def _code(card: int | None) -> str:
    return CARD_CODES[card] if card is not None and 0 <= card < len(CARD_CODES) else repr(card)
