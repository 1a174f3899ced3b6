"""Sans-IO mental poker: shuffle and deal so that nobody can cheat, and prove it afterwards.

Two-party (and N-party) SRA over ristretto255 with per-card keys, proofs and
an audit; protocol/SPEC.md is the language-neutral description. No sockets,
no clocks; the only randomness is the coin nonce and one 32-byte seed per
party per hand, both injected (``system_rng`` is the default at the edge).

Session start (once per match)::

    flip = CoinFlip.random(parties=2, seat=me, context=ids)  # context: version + identity keys
    send(flip.start())                    # our commitment (+ reveal once all commits are in)
    send(flip.receive(decode_coin(msg)))  # per incoming message; may return our reveal
    flip.result -> CoinResult(session_id, first_dealer)
    # three flights: A commits; B commits and reveals; A reveals

Each hand::

    config = HandConfig.for_game(options, session_id, hand_no, dealer)  # proofs: argument
    party = DealParty(config, seat=me, seed=new_seed())
    send(party.start())                        # the dealer's lock-and-shuffle (others: [])
    send(party.receive(*map(decode_payload, flight)))  # a whole incoming flight at once
                                               # (or one payload at a time); returns replies

Shuffle and deal take 3 one-way flights with two players (2N-1 with N):
(1) dealer: ShuffleStep; (2) non-dealer: ShuffleStep + RekeyStep + KeyReveal
(its keys for the dealer's six cards and the face-up trump); (3) dealer:
RekeyStep + KeyReveal (keys for the non-dealer's cards and the trump). After
(2) the dealer knows its hand, after (3) the non-dealer does
(``party.deal_complete``, ``party.hand()`` -> {position: card id}), and the
non-dealer's first lead is the next flight.

During play, reveals ride on moves (``party.send(*reveals) -> KeyReveal``,
attached to the move message; the receiver calls ``party.receive``):

- a play: ``party.play(pos)`` (our key makes our card public; refused with
  ``NotYourCard`` if the position was never opened to the player);
- a marriage: ``party.play(k_pos)`` and ``party.marriage(q_pos, partner=k_pos)``
  in the same message (``FalseMarriage`` if they are no K+Q of one suit);
- the trump exchange: ``party.exchange(nine_pos)`` (``FalseExchange``);
- draws: the loser's ``reveal_to(top, winner)`` rides on the follower's play
  when the leader wins, and the winner's ``reveal_to(second, loser)`` on the
  leader's next lead; when the follower wins, its key for the loser's card
  rides on its play and the loser must answer with ``reveal_to(top, winner)``
  in one extra flight (the winner needs its card before it leads, and only
  the loser's key opens it); the last draw's face-up card is ``take(pos)``.

``memory.play_two_player_hand`` is a working reference of this routing.
Queries: ``party.hand()``, ``party.known_cards()``, ``party.card_at(pos)``,
``party.position_of(card)``, ``party.state.ledger.holder(pos)`` /
``.face_up`` / ``.events``. At the end each party sends
``party.reveal_seed()``; then anyone can run ``audit(party.transcript())``
(or ``audit(transcript, seeds)``) -> ``AuditReport`` (the card at every
position, what was opened to whom, every opening in order) or the first
``CheatingDetected`` (``.party``, ``.what``, ``.code``). A third party (a
replay verifier) feeds every payload to a bare ``HandState(config).apply``:
the same checks without any secret.

Proofs (``HandConfig.soundness``): 256, the default, is the shuffle argument
(``argument.py``, SPEC.md 9.3); 1..128 the legacy cut-and-choose with that many
rounds (``shuffle.py``, kept so old replays verify); 0 none. ``deckproof``
picks the one a hand uses.

Costs (``scripts/bench_crypto.py``, one hand of Sixty-Six): about 6 ms of CPU
per player with proofs off, 0.22 s with 80 cut-and-choose rounds, about a
tenth of that with the shuffle argument (the bench prints all three).

Errors: ``MalformedMessage`` (garbage), ``LocalUsageError`` (our own misuse),
``CheatingDetected`` subclasses (the peer's misbehaviour, naming its seat).
"""

from p2p66.crypto.audit import AuditReport, audit
from p2p66.crypto.coinflip import (
    CoinCommit,
    CoinFlip,
    CoinMessage,
    CoinResult,
    CoinReveal,
    decode_coin,
)
from p2p66.crypto.config import DEFAULT_SOUNDNESS, FACE_DOWN, PUBLIC, HandConfig
from p2p66.crypto.errors import (
    BadCoinReveal,
    BadDeck,
    BadSeedReveal,
    CardClaimError,
    CheatingDetected,
    ConfigMismatch,
    CryptoError,
    DuplicatedCard,
    FalseExchange,
    FalseMarriage,
    InvalidConfig,
    InvalidRekey,
    InvalidShuffleProof,
    LocalUsageError,
    MadeUpCard,
    MalformedMessage,
    MissingSeed,
    NotYourCard,
    OutOfOrderMessage,
    PlantedPoint,
    PositionConflict,
    ReplayedMessage,
    ShuffleNotFromSeed,
    UnknownCardOpened,
    WrongCardClaim,
    WrongKey,
)
from p2p66.crypto.handkeys import Rng, new_seed, system_rng
from p2p66.crypto.ledger import Event
from p2p66.crypto.messages import (
    HandPayload,
    KeyReveal,
    RekeyStep,
    Reveal,
    SeedReveal,
    ShuffleStep,
    decode_payload,
)
from p2p66.crypto.party import DealParty
from p2p66.crypto.state import HandState
from p2p66.crypto.transcript import HandTranscript

__all__ = [
    "DEFAULT_SOUNDNESS",
    "FACE_DOWN",
    "PUBLIC",
    "AuditReport",
    "BadCoinReveal",
    "BadDeck",
    "BadSeedReveal",
    "CardClaimError",
    "CheatingDetected",
    "CoinCommit",
    "CoinFlip",
    "CoinMessage",
    "CoinResult",
    "CoinReveal",
    "ConfigMismatch",
    "CryptoError",
    "DealParty",
    "DuplicatedCard",
    "Event",
    "FalseExchange",
    "FalseMarriage",
    "HandConfig",
    "HandPayload",
    "HandState",
    "HandTranscript",
    "InvalidConfig",
    "InvalidRekey",
    "InvalidShuffleProof",
    "KeyReveal",
    "LocalUsageError",
    "MadeUpCard",
    "MalformedMessage",
    "MissingSeed",
    "NotYourCard",
    "OutOfOrderMessage",
    "PlantedPoint",
    "PositionConflict",
    "RekeyStep",
    "ReplayedMessage",
    "Reveal",
    "Rng",
    "SeedReveal",
    "ShuffleNotFromSeed",
    "ShuffleStep",
    "UnknownCardOpened",
    "WrongCardClaim",
    "WrongKey",
    "audit",
    "decode_coin",
    "decode_payload",
    "new_seed",
    "system_rng",
]
