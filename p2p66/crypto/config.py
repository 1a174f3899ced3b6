"""The public parameters of one hand, agreed before it starts, and their digest.

Everything a party's secrets, proofs and the audit depend on is here, and
its digest is bound into every seed commitment and proof, so two parties
with different ideas of the hand fail loudly at the first message instead of
producing subtly different decks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from p2p66.crypto.encoding import card_points
from p2p66.crypto.errors import InvalidConfig, MalformedMessage
from p2p66.crypto.group import Point
from p2p66.crypto.hashing import TAG_CONFIG, TAG_CONTEXT, hash32
from p2p66.engine.cards import JACK, NINE, NUM_CARD_IDS, deck_ids
from p2p66.engine.deal import deal_layout
from p2p66.engine.options import RuleOptions
from p2p66.engine.table.deal import table_layout
from p2p66.engine.table.options import BiddingOptions, TableOptions, ThreeHandedOptions

ARGUMENT: Final = 256
"""The ``soundness`` value that selects the shuffle argument (SPEC.md 9.3): proofs on."""
MAX_ROUNDS: Final = 128
"""Most rounds of the legacy cut-and-choose shuffle proof (``soundness`` 1..128)."""
MAX_SOUNDNESS: Final = MAX_ROUNDS
DEFAULT_SOUNDNESS: Final = ARGUMENT
MAX_PARTIES: Final = 8
MAX_HAND: Final = 2**32 - 1
PUBLIC: Final = -1
"""Deal plan value: opened to everybody during the deal (the face-up trump)."""
FACE_DOWN: Final = -2
"""Deal plan value: stays face down after the deal (the talon)."""

_NONE_BYTE: Final = 255


class ProofKind(StrEnum):
    """Which shuffle proof a hand uses; recorded as its ``soundness`` value."""

    OFF = "off"
    """``soundness`` 0: no proofs; cheats are named by the audit at the end of the hand."""
    CUT_AND_CHOOSE = "cut-and-choose"
    """``soundness`` 1..128: k rounds, each halving a cheater's chance (legacy, grindable)."""
    ARGUMENT = "argument"
    """``soundness`` 256: the shuffle argument, negligible soundness error whatever the work."""


def is_soundness(value: object) -> bool:
    """True for a recordable ``soundness``: 0 (off), 1..128 (cut-and-choose rounds), 256."""
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return 0 <= value <= MAX_ROUNDS or value == ARGUMENT


def proof_kind(soundness: int) -> ProofKind:
    """The shuffle proof a ``soundness`` value selects."""
    if soundness == 0:
        return ProofKind.OFF
    return ProofKind.ARGUMENT if soundness == ARGUMENT else ProofKind.CUT_AND_CHOOSE


@dataclass(frozen=True, slots=True)
class HandConfig:
    """Parameters of one hand: who shuffles in which order, the deck, the deal plan.

    ``deal[j]`` says where deck position j goes in the deal: a seat (opened
    privately to it), ``PUBLIC`` or ``FACE_DOWN``. ``face_up`` is the face-up
    trump position and ``exchange_rank`` the rank (0..5, engine numbering)
    that may be exchanged for it; both ``None`` for games without them.
    """

    session_id: bytes
    hand: int
    parties: int
    order: tuple[int, ...]
    deck: tuple[int, ...]
    deal: tuple[int, ...]
    soundness: int = DEFAULT_SOUNDNESS
    face_up: int | None = None
    exchange_rank: int | None = None
    digest: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._check()
        object.__setattr__(self, "digest", self._digest())

    def _check(self) -> None:
        if not isinstance(self.session_id, bytes) or len(self.session_id) != 32:
            raise InvalidConfig("session_id must be 32 bytes")
        if not _is_int(self.hand) or not 0 <= self.hand <= MAX_HAND:
            raise InvalidConfig(f"hand must be a number 0..{MAX_HAND}")
        if not _is_int(self.parties) or not 2 <= self.parties <= MAX_PARTIES:
            raise InvalidConfig(f"parties must be 2..{MAX_PARTIES}")
        if sorted(self.order) != list(range(self.parties)) or not all(map(_is_int, self.order)):
            raise InvalidConfig("order must list every seat 0..parties-1 once")
        n = len(self.deck)
        if n < 2 or not all(_is_int(c) and 0 <= c < NUM_CARD_IDS for c in self.deck):
            raise InvalidConfig(f"deck must hold at least two card ids in 0..{NUM_CARD_IDS - 1}")
        if len(set(self.deck)) != n:
            raise InvalidConfig("deck must not repeat a card")
        if not is_soundness(self.soundness):
            raise InvalidConfig(
                f"soundness must be 0 (proofs off), 1..{MAX_ROUNDS} (cut-and-choose rounds) "
                f"or {ARGUMENT} (the shuffle argument)"
            )
        if len(self.deal) != n or not all(
            _is_int(t) and FACE_DOWN <= t < self.parties for t in self.deal
        ):
            raise InvalidConfig("deal must give, per position, a seat, PUBLIC or FACE_DOWN")
        if self.face_up is not None and (
            not _is_int(self.face_up)
            or not 0 <= self.face_up < n
            or self.deal[self.face_up] != PUBLIC
        ):
            raise InvalidConfig("face_up must be a position the deal opens publicly")
        if self.exchange_rank is not None and (
            self.face_up is None
            or not _is_int(self.exchange_rank)
            or not 0 <= self.exchange_rank < 6
        ):
            raise InvalidConfig("exchange_rank must be a rank 0..5 and needs a face_up card")

    def _digest(self) -> bytes:
        return hash32(
            TAG_CONFIG,
            self.session_id,
            self.hand,
            self.parties,
            bytes(self.order),
            bytes(self.deck),
            bytes(t % 256 for t in self.deal),
            self.soundness,
            _NONE_BYTE if self.face_up is None else self.face_up,
            _NONE_BYTE if self.exchange_rank is None else self.exchange_rank,
        )

    @property
    def proof(self) -> ProofKind:
        """The shuffle proof of this hand (the soundness value records it)."""
        return proof_kind(self.soundness)

    @property
    def size(self) -> int:
        """Number of cards (deck positions)."""
        return len(self.deck)

    def context(self, seat: int, seq: int, kind: str) -> bytes:
        """The Fiat-Shamir context of one message: config, author, sequence number, type."""
        return hash32(TAG_CONTEXT, self.digest, seat, seq, kind)

    def schedule(self) -> tuple[tuple[str, int], ...]:
        """Deck steps in order: everyone locks and shuffles, then everyone re-keys.

        The last shuffler re-keys first (in the same flight), then the others
        in shuffle order: 2N-1 flights for N parties, 3 for two.
        """
        last = self.order[-1]
        return (
            *(("shuffle", s) for s in self.order),
            ("rekey", last),
            *(("rekey", s) for s in self.order[:-1]),
        )

    def to_wire(self) -> dict[str, Any]:
        return {
            "session": self.session_id,
            "hand": self.hand,
            "parties": self.parties,
            "order": list(self.order),
            "deck": list(self.deck),
            "deal": list(self.deal),
            "soundness": self.soundness,
            "face_up": self.face_up,
            "exchange_rank": self.exchange_rank,
        }

    @classmethod
    def from_wire(cls, obj: object) -> HandConfig:
        if not isinstance(obj, Mapping) or set(obj) != _WIRE_KEYS:
            raise MalformedMessage(f"a hand config is a map with keys {sorted(_WIRE_KEYS)}")
        try:
            return cls(
                session_id=obj["session"],
                hand=obj["hand"],
                parties=obj["parties"],
                order=_int_tuple(obj["order"], "order"),
                deck=_int_tuple(obj["deck"], "deck"),
                deal=_int_tuple(obj["deal"], "deal"),
                soundness=obj["soundness"],
                face_up=obj["face_up"],
                exchange_rank=obj["exchange_rank"],
            )
        except TypeError as exc:  # e.g. unhashable or uncomparable values
            raise MalformedMessage(f"bad hand config: {exc}") from None

    @classmethod
    def for_game(
        cls,
        options: RuleOptions | TableOptions,
        session_id: bytes,
        hand: int,
        dealer: int,
        soundness: int = DEFAULT_SOUNDNESS,
    ) -> HandConfig:
        """A hand by its game's canonical deal layout; the dealer shuffles first.

        Then every other seat clockwise (``dealer + 1``, ``dealer + 2``, ...):
        with two players that is the non-dealer. A two-player hand opens the
        layout's hands to the dealer and the non-dealer and the trump card to
        all; ``three-handed`` does the same with its two active seats while
        the dealer, who sits out, holds nothing (but shuffles and keys every
        card); a bidding game opens each seat its packets and leaves the
        cut-throat widow face down.
        """
        if isinstance(options, RuleOptions):
            parties, rules = 2, options
            players = (1 - dealer, dealer) if dealer in (0, 1) else (-1, -1)
        elif isinstance(options, ThreeHandedOptions):
            parties, rules = 3, options.hand_rules
            players = ((dealer + 1) % 3, (dealer + 2) % 3)
        else:
            parties, rules = options.players, None
            players = (-1, -1)  # every seat holds cards: the table layout says which
        if not _is_int(dealer) or not 0 <= dealer < parties:
            raise InvalidConfig(
                "dealer must be seat 0 or 1"
                if parties == 2
                else f"dealer must be a seat 0..{parties - 1}"
            )
        order = tuple((dealer + k) % parties for k in range(parties))
        if rules is None:
            assert isinstance(options, BiddingOptions)
            lay = table_layout(options)
            deal = [FACE_DOWN] * 24
            for seat in range(parties):
                for pos in lay.hand_positions(seat, dealer):
                    deal[pos] = seat
            deck24 = tuple(deck_ids(24))
            return cls(session_id, hand, parties, order, deck24, tuple(deal), soundness)
        layout = deal_layout(rules)
        deck = tuple(deck_ids(rules.deck_size))
        deal = [FACE_DOWN] * len(deck)
        for pos in layout.non_dealer:
            deal[pos] = players[0]
        for pos in layout.dealer:
            deal[pos] = players[1]
        deal[layout.trump] = PUBLIC
        return cls(
            session_id=session_id,
            hand=hand,
            parties=parties,
            order=order,
            deck=deck,
            deal=tuple(deal),
            soundness=soundness,
            face_up=layout.trump,
            exchange_rank=NINE if rules.exchange_rank == "9" else JACK,
        )


_WIRE_KEYS: Final = frozenset(
    ("session", "hand", "parties", "order", "deck", "deal", "soundness", "face_up", "exchange_rank")
)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_tuple(value: object, what: str) -> tuple[int, ...]:
    if not isinstance(value, list | tuple) or not all(_is_int(v) for v in value):
        raise MalformedMessage(f"hand config {what} must be a list of integers")
    return tuple(value)


def deck_points(config: HandConfig) -> tuple[Point, ...]:
    """D0: the encodings of the config's cards, position i holding ``deck[i]``."""
    points = card_points(config.session_id)
    return tuple(points[c] for c in config.deck)
