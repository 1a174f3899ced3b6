"""Regenerate ``replays/golden`` and ``replays/invalid`` deterministically.

    python scripts/make_replays.py           # (re)write every file and manifest
    python scripts/make_replays.py --check   # regenerate in memory, compare with the files

Golden files are real games played by the real protocol: two ``Peer``
objects wired back to back, with fixed Ed25519 identity keys (from fixed
seeds), seeded randomness, and scripted bots that make the rule features
happen (marriages, exchanges, closing, true and false declarations, the last
trick) under every preset. Each golden file gets its expected verification
report next to it (``NAME.json``); ``MANIFEST.json`` lists what each shows.

Invalid files are golden games damaged or cheated on. Because the keys are
fixed, a cheat is re-signed with the cheater's own key (and, where the
manifest says so, the following records re-chained), exactly what a player
editing a file could do; one cheat (a revoke) is played live by a cheating
client. ``replays/invalid/MANIFEST.json`` maps each file to its expected
exit code, error kind and substring, first bad record and culprit.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated import check_wanted, regenerate_files

from p2p66.crypto.coinflip import coin_commitment
from p2p66.crypto.config import HandConfig
from p2p66.crypto.group import decode_points, double
from p2p66.crypto.handkeys import HandSecrets
from p2p66.crypto.messages import KeyReveal, Reveal, SeedReveal, decode_payload
from p2p66.engine import PlayerView, RuleOptions, preset
from p2p66.engine.cards import KING, QUEEN
from p2p66.engine.moves import (
    CLOSE,
    DECLARE,
    DRAW,
    EXCHANGE,
    MARRY_BASE,
    MOVE_NOTATION,
    PASS,
    parse_move_code,
)
from p2p66.replay.fileio import FRAME_HEAD, MAGIC, PREAMBLE, frame
from p2p66.replay.verify import Verification, verify_records
from p2p66.session import messages as msg
from p2p66.session.errors import ProtocolError
from p2p66.session.machine import Machine
from p2p66.session.peer import Peer, Signer
from p2p66.session.records import GENESIS, Record, make_record

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "replays" / "golden"
INVALID = ROOT / "replays" / "invalid"
NAMES = ("alice", "bob")


def private_key(name: str) -> Ed25519PrivateKey:
    """The fixed identity key of a golden player (never use these keys for anything else)."""
    return Ed25519PrivateKey.from_private_bytes(
        hashlib.sha256(f"p2p66 golden replay identity: {name}".encode()).digest()
    )


KEYS = {seat: private_key(name) for seat, name in enumerate(NAMES)}
IMPOSTOR = private_key("mallory")


def public_key(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes_raw()


def signer(seat: int) -> Signer:
    key = KEYS[seat]
    return Signer(NAMES[seat], public_key(key), key.sign)


def rng(seed: int) -> Callable[[int], bytes]:
    return random.Random(seed).randbytes


# ------------------------------------------------------------------------ bots


@dataclass(frozen=True)
class Policy:
    """What a scripted bot is eager to do (so that the rule features happen)."""

    marry: bool = True
    exchange: bool = True
    close_at: int = 0  # close once own points + held marriages reach this (0: never)
    false_declare_at: int = 0  # declare without 66 once own points reach this (0: never)


def bot(policy: Policy, seed: int) -> Callable[[PlayerView], int]:
    """A deterministic scripted player: eager for the features, sensible with its cards."""
    r = random.Random(seed)

    def choose(view: PlayerView) -> int:
        legal = [m.code for m in view.legal]
        points = view.my_points
        if DECLARE in legal and points >= 66:
            return DECLARE
        if DECLARE in legal and policy.false_declare_at and points >= policy.false_declare_at:
            return DECLARE
        if PASS in legal:
            return PASS
        if policy.exchange and EXCHANGE in legal:
            return EXCHANGE
        marriages = [c for c in legal if MARRY_BASE <= c < EXCHANGE]
        if policy.marry and marriages:
            return max(marriages, key=lambda c: ((c - MARRY_BASE) // 6 == view.trump_suit, c))
        if CLOSE in legal and policy.close_at and points + view.my_held_points >= policy.close_at:
            return CLOSE
        if DRAW in legal:
            return DRAW
        cards = [c for c in legal if c < MARRY_BASE]
        if view.lead is None:
            return r.choice(cards)
        return _follow(view, cards)

    return choose


def _beats(card: int, lead: int, trump: int) -> bool:
    if card // 6 == lead // 6:
        return card < lead
    return card // 6 == trump


def _follow(view: PlayerView, cards: list[int]) -> int:
    """Take a trick worth taking as cheaply as possible, otherwise throw the least."""
    assert view.lead is not None
    lead = view.lead.id
    points = [11, 10, 4, 3, 2, 0]
    winners = [c for c in cards if _beats(c, lead, view.trump_suit)]
    if winners and points[lead % 6] >= 4:
        return min(winners, key=lambda c: (c // 6 == view.trump_suit, points[c % 6]))
    return min(cards, key=lambda c: (points[c % 6], c // 6 == view.trump_suit))


# ------------------------------------------------------------------------ playing


class RecordingPeer(Peer):
    """A peer that remembers the last record it made, even one its own machine refused
    (the second seed of a hand whose audit convicts someone is still sent)."""

    last_made: Record | None = None

    def _send(self, message: msg.Message) -> list[Any]:
        chain = self.machine.chain
        self.last_made = make_record(
            chain.next_seq, chain.head, self.seat, msg.encode(message), self.signer.sign
        )
        return super()._send(message)


class Revoker(RecordingPeer):
    """A cheating client: it may play a card the strict rules forbid, skipping its own judge."""

    def play(self, move: int | str) -> list[Any]:
        hand = self.machine.hand
        code = move if isinstance(move, int) else parse_move_code(move)
        if hand is None or self.party is None or code in hand.state.legal_codes():
            return super().play(code)
        hand.private = None  # our own judge knows our cards and would refuse the revoke
        reveals = self._reveals_for(code)
        data = {"payload": self.party.send(*reveals).to_wire()}
        events = self._send(msg.Move(hand.number, MOVE_NOTATION[code], data))
        return events + self._pump()


def revoking_bot(policy: Policy, seed: int) -> Callable[[PlayerView], int]:
    """Plays like ``bot`` but revokes (discards off-suit) the first time it can."""
    honest = bot(policy, seed)
    done = [False]

    def choose(view: PlayerView) -> int:
        if not done[0] and view.lead is not None and not view.talon_open:
            lead = view.lead.id // 6
            mine = [c.id for c in view.hand]
            off = [c for c in mine if c // 6 not in (lead, view.trump_suit)]
            if off and any(c // 6 == lead for c in mine):
                done[0] = True
                return off[0]
        return honest(view)

    return choose


@dataclass
class Game:
    """How to play one golden game."""

    options: RuleOptions
    seed: int
    policies: tuple[Policy, Policy] = (Policy(), Policy())
    soundness: int = 0
    resign_in_hand: int = 0  # the player to move resigns in this hand (0: never)
    refuse: str = ""  # the joiner refuses the rules with this reason
    cut: int = 0  # keep only this many records (an unfinished game)
    revoker: bool = False  # seat 1 runs the cheating client


def play(game: Game) -> list[Record]:
    """Play a whole match (or until a cheat is caught) and return the records in order."""
    cls1 = Revoker if game.revoker else RecordingPeer
    peers = (
        RecordingPeer(
            0, signer(0), options=game.options, soundness=game.soundness, rng=rng(game.seed)
        ),
        cls1(1, signer(1), soundness=game.soundness, rng=rng(game.seed + 1)),
    )
    if game.refuse:
        peers[1].rules_policy = lambda options, soundness: game.refuse
    make = revoking_bot if game.revoker else bot
    choosers = (bot(game.policies[0], game.seed + 2), make(game.policies[1], game.seed + 3))
    records: list[Record] = []
    try:
        _shuttle(peers, choosers, records, game.resign_in_hand)
    except ProtocolError:
        pending = sorted((r for p in peers for r in p.data_to_send()), key=lambda r: r.seq)
        records.extend(pending)
        made = [p.last_made for p in peers if p.last_made is not None]
        records.extend([r for r in made if r.seq == len(records)][:1])
    return records[: game.cut] if game.cut else records


def _shuttle(
    peers: tuple[RecordingPeer, RecordingPeer],
    choosers: tuple[Callable[[PlayerView], int], ...],
    records: list[Record],
    resign_in_hand: int,
) -> None:
    for peer in peers:
        peer.start()
    while True:
        moved = False
        for seat in (0, 1):
            for record in peers[seat].data_to_send():
                records.append(record)
                peers[1 - seat].receive_data(record.encode())
                moved = True
        if peers[0].machine.over and peers[1].machine.over:
            return
        for peer in peers:
            if not peer.needs_move:
                continue
            hand = peer.machine.hand
            if resign_in_hand and hand is not None and hand.number == resign_in_hand:
                peer.resign("I have seen enough")
            else:
                view = peer.view()
                assert view is not None
                peer.play(choosers[peer.seat](view))
            moved = True
            break
        if not moved:
            return


def file_bytes(records: list[Record]) -> bytes:
    return PREAMBLE + b"".join(frame(r) for r in records)


# ------------------------------------------------------------------------ golden games

SIXTY_SIX = preset("sixty-six")
SCHNAPSEN = preset("schnapsen")
VU = preset("vu")
EAGER = Policy(close_at=50)


@dataclass(frozen=True)
class Golden:
    name: str
    about: str
    features: tuple[str, ...]
    game: Game


GOLDEN_GAMES = (
    Golden(
        "sixty-six-match",
        "A whole Sixty-Six match: marriages in trumps and plain suits, the nine exchange, "
        "closing, true and false declarations and the last trick.",
        (
            "marriage-20",
            "marriage-40",
            "exchange-9",
            "close-succeeded",
            "close-failed",
            "declare-true",
            "declare-false",
            "last-trick",
        ),
        Game(SIXTY_SIX, 16, (Policy(close_at=45, false_declare_at=60), Policy(close_at=55))),
    ),
    Golden(
        "schnapsen-match",
        "A whole Schnapsen match: the jack exchange, marriages after closing, "
        "the last trick winning the hand.",
        ("exchange-J", "marriage-when-closed", "close-succeeded", "last-trick", "declare-true"),
        Game(SCHNAPSEN, 50, (EAGER, Policy(false_declare_at=55))),
    ),
    Golden(
        "vu-match",
        "A whole match under the vu preset: automatic declaring, king-led marriages, "
        "one game point for the last trick.",
        ("marriage-20", "exchange-J", "declare-auto", "last-trick"),
        Game(VU, 31),
    ),
    Golden(
        "sixty-six-proofs",
        "One hand of Sixty-Six with the default proofs (soundness 80): every shuffle "
        "and re-key step carries its zero-knowledge proof.",
        ("proofs",),
        Game(SIXTY_SIX.with_options(match_target=1), 41, (EAGER, EAGER), soundness=80),
    ),
    Golden(
        "custom-points",
        "Custom rules: no closing, marriages only after a won trick, unclaimed hands to the "
        "higher card points; a tie scores nothing and adds a game point to the next hand.",
        ("custom", "tie", "declare-true"),
        Game(
            SIXTY_SIX.with_options(
                allow_close=False,
                unclaimed_end="points",
                marriage_needs_trick="forbidden",
                match_target=3,
            ),
            235,
        ),
    ),
    Golden(
        "sixty-six-unfinished",
        "A game cut off in its second hand (a crash, or still being played): "
        "valid so far, waiting on the player to move.",
        ("unfinished",),
        Game(SIXTY_SIX, 61, cut=40),
    ),
    Golden(
        "schnapsen-resigned",
        "A Schnapsen match a player resigns in its second hand.",
        ("resigned",),
        Game(SCHNAPSEN, 71, resign_in_hand=2),
    ),
    Golden(
        "rules-refused",
        "The joiner refuses the proposed rules: four records, no match.",
        ("refused",),
        Game(SCHNAPSEN, 81, refuse="I only play sixty-six"),
    ),
)


# ------------------------------------------------------------------------ cheating tools


def decode(record: Record) -> dict[str, Any]:
    body = msgpack.unpackb(record.body, raw=False)
    assert isinstance(body, dict)
    return body


def sign_as(record: Record, body: dict[str, Any] | bytes, key: Ed25519PrivateKey) -> Record:
    """``record`` with a new body, signed by ``key`` (a cheater re-signing its own record)."""
    data = body if isinstance(body, bytes) else msgpack.packb(body)
    return make_record(record.seq, record.prev, record.author, data, key.sign)


def rechain(records: list[Record], start: int, keys: dict[int, Ed25519PrivateKey]) -> list[Record]:
    """Re-link (and re-sign with ``keys``) every record from ``start`` on."""
    out = list(records[:start])
    prev = out[-1].digest if out else GENESIS
    for r in records[start:]:
        fixed = make_record(r.seq, prev, r.author, r.body, keys[r.author].sign)
        out.append(fixed)
        prev = fixed.digest
    return out


def first(records: list[Record], test: Callable[[int, Record, dict[str, Any]], bool]) -> int:
    for i, r in enumerate(records):
        if test(i, r, decode(r)):
            return i
    raise LookupError("no record matches")


@dataclass
class Invalid:
    """One invalid file and what the verifier must say about it."""

    name: str
    about: str
    data: bytes
    exit_code: int
    kind: str | None = None
    message: str = ""
    record: int | None = None
    culprit: int | None = None
    detected_at: int | None = None

    def expectation(self) -> dict[str, Any]:
        return {
            "about": self.about,
            "exit_code": self.exit_code,
            "kind": self.kind,
            "message": self.message,
            "record": self.record,
            "detected_at": self.detected_at if self.detected_at is not None else self.record,
            "culprit": self.culprit,
        }


@dataclass
class Base:
    """A verified honest game to damage, with everything a cheater would know about it."""

    records: list[Record]
    verification: Verification = field(init=False)

    def __post_init__(self) -> None:
        self.verification = verify_records(self.records)
        assert self.verification.report.exit_code == 0, self.verification.report.headline()

    def config(self, hand: int) -> HandConfig:
        table = self.verification.table(hand)
        assert table is not None
        return table.config

    def secrets(self, hand: int, seat: int) -> HandSecrets:
        table = self.verification.table(hand)
        assert table is not None
        return HandSecrets.derive(table.config, seat, table.crypto.seeds[seat])

    def deck(self, hand: int) -> tuple[int, ...]:
        table = self.verification.table(hand)
        assert table is not None and table.deck is not None
        return table.deck


def _moves(base: Base) -> list[tuple[int, int, int]]:
    """(record index, hand, code) of every move record."""
    out: list[tuple[int, int, int]] = []
    for number, log in sorted(base.verification.logs.items()):
        table = base.verification.table(number)
        assert table is not None
        out.extend((i, number, code) for i, code in zip(log.moves, table.public.moves, strict=True))
    return out


def _state_before(base: Base, index: int) -> Any:
    """The exact engine state before the move carried by record ``index``."""
    from p2p66.replay.story import hand_stories

    for story in hand_stories(base.verification):
        for step in story.steps:
            if step.record == index:
                return step.before
    raise LookupError(index)


def _with_payload(body: dict[str, Any], payload: Any) -> dict[str, Any]:
    return {**body, "data": {"payload": payload.to_wire()}}


def make_invalid(base: Base, proofs: Base, audit_cheat: list[Record]) -> list[Invalid]:
    recs = base.records
    whole = file_bytes(recs)
    out: list[Invalid] = []

    # --- the file itself -----------------------------------------------------------------
    offset = len(PREAMBLE) + sum(len(frame(r)) for r in recs[:20]) + FRAME_HEAD.size + 40
    flipped = bytearray(whole)
    flipped[offset] ^= 0x10
    out.append(
        Invalid(
            "flipped-bit",
            "One bit of record 20 flipped on disk: its CRC no longer matches.",
            bytes(flipped),
            1,
            "corrupt",
            "CRC mismatch",
            20,
        )
    )
    out.append(
        Invalid(
            "truncated-tail",
            "The last record cut short, as by a crash while writing it: the records before it "
            "are valid, the file is reported as truncated.",
            whole[:-9],
            1,
            "truncated",
            "the file ends in the middle of record",
            len(recs) - 1,
        )
    )
    out.append(
        Invalid(
            "dropped-record",
            "Record 15 removed: record 16 now follows record 14 and does not chain to it.",
            file_bytes(recs[:15] + recs[16:]),
            1,
            "chain",
            "skips records",
            15,
        )
    )
    out.append(
        Invalid(
            "reordered-records",
            "Records 12 and 13 swapped.",
            file_bytes([*recs[:12], recs[13], recs[12], *recs[14:]]),
            1,
            "chain",
            "out of order",
            12,
        )
    )
    out.append(
        Invalid(
            "duplicated-record",
            "Record 10 stored twice (a copy, not a player's doing).",
            file_bytes([*recs[:11], recs[10], *recs[11:]]),
            1,
            "duplicate-record",
            "byte for byte",
            11,
        )
    )
    out.append(
        Invalid(
            "not-a-replay",
            "A text file.",
            b"This is not a replay, it is a shopping list: eggs, milk.\n",
            2,
            message="does not start with 'P66R'",
        )
    )
    out.append(Invalid("empty", "An empty file.", b"", 2, message="the file is empty"))
    out.append(
        Invalid(
            "future-version",
            "A file in format version 2, which this p2p66 cannot read.",
            MAGIC + b"\x00\x02\x00\x00" + whole[len(PREAMBLE) :],
            2,
            message="version 2 is a newer format",
        )
    )
    huge = bytearray(whole)
    at = len(PREAMBLE) + sum(len(frame(r)) for r in recs[:5])
    huge[at : at + 4] = b"\xff\xff\xff\xff"
    out.append(
        Invalid(
            "impossible-length",
            "Record 5's length field overwritten with 4 GiB.",
            bytes(huge),
            1,
            "corrupt",
            "impossible",
            5,
        )
    )

    # --- signatures and identities ---------------------------------------------------------
    moves = _moves(base)
    victim_index = next(i for i, _hand, _code in moves if recs[i].author == 1)
    body = decode(recs[victim_index])
    other = next(c for c in range(24) if MOVE_NOTATION[c] != body["move"])
    forged = sign_as(recs[victim_index], {**body, "move": MOVE_NOTATION[other]}, KEYS[0])
    out.append(
        Invalid(
            "forged-signature",
            "Alice rewrites one of Bob's moves and signs it with her own key.",
            file_bytes([*recs[:victim_index], forged, *recs[victim_index + 1 :]]),
            1,
            "signature",
            "is not signed by player 1's identity key",
            victim_index,
        )
    )
    hello = decode(recs[1])
    impostor = {**KEYS, 1: IMPOSTOR}
    swapped = [recs[0], sign_as(recs[1], {**hello, "public_key": public_key(IMPOSTOR)}, IMPOSTOR)]
    swapped = rechain([*swapped, *recs[2:]], 2, impostor)
    out.append(
        Invalid(
            "swapped-identity-key",
            "Bob's identity key replaced by Mallory's in his hello, and every later record "
            "re-signed and re-chained (as if both sides colluded): the coin flip binds both "
            "identity keys, so Mallory's coin reveal no longer matches the commitment.",
            file_bytes(swapped),
            1,
            "bad-coin-reveal",
            "does not match its commitment",
            first(swapped, lambda i, r, b: b["t"] == "coin-reveal"),
            1,
        )
    )

    # --- rules -----------------------------------------------------------------------------
    changed, rechained = _rules_change(base)
    edited = [*recs[:2], sign_as(recs[2], changed, KEYS[0]), *recs[3:]]
    out.append(
        Invalid(
            "rules-header-edited",
            "Alice changes the proposed rules after the game (so that a recorded close is "
            "illegal) and re-signs her proposal: Bob's accept signed the original proposal, "
            "so the chain breaks there.",
            file_bytes(edited),
            1,
            "chain",
            "does not chain",
            3,
        )
    )
    out.append(
        Invalid(
            "rules-header-rechained",
            "The same rules change with every later record re-signed and re-chained and the "
            "coin commitments recomputed (both sides colluding): the session id binds the "
            "rules, so the first deal no longer fits them.",
            file_bytes(rechained),
            1,
            "config-mismatch",
            "another hand configuration",
            8,
            base.verification.report.first_dealer,
        )
    )

    # --- cheating in play --------------------------------------------------------------------
    out.extend(_play_cheats(base, moves))
    out.append(_planted_point(proofs))
    revoke = verify_records(audit_cheat)
    problem = revoke.report.problem
    assert problem is not None and problem.kind == "illegal-move", revoke.report.headline()
    out.append(
        Invalid(
            "revoke-found-by-audit",
            "Bob's cheating client discards off-suit although he holds the suit led, after the "
            "talon is closed. Nobody can see it during play (his cards are hidden); the "
            "end-of-hand audit shows it and names the move's record.",
            file_bytes(audit_cheat),
            1,
            "illegal-move",
            "the revealed deck shows that player 1's move was illegal",
            problem.record,
            1,
            problem.detected_at,
        )
    )
    return out


def _rules_rechained(base: Base, changed: dict[str, Any]) -> list[Record]:
    """Proposal changed, coin commitments recomputed for it, everything re-signed."""
    recs = base.records
    out = [*recs[:2], sign_as(recs[2], changed, KEYS[0])]
    machine = Machine()
    for record in out:
        machine.receive(record)
    context = machine.coin_context()
    nonces = {r.author: decode(r)["nonce"] for r in recs if decode(r)["t"] == "coin-reveal"}
    for r in recs[3:]:
        body = decode(r)
        if body["t"] == "coin-commit":
            body = {**body, "commitment": coin_commitment(context, r.author, nonces[r.author])}
            out.append(sign_as(r, body, KEYS[r.author]))
        else:
            out.append(r)
    return rechain(out, 3, KEYS)


def _rules_change(base: Base) -> tuple[dict[str, Any], list[Record]]:
    """A proposal under which a recorded close is illegal, and the game re-chained to it.

    The coin flip (so the first dealer) depends on the rules too; of the changes that
    forbid the close, take the first that keeps the first dealer, so that what gives the
    change away is the deal itself, not whose turn it is to deal.
    """
    propose = decode(base.records[2])
    for change in ({"allow_close": False}, {"close_before_draw": False}):
        changed = {**propose, "options": {**propose["options"], **change}}
        rechained = _rules_rechained(base, changed)
        dealer = verify_records(rechained[:8]).report.first_dealer
        if dealer == base.verification.report.first_dealer:
            return changed, rechained
    raise LookupError("every rules change moves the first dealer")


def _play_cheats(base: Base, moves: list[tuple[int, int, int]]) -> list[Invalid]:
    recs = base.records
    out: list[Invalid] = []

    # An illegal move: declaring 66 at the very first lead of a hand.
    index, hand, _code = next(
        (i, h, c) for i, h, c in moves if _state_before(base, i).tricks_played == 0
    )
    cheat = recs[index].author
    body = decode(recs[index])
    illegal = sign_as(recs[index], {**body, "move": "declare", "data": {}}, KEYS[cheat])
    out.append(
        Invalid(
            "illegal-move",
            f"{NAMES[cheat].title()} declares 66 at the first lead of hand {hand}, before any "
            "trick, and signs it.",
            file_bytes([*recs[:index], illegal]),
            1,
            "illegal-move",
            "made an illegal move",
            index,
            cheat,
        )
    )

    # Equivocation: the same player signs two different records with the same number.
    index = moves[3][0]
    cheat = recs[index].author
    body = decode(recs[index])
    state = _state_before(base, index)
    alt = next(c for c in state.legal_codes() if MOVE_NOTATION[c] != body["move"])
    twin = sign_as(recs[index], {**body, "move": MOVE_NOTATION[alt]}, KEYS[cheat])
    out.append(
        Invalid(
            "same-sequence-number",
            "A player signs two different moves with the same sequence number (equivocation): "
            "both records are in the file.",
            file_bytes([*recs[: index + 1], twin]),
            1,
            "equivocation",
            "signed two different records with sequence number",
            index + 1,
            cheat,
        )
    )

    # A wrong seed reveal at the end of hand 1.
    index = first(recs, lambda i, r, b: b["t"] == "reveal")
    cheat = recs[index].author
    body = decode(recs[index])
    payload = decode_payload(body["data"]["payload"])
    assert isinstance(payload, SeedReveal)
    bad_seed = SeedReveal(payload.hand, payload.seat, payload.seq, bytes(32))
    wrong = sign_as(recs[index], _with_payload(body, bad_seed), KEYS[cheat])
    out.append(
        Invalid(
            "wrong-seed-reveal",
            "A player reveals another hand seed than the one it committed to, and signs it.",
            file_bytes([*recs[:index], wrong]),
            1,
            "bad-seed-reveal",
            "does not match its commitment",
            index,
            cheat,
        )
    )

    # A card that was never dealt: leading the opponent's card with one's own key for it.
    index, hand, _code = next(
        (i, h, c) for i, h, c in moves if c < 24 and _state_before(base, i).phase == 0
    )
    cheat = recs[index].author
    state = _state_before(base, index)
    deck = base.deck(hand)
    theirs = max(c for c in range(24) if state.hands[1 - cheat] >> c & 1)
    pos = deck.index(theirs)
    secrets = base.secrets(hand, cheat)
    body = decode(recs[index])
    old = decode_payload(body["data"]["payload"])
    assert isinstance(old, KeyReveal)
    reveals = tuple(
        Reveal("play", pos, secrets.keys[pos], card=theirs) if r.kind == "play" else r
        for r in old.reveals
    )
    payload = KeyReveal(old.hand, old.seat, old.seq, reveals)
    stolen = sign_as(
        recs[index], {**_with_payload(body, payload), "move": MOVE_NOTATION[theirs]}, KEYS[cheat]
    )
    out.append(
        Invalid(
            "card-never-dealt",
            f"{NAMES[cheat].title()} leads a card that was dealt to the opponent, opening its "
            "position with its own key.",
            file_bytes([*recs[:index], stolen]),
            1,
            "not-your-card",
            "not-your-card",
            index,
            cheat,
        )
    )

    # A false score claim: a marriage announced without the partner card.
    index, hand, card = _marriage_bluff(base, moves)
    cheat = recs[index].author
    state = _state_before(base, index)
    deck = base.deck(hand)
    keys = base.secrets(hand, cheat).keys
    body = decode(recs[index])
    old = decode_payload(body["data"]["payload"])
    assert isinstance(old, KeyReveal)
    mine = [c for c in range(24) if state.hands[cheat] >> c & 1 and c != card]
    led, shown = deck.index(card), deck.index(mine[0])
    reveals = (
        *(r for r in old.reveals if r.kind == "take"),
        Reveal("play", led, keys[led], card=card),
        Reveal("marriage", shown, keys[shown], card=card ^ 1, partner=led),
        *(r for r in old.reveals if r.kind not in ("take", "play")),
    )
    payload = KeyReveal(old.hand, old.seat, old.seq, reveals)
    claim = sign_as(
        recs[index],
        {**_with_payload(body, payload), "move": MOVE_NOTATION[MARRY_BASE + card]},
        KEYS[cheat],
    )
    out.append(
        Invalid(
            "false-marriage",
            "A false score claim. There is no score message: every verifier computes the "
            "points, and a false 'declare' is legal (scored against the declarer, see the "
            f"golden games). What a player can falsely claim is points: {NAMES[cheat]} "
            "announces a marriage (20 or 40) without the partner card, showing another card "
            "under the partner's name.",
            file_bytes([*recs[:index], claim]),
            1,
            "wrong-card-claim",
            "wrong-card-claim",
            index,
            cheat,
        )
    )

    # A card key that does not match its commitment.
    index = first(
        recs,
        lambda i, r, b: (
            b["t"] == "move"
            and "payload" in b["data"]
            and any(x["kind"] == "to" for x in b["data"]["payload"]["reveals"])
        ),
    )
    cheat = recs[index].author
    body = decode(recs[index])
    old = decode_payload(body["data"]["payload"])
    assert isinstance(old, KeyReveal)
    hand = old.hand
    secrets = base.secrets(hand, cheat)
    reveals = tuple(
        Reveal("to", r.pos, secrets.keys[(r.pos + 1) % len(secrets.keys)], to=r.to)
        if r.kind == "to"
        else r
        for r in old.reveals
    )
    wrong_key = sign_as(
        recs[index],
        _with_payload(body, KeyReveal(old.hand, old.seat, old.seq, reveals)),
        KEYS[cheat],
    )
    out.append(
        Invalid(
            "wrong-card-key",
            "A player sends the opponent a key for a drawn card that does not match its "
            "key commitment (to give the opponent a wrong card).",
            file_bytes([*recs[:index], wrong_key]),
            1,
            "wrong-key",
            "not matching its commitment",
            index,
            cheat,
        )
    )

    # A move sent out of turn.
    index = moves[0][0]
    cheat = 1 - recs[index].author
    body = decode(recs[index])
    out_of_turn = make_record(
        recs[index].seq, recs[index].prev, cheat, recs[index].body, KEYS[cheat].sign
    )
    out.append(
        Invalid(
            "out-of-turn",
            f"{NAMES[cheat].title()} sends the first move of the match although it is the "
            "other player's lead.",
            file_bytes([*recs[:index], out_of_turn]),
            1,
            "out-of-turn",
            "out of turn",
            index,
            cheat,
        )
    )

    # Garbage signed by a player.
    index = moves[1][0]
    cheat = recs[index].author
    garbage = sign_as(recs[index], b"\xc1 not msgpack", KEYS[cheat])
    out.append(
        Invalid(
            "malformed-message",
            "A player signs and sends a message that is not msgpack at all.",
            file_bytes([*recs[:index], garbage]),
            1,
            "malformed",
            "malformed message",
            index,
            cheat,
        )
    )

    # A record after the end of the match.
    last = recs[-1]
    extra_author = 1 - last.author
    extra = make_record(
        last.seq + 1,
        last.digest,
        extra_author,
        msg.encode(msg.Resign("one more thing")),
        KEYS[extra_author].sign,
    )
    out.append(
        Invalid(
            "after-the-end",
            "A signed record appended after the match was over.",
            file_bytes([*recs, extra]),
            1,
            "after-the-end",
            "after the match was over",
            len(recs),
            extra_author,
        )
    )
    return out


def _marriage_bluff(base: Base, moves: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """A lead (record, hand, card) by a player holding a king or queen without its partner,
    while marriages are allowed."""
    for index, hand, code in moves:
        state = _state_before(base, index)
        held = [c for c in range(24) if state.hands[state.to_act] >> c & 1]
        lone = [c for c in held if c % 6 in (KING, QUEEN) and c ^ 1 not in held]
        if code < 24 and state.phase == 0 and state.talon_open and lone and len(held) > 2:
            return index, hand, lone[0]
    raise LookupError("no lead by a player with a lone king or queen")


def _planted_point(proofs: Base) -> Invalid:
    """The dealer's shuffled deck carries twice a card's point: the proof fails."""
    recs = proofs.records
    index = first(recs, lambda i, r, b: b["t"] == "deal")
    cheat = recs[index].author
    body = decode(recs[index])
    step = body["data"]["payloads"][0]
    deck = list(decode_points(step["deck"], None, "deck"))
    deck[1] = double(deck[0])  # type: ignore[call-overload]
    planted = {**step, "deck": b"".join(deck)}
    data = {"payloads": [planted, *body["data"]["payloads"][1:]]}
    cheated = sign_as(recs[index], {**body, "data": data}, KEYS[cheat])
    return Invalid(
        "planted-point",
        "Proofs on: the dealer puts twice the point of one card beside it in its shuffled "
        "deck, to track that card; the shuffle proof fails at once.",
        file_bytes([*recs[:index], cheated]),
        1,
        "invalid-shuffle-proof",
        "lock-and-shuffle proof fails",
        index,
        cheat,
    )


# ------------------------------------------------------------------------ writing


def build() -> dict[Path, bytes]:
    """Every file of replays/, by path, as bytes."""
    files: dict[Path, bytes] = {}
    manifest: dict[str, Any] = {}
    played: dict[str, list[Record]] = {}
    for golden in GOLDEN_GAMES:
        records = play(golden.game)
        played[golden.name] = records
        report = verify_records(records).report
        files[GOLDEN / f"{golden.name}.p66"] = file_bytes(records)
        files[GOLDEN / f"{golden.name}.json"] = _json(report.to_json())
        manifest[f"{golden.name}.p66"] = {
            "about": golden.about,
            "features": list(golden.features),
            "summary": f"{golden.name}.json",
        }
    files[GOLDEN / "MANIFEST.json"] = _json(manifest)
    base = Base(play(Game(SIXTY_SIX.with_options(match_target=2), 92, (EAGER, EAGER))))
    proofs = Base(played["sixty-six-proofs"])
    revoke = play(
        Game(
            SIXTY_SIX.with_options(match_target=1), 101, (EAGER, Policy(close_at=20)), revoker=True
        )
    )
    expectations: dict[str, Any] = {}
    for item in make_invalid(base, proofs, revoke):
        files[INVALID / f"{item.name}.p66"] = item.data
        expectations[f"{item.name}.p66"] = item.expectation()
    files[INVALID / "MANIFEST.json"] = _json(expectations)
    files.update(_table_files())
    return files


def _table_files() -> dict[Path, bytes]:
    """replays/table/: the games for three and four (``scripts/make_table_replays.py``)."""
    import importlib.util

    path = Path(__file__).resolve().parent / "make_table_replays.py"
    spec = importlib.util.spec_from_file_location("make_table_replays", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_table_replays", module)
    spec.loader.exec_module(module)
    table: dict[Path, bytes] = module.build()
    return table


def _json(obj: object) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()


def main(argv: list[str] | None = None) -> int:
    return regenerate_files(build(), check=check_wanted(__doc__, argv), clean=(GOLDEN, INVALID))


if __name__ == "__main__":
    sys.exit(main())
