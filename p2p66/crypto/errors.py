"""Errors of the mental-poker library, each saying whose fault it is.

Three families:

- ``MalformedMessage``: bytes that do not parse (wrong type, length, range,
  an invalid point or scalar). The session layer knows who sent them.
- ``LocalUsageError``: our own caller used the library out of turn (a bug on
  this side, never the peer's fault), like h11's ``LocalProtocolError``.
- ``CheatingDetected``: a party deviated from the protocol. ``.party`` is the
  seat index of the offender (``None`` only when, with proofs off, a bad card
  surfaces before the audit can say who made it), ``.what`` says what they did
  and the class attribute ``code`` is a stable machine-readable name.
"""

from __future__ import annotations

from typing import ClassVar


class CryptoError(Exception):
    """Base class of every error this library raises."""


class MalformedMessage(CryptoError):
    """A payload, point, scalar or config that is not well formed."""


class InvalidConfig(MalformedMessage):
    """A hand configuration that is inconsistent (bad order, deal plan, soundness...)."""


class LocalUsageError(CryptoError):
    """The local caller asked for something out of turn or impossible (our bug, not the peer's)."""


class CheatingDetected(CryptoError):
    """A party deviated from the protocol; ``party`` names the seat and ``what`` the deed."""

    code: ClassVar[str] = "cheating"

    def __init__(self, party: int | None, what: str) -> None:
        who = f"player {party}" if party is not None else "an unidentified player (run the audit)"
        super().__init__(f"{who}: {what} [{self.code}]")
        self.party = party
        self.what = what


# --- message order ---------------------------------------------------------------


class ReplayedMessage(CheatingDetected):
    """A message from another hand, or one already processed, was sent again."""

    code = "replayed-message"


class OutOfOrderMessage(CheatingDetected):
    """A message arrived before its turn, skipped a sequence number, or came after the end."""

    code = "out-of-order-message"


class ConfigMismatch(CheatingDetected):
    """A party's first message names another hand configuration than ours."""

    code = "config-mismatch"


# --- decks -----------------------------------------------------------------------


class BadDeck(CheatingDetected):
    """A deck that is not what the protocol step allows."""

    code = "bad-deck"


class DuplicatedCard(BadDeck):
    """A deck holds the same point twice (a card duplicated or substituted by another)."""

    code = "duplicated-card"


class MadeUpCard(BadDeck):
    """A deck holds a point that is no card of this deck."""

    code = "made-up-card"


class PlantedPoint(MadeUpCard):
    """A deck holds twice a card's point: a marker that lets its maker track that card."""

    code = "planted-point"


class UnknownCardOpened(BadDeck):
    """An opening with correct keys gave no card: some deck step was bad (proofs off)."""

    code = "unknown-card-opened"


class InvalidShuffleProof(BadDeck):
    """The cut-and-choose proof of a lock-and-shuffle step does not verify."""

    code = "invalid-shuffle-proof"


class ShuffleNotFromSeed(BadDeck):
    """The audit recomputed a lock-and-shuffle step from the seed and got another deck."""

    code = "shuffle-not-from-seed"


class InvalidRekey(BadDeck):
    """A re-key step by an unknown factor: its proof fails or it does not follow the seed."""

    code = "invalid-rekey"


# --- keys and seeds --------------------------------------------------------------


class WrongKey(CheatingDetected):
    """A revealed card key does not match its commitment (or, in the audit, the seed)."""

    code = "wrong-key"


class BadSeedReveal(CheatingDetected):
    """A revealed hand seed does not match the commitment made at the start of the hand."""

    code = "bad-seed-reveal"


class MissingSeed(CheatingDetected):
    """The audit lacks a party's hand seed: that party did not reveal it."""

    code = "missing-seed"


class BadCoinReveal(CheatingDetected):
    """A coin-flip nonce does not match its commitment."""

    code = "bad-coin-reveal"


# --- card ownership and claims ---------------------------------------------------


class CardClaimError(CheatingDetected):
    """A claim about a card (who holds it, what it is) that the openings refute."""

    code = "false-card-claim"


class NotYourCard(CardClaimError):
    """A card played or shown that was never opened to the player (or was already played)."""

    code = "not-your-card"


class WrongCardClaim(CardClaimError):
    """The card a player names is not the card its keys open."""

    code = "wrong-card-claim"


class FalseMarriage(CardClaimError):
    """The card shown with a marriage is no partner of the card led."""

    code = "false-marriage"


class FalseExchange(CardClaimError):
    """The card given in a trump exchange is not the exchange card of the trump suit."""

    code = "false-exchange"


class PositionConflict(CheatingDetected):
    """A key for a position that is not free for that opening (e.g. dealt to someone else)."""

    code = "position-conflict"
