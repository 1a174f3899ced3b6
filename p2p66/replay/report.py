"""What verifying a replay established, as plain values: for people, JSON and exit codes.

A ``Report`` is the verifier's whole answer: who played (names, keys,
fingerprints), under which rules, every hand's result, the match result or
who the game is waiting on, and, for a bad file, the first bad record, what
is wrong with it and who is to blame. ``to_json`` is the versioned document
of ``p2p66 verify --json``; ``summary_lines`` is the short human summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum, StrEnum
from typing import Any, Final

from p2p66.crypto.config import ProofKind, proof_kind
from p2p66.engine import HandResult, Marriage, RuleOptions
from p2p66.engine.cards import CARD_CODES, SUIT_NAMES
from p2p66.engine.options import base_preset
from p2p66.engine.table import TableOptions, table_label
from p2p66.net.identity import PeerIdentity, fingerprint, short_label

REPORT_FORMAT: Final = "p2p66-verify-report"
REPORT_VERSION: Final = 1


class Status(Enum):
    """The verdict; ``exit_code`` is what ``p2p66 verify`` exits with."""

    VALID = "valid"  # a complete match (won, resigned or rules refused), every record checked
    UNFINISHED = "unfinished"  # every record checked; the game simply has not ended
    INVALID = "invalid"  # a record is bad (damaged, forged, illegal): see ``problem``
    UNREADABLE = "unreadable"  # not a replay at all, or a format this version cannot read

    @property
    def exit_code(self) -> int:
        return {"valid": 0, "unfinished": 0, "invalid": 1, "unreadable": 2}[self.value]


class Ending(Enum):
    """How the match stands at the end of the checked records."""

    WON = "won"
    RESIGNED = "resigned"
    ABANDONED = "abandoned"  # a player went silent; the other's signed claim ends the match
    REFUSED = "refused"  # the joiner refused the proposed rules: no match was played
    UNFINISHED = "unfinished"


@dataclass(frozen=True, slots=True)
class Player:
    """One seat as its hello record introduced it."""

    seat: int
    name: str
    public_key: bytes
    software: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One hand as verified. ``audited``: both seeds revealed and every move re-judged."""

    number: int
    dealer: int
    trump: int | None  # card id of the face-up trump card, once dealt
    first_record: int
    last_record: int
    moves: int
    audited: bool
    result: HandResult | None
    game_points: tuple[int, int] | None  # the match standing after this hand
    marriages: tuple[Marriage, ...]
    exchanges: tuple[int, ...]  # seats that exchanged the trump card


@dataclass(frozen=True, slots=True)
class TableHandSummary:
    """One hand of a game for three or four as verified: the result in words, the standing."""

    number: int
    dealer: int
    first_record: int
    last_record: int
    moves: int
    audited: bool
    outcome: str | None  # the result in one sentence, once audited
    scores: tuple[int, ...] | None  # the match standing per side after this hand


class ProblemKind(StrEnum):
    """Every kind a problem can have: the fixed list of protocol/REPLAY.md section 5."""

    # the file: nobody can be blamed from the file (anyone can edit one)
    TRUNCATED = "truncated"
    CORRUPT = "corrupt"
    CHAIN = "chain"
    DUPLICATE_RECORD = "duplicate-record"
    SIGNATURE = "signature"
    # a record properly signed by a player: that player is to blame
    EQUIVOCATION = "equivocation"
    MALFORMED = "malformed"
    OUT_OF_TURN = "out-of-turn"
    UNEXPECTED_MESSAGE = "unexpected-message"
    AFTER_THE_END = "after-the-end"
    IDENTITY = "identity"
    RULES = "rules"
    BAD_COIN_REVEAL = "bad-coin-reveal"
    WRONG_HAND = "wrong-hand"
    IMPERSONATION = "impersonation"
    WITHHELD_KEY = "withheld-key"
    EXTRA_KEY = "extra-key"
    ILLEGAL_MOVE = "illegal-move"
    FALSE_CLAIM = "false-claim"  # an abandonment claimed when it was the claimant's own turn
    FALSE_ABORT = "false-abort"  # a hand stopped for an audit that finds every step sound
    # the mental-poker codes of SPEC.md section 14 (``p2p66.crypto.errors``)
    CHEATING = "cheating"
    REPLAYED_MESSAGE = "replayed-message"
    OUT_OF_ORDER_MESSAGE = "out-of-order-message"
    CONFIG_MISMATCH = "config-mismatch"
    BAD_DECK = "bad-deck"
    DUPLICATED_CARD = "duplicated-card"
    MADE_UP_CARD = "made-up-card"
    PLANTED_POINT = "planted-point"
    UNKNOWN_CARD_OPENED = "unknown-card-opened"
    INVALID_SHUFFLE_PROOF = "invalid-shuffle-proof"
    SHUFFLE_NOT_FROM_SEED = "shuffle-not-from-seed"
    INVALID_REKEY = "invalid-rekey"
    WRONG_KEY = "wrong-key"
    BAD_SEED_REVEAL = "bad-seed-reveal"
    MISSING_SEED = "missing-seed"
    FALSE_CARD_CLAIM = "false-card-claim"
    NOT_YOUR_CARD = "not-your-card"
    WRONG_CARD_CLAIM = "wrong-card-claim"
    FALSE_MARRIAGE = "false-marriage"
    FALSE_EXCHANGE = "false-exchange"
    POSITION_CONFLICT = "position-conflict"
    # fallbacks: a protocol error with no more specific kind; a fault of this verifier
    PROTOCOL = "protocol"
    INTERNAL = "internal"

    @classmethod
    def named(cls, text: str) -> ProblemKind | None:
        """The kind called ``text``, or None if there is no such kind."""
        try:
            return cls(text)
        except ValueError:
            return None


def score_line(scores: Sequence[int]) -> str:
    """A table's scores in seat or side order: "3-1", but "3 : 0 : -1" once one is
    negative ("3-0--1" reads as nonsense). ASCII, so reports and exports stay plain; the
    dash is kept otherwise, so the common line reads as it always has."""
    return ("-" if all(s >= 0 for s in scores) else " : ").join(str(s) for s in scores)


UNATTRIBUTABLE: Final = frozenset(
    {
        ProblemKind.CHAIN,
        ProblemKind.DUPLICATE_RECORD,
        ProblemKind.SIGNATURE,
        ProblemKind.CORRUPT,
        ProblemKind.TRUNCATED,
        ProblemKind.INTERNAL,
    }
)
"""Problem kinds no player can be blamed for from the file alone."""

NOBODY: Final = "no player can be blamed from the file"


@dataclass(frozen=True, slots=True)
class Problem:
    """The first bad record. ``culprit`` is None when no player can be blamed from the file
    (damage, or editing after signing); ``detected_at`` differs from ``record`` when the
    fault came to light later (an illegal move shown up by the end-of-hand audit)."""

    record: int
    detected_at: int
    kind: ProblemKind
    message: str
    culprit: int | None


@dataclass(frozen=True, slots=True)
class Waiting:
    """Who must send the next record of an unfinished game, and what."""

    seat: int
    what: str


@dataclass(frozen=True, slots=True)
class Report:
    """The verifier's answer for one file."""

    status: Status
    records: int
    format_version: int | None = None
    players: tuple[Player, ...] = ()
    options: RuleOptions | None = None
    soundness: int = 0
    move_seconds: int = 0
    session_id: bytes | None = None
    first_dealer: int | None = None
    hands: tuple[HandSummary, ...] = ()
    ending: Ending = Ending.UNFINISHED
    winner: int | None = None
    game_points: tuple[int, int] = (0, 0)
    resigned: int | None = None
    reason: str = ""  # the resignation or refusal reason
    abandoned: int | None = None  # the seat that went silent (ending ABANDONED)
    abandoned_at: int | None = None  # the record it owed
    waiting: Waiting | None = None
    problem: Problem | None = None
    unreadable: str = ""  # why the file is not a readable replay
    table: TableOptions | None = None  # a game for three or four players (``options`` is None)
    scores: tuple[int, ...] = ()  # a table game's scores per side (partnership or player)
    table_hands: tuple[TableHandSummary, ...] = ()
    viewer: int | None = None  # the seat of the person reading it, called "you" (``seen_by``)

    @property
    def exit_code(self) -> int:
        return self.status.exit_code

    def seen_by(self, seat: int) -> Report:
        """The same report told to the player at ``seat``: "you win the match"."""
        return replace(self, viewer=seat)

    def declared_name(self, seat: int) -> str:
        """The name a seat's hello declared (or "seat N" before it)."""
        return self.players[seat].name if seat < len(self.players) else f"seat {seat}"

    def name(self, seat: int | None) -> str:
        """A seat's player as a sentence calls it: "you" for the viewer; a name that
        two players share comes with its key's fingerprint ("root (3f2a)"), as the
        board shows it (``distinct_names``)."""
        if seat is None:
            return "nobody"
        if seat == self.viewer:
            return "you"
        if seat >= len(self.players):
            return f"seat {seat}"
        player = self.players[seat]
        if any(o.name == player.name and o.public_key != player.public_key for o in self.players):
            return short_label(PeerIdentity(player.name, player.public_key))
        return player.name

    def who(self, seat: int | None) -> str:
        return "nobody" if seat is None else f"{self.name(seat)} (seat {seat})"

    def side_name(self, side: int | None) -> str:
        """A table game's side: a partnership's two players, or a player alone."""
        if side is None:
            return "nobody"
        if len(self.players) == 4:
            return f"{self.name(side)} and {self.name(side + 2)}"
        return self.name(side)

    def _wins(self, seat: int | None) -> str:
        """``seat``'s name and "wins", or "you win"."""
        return f"{self.name(seat)} {'win' if seat is not None and seat == self.viewer else 'wins'}"

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """The versioned ``verify --json`` document (without the file name)."""
        return {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "status": self.status.value,
            "exit_code": self.exit_code,
            "summary": self.headline(),
            "records": self.records,
            "format_version": self.format_version,
            "players": [player_json(p) for p in self.players],
            "rules": self.rules_json(),
            "session_id": self.session_id.hex() if self.session_id is not None else None,
            "first_dealer": self.first_dealer,
            "hands": [hand_json(h) for h in self.hands]
            + [table_hand_json(h) for h in self.table_hands],
            "match": {
                "ending": self.ending.value,
                "winner": self.winner,
                "game_points": list(self.game_points),
                **({"scores": list(self.scores)} if self.table is not None else {}),
                "resigned": self.resigned,
                "reason": self.reason,
                **(
                    {"abandoned": self.abandoned, "abandoned_at": self.abandoned_at}
                    if self.ending is Ending.ABANDONED
                    else {}
                ),
            },
            "waiting_on": None
            if self.waiting is None
            else {"seat": self.waiting.seat, "what": self.waiting.what},
            "error": None if self.problem is None else self.problem_json(),
            "unreadable": self.unreadable or None,
        }

    def rules_json(self) -> dict[str, Any] | None:
        if self.table is not None:
            return {
                "preset": table_label(self.table),
                "options": self.table.to_dict(),
                "soundness": self.soundness,
                "move_seconds": self.move_seconds,
            }
        if self.options is None:
            return None
        return {
            "preset": base_preset(self.options),
            "options": self.options.to_dict(),
            "soundness": self.soundness,
            "move_seconds": self.move_seconds,
        }

    def problem_json(self) -> dict[str, Any]:
        p = self.problem
        assert p is not None
        return {
            "record": p.record,
            "detected_at": p.detected_at,
            "kind": p.kind,
            "message": p.message,
            "culprit": p.culprit,
            "culprit_name": None if p.culprit is None else self.declared_name(p.culprit),
            "blame": NOBODY if p.culprit is None else self.who(p.culprit),
            "valid_records": p.record,
        }

    # ------------------------------------------------------------------ text

    def headline(self) -> str:
        """One line: the verdict."""
        if self.status is Status.UNREADABLE:
            return f"unreadable: {self.unreadable}"
        if self.status is Status.INVALID:
            p = self.problem
            assert p is not None
            to_blame = "are to blame" if p.culprit == self.viewer else "is to blame"
            blame = f"{self.who(p.culprit)} {to_blame}" if p.culprit is not None else NOBODY
            return f"INVALID at record {p.record} ({p.kind}): {p.message} [{blame}]"
        if self.status is Status.UNFINISHED:
            wait = self.waiting
            tail = f", waiting on {self.who(wait.seat)} to {wait.what}" if wait else ""
            return f"valid so far, unfinished{tail}"
        if self.ending is Ending.REFUSED:
            return f"valid: {self.name(1)} refused the rules ({self.reason}); no match was played"
        if self.table is not None:
            return f"valid: {self.table_ending()}"
        if self.ending is Ending.RESIGNED:
            return (
                f"valid: {self.name(self.resigned)} resigned ({self.reason}); "
                f"{self._wins(self.winner)} the match"
            )
        if self.ending is Ending.ABANDONED:
            return f"valid: {self.abandonment()}"
        won = self.game_points[self.winner] if self.winner is not None else 0
        lost = self.game_points[1 - self.winner] if self.winner is not None else 0
        return f"valid: {self._wins(self.winner)} the match {won}-{lost}"

    def table_hand_line(self, h: TableHandSummary) -> str:
        dealer = f"dealer {self.name(h.dealer)}"
        if h.outcome is None:
            return f"{dealer}; {self.stop_note()} after {h.moves} moves"
        standing = score_line(h.scores) if h.scores else "?"
        return f"{dealer}; {h.outcome}; match {standing}"

    def table_ending(self) -> str:
        """How a match of three or four ended, in words."""
        scores = score_line(self.scores)
        verb = "win" if len(self.players) == 4 or self.winner == self.viewer else "wins"
        after = (
            f"{self.side_name(self.winner)} {verb} the match"
            if self.winner is not None
            else "the match ends without a winner"  # three seats: nobody gains by a quit
        )
        if self.ending is Ending.RESIGNED:  # signed by the seat that left: "seat 2 (kai)"
            who = self.name(self.resigned)
            if self.resigned != self.viewer:
                who = f"seat {self.resigned} ({who})"
            return f"{who} resigned ({self.reason}); {after}"
        if self.ending is Ending.ABANDONED:  # the host's claim: "abandoned by seat 2 (kai)"
            silent = f"seat {self.abandoned} ({self.name(self.abandoned)})"
            return (
                f"abandoned by {silent} at record {self.abandoned_at} "
                f"(it owed that record); {after}"
            )
        return f"{after} {scores}"

    def stop_note(self) -> str:
        """Why the last hand has no result: still going, resigned, or cut by a bad record."""
        if self.problem is not None:
            return "stopped by the bad record"
        if self.ending is Ending.RESIGNED:
            return f"{self.name(self.resigned)} resigned"
        if self.ending is Ending.ABANDONED:
            return f"{self.name(self.abandoned)} abandoned the match"
        return "unfinished"

    def abandonment(self) -> str:
        """The forfeit in words: who went silent owing which record, and who wins."""
        silent = self.name(self.abandoned)
        whose = "your" if self.abandoned == self.viewer else f"{silent}'s"
        return (
            f"{silent} abandoned the match at record {self.abandoned_at} (it was {whose} "
            f"turn); {self._wins(self.winner)} by forfeit"
        )

    def rules_line(self) -> str:
        """The rules in a few words: preset, match target, proofs."""
        rules_of = self.table or self.options
        if rules_of is None:
            return "rules: not yet proposed"
        proofs = f"proofs at soundness {self.soundness}" if self.soundness else "proofs off"
        if proof_kind(self.soundness) is ProofKind.ARGUMENT:
            proofs = "proofs on (shuffle argument)"
        if self.table is not None:
            rules = table_label(self.table)
        else:
            assert self.options is not None
            rules = base_preset(self.options) or "custom rules"
        return f"rules: {rules}, match to {rules_of.match_target}, {proofs}"

    def summary_lines(self) -> list[str]:
        """The short human summary of ``p2p66 verify``."""
        lines = [self.headline()]
        if self.status is Status.UNREADABLE:
            return lines
        if len(self.players) == 2:
            a, b = self.players
            lines.append(
                f"players: {a.name} (seat 0, key {a.fingerprint}) vs "
                f"{b.name} (seat 1, key {b.fingerprint})"
            )
        elif self.players:
            seated = ", ".join(
                f"{p.name} (seat {p.seat}, key {p.fingerprint})" for p in self.players
            )
            lines.append(f"players: {seated}")
        if self.options is not None or self.table is not None:
            lines.append(f"{self.rules_line()} ({self.records} records)")
        names = (self.name(0), self.name(1))
        for h in self.hands:
            lines.append(f"hand {h.number}: {hand_line(h, names, self.stop_note())}")
        for t in self.table_hands:
            lines.append(f"hand {t.number}: {self.table_hand_line(t)}")
        if self.problem is not None and self.problem.record > 0:
            lines.append(f"records 0-{self.problem.record - 1} are valid")
        return lines


def hand_line(h: HandSummary, names: tuple[str, str], note: str = "unfinished") -> str:
    """One hand in one line: its result and the match standing, or how far it got."""
    dealer = f"dealer {names[h.dealer]}"
    if h.result is None:
        return f"{dealer}; {note} after {h.moves} moves"
    standing = f"{h.game_points[0]}-{h.game_points[1]}" if h.game_points else "?"
    return f"{dealer}; {h.result.describe(names)}; match {standing}"


def player_json(p: Player) -> dict[str, Any]:
    return {
        "seat": p.seat,
        "name": p.name,
        "public_key": p.public_key.hex(),
        "fingerprint": p.fingerprint,
        "software": p.software,
    }


def result_json(r: HandResult | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "winner": r.winner,
        "game_points": r.game_points,
        "how": r.how.value,
        "card_points": list(r.card_points),
        "tricks": list(r.tricks),
        "declarer": r.declarer,
        "closer": r.closer,
    }


def hand_json(h: HandSummary) -> dict[str, Any]:
    return {
        "number": h.number,
        "dealer": h.dealer,
        "trump": None if h.trump is None else CARD_CODES[h.trump],
        "records": [h.first_record, h.last_record],
        "moves": h.moves,
        "audited": h.audited,
        "result": result_json(h.result),
        "game_points": None if h.game_points is None else list(h.game_points),
        "marriages": [
            {"seat": m.seat, "suit": SUIT_NAMES[m.suit], "points": m.points} for m in h.marriages
        ],
        "exchanges": list(h.exchanges),
    }


def table_hand_json(h: TableHandSummary) -> dict[str, Any]:
    return {
        "number": h.number,
        "dealer": h.dealer,
        "records": [h.first_record, h.last_record],
        "moves": h.moves,
        "audited": h.audited,
        "outcome": h.outcome,
        "scores": None if h.scores is None else list(h.scores),
    }
