"""The two messages of a star link (host <-> one joiner), one per channel DATA message.

``[0, record, receipt]``: a signed record (``p2p66.session.records``). From a
joiner it is the joiner's own record and ``receipt`` is empty; from the host
it is any record of the chain, with the host's 64-byte receipt signature for
it (the signature of the host's head acknowledgement of that record).

``[1, ack]``: a head acknowledgement (``p2p66.session.headacks``): the host's
receipt for the joiner's own record, a joiner's acknowledgement, or one the
host relays from another joiner.

After a dropped link, a joiner's new channel begins with a resynchronisation:

``[3, have, head]``: the joiner's first message (``ResumeRequest``): how many
records of the chain it holds that the host has receipted, and the digest of
the last of them (the genesis digest for none).

``[4, have, acked]``: the host's answer (``ResumeReply``): how many records
its chain holds, and the last position it holds the joiner's acknowledgement
of (-1: none). The host then sends what the joiner lacks, as it would have
live (records with receipts, receipts for the joiner's own records); the
joiner sends its own records the host lacks, and its last acknowledgement if
the host lacks it.

``[2, seat, state]``: the host's word that a seat's link is ``reconnecting``
or ``back`` (``LinkNotice``). It is unsigned and proves nothing: it is how
the others know why the match waits, and an honest host always sends
``reconnecting`` before it claims that seat abandoned the match.

All are canonical msgpack; anything else is the sender's protocol error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import msgpack

from p2p66.session.canonical import NonCanonical, unpack
from p2p66.session.headacks import HeadAck, HeadAckError
from p2p66.session.records import (
    HASH_SIZE,
    MAX_BODY,
    MAX_PARTIES,
    SIG_SIZE,
    Record,
    RecordError,
)

KIND_RECORD: Final = 0
KIND_ACK: Final = 1
KIND_NOTICE: Final = 2
KIND_RESUME: Final = 3
KIND_RESUMED: Final = 4
LINK_STATES: Final = ("reconnecting", "back")
MAX_STAR_MESSAGE: Final = MAX_BODY + 1024


class StarWireError(ValueError):
    """A star message that does not decode (the sender's fault)."""


@dataclass(frozen=True, slots=True)
class RecordMessage:
    record: Record
    receipt: bytes = b""

    def encode(self) -> bytes:
        return msgpack.packb([KIND_RECORD, self.record.encode(), self.receipt])


@dataclass(frozen=True, slots=True)
class AckMessage:
    ack: HeadAck

    def encode(self) -> bytes:
        return msgpack.packb([KIND_ACK, self.ack.encode()])


@dataclass(frozen=True, slots=True)
class LinkNotice:
    seat: int
    state: str

    def encode(self) -> bytes:
        return msgpack.packb([KIND_NOTICE, self.seat, self.state])


@dataclass(frozen=True, slots=True)
class ResumeRequest:
    have: int
    head: bytes

    def encode(self) -> bytes:
        return msgpack.packb([KIND_RESUME, self.have, self.head])


@dataclass(frozen=True, slots=True)
class ResumeReply:
    have: int
    acked: int

    def encode(self) -> bytes:
        return msgpack.packb([KIND_RESUMED, self.have, self.acked])


StarMessage = RecordMessage | AckMessage | LinkNotice | ResumeRequest | ResumeReply


def decode_star_message(data: bytes) -> StarMessage:
    """Parse one star message; ``StarWireError`` says what is wrong."""
    if len(data) > MAX_STAR_MESSAGE:
        raise StarWireError(f"a star message has at most {MAX_STAR_MESSAGE} bytes")
    try:
        obj = unpack(data)
    except NonCanonical as exc:
        raise StarWireError(f"not a star message: {exc}") from None
    if not (isinstance(obj, list) and obj and type(obj[0]) is int):
        raise StarWireError("a star message is an array starting with its kind")
    message: StarMessage
    try:
        if obj[0] == KIND_RECORD and len(obj) == 3 and isinstance(obj[1], bytes):
            receipt = obj[2]
            if not (isinstance(receipt, bytes) and len(receipt) in (0, SIG_SIZE)):
                raise StarWireError("a record's receipt is empty or 64 bytes")
            message = RecordMessage(Record.decode(obj[1]), receipt)
        elif obj[0] == KIND_ACK and len(obj) == 2 and isinstance(obj[1], bytes):
            message = AckMessage(HeadAck.decode(obj[1]))
        elif obj[0] == KIND_NOTICE and len(obj) == 3:
            message = _notice(obj[1], obj[2])
        elif obj[0] == KIND_RESUME and len(obj) == 3:
            message = ResumeRequest(_count(obj[1], "have"), _digest(obj[2]))
        elif obj[0] == KIND_RESUMED and len(obj) == 3:
            message = ResumeReply(_count(obj[1], "have"), _count(obj[2], "acked", least=-1))
        else:
            raise StarWireError(f"unknown star message of kind {obj[0]} with {len(obj)} fields")
    except (RecordError, HeadAckError) as exc:
        raise StarWireError(str(exc)) from None
    return message


def _count(value: object, name: str, least: int = 0) -> int:
    if type(value) is not int or not least <= value < 2**40:
        raise StarWireError(f"a resynchronisation's {name} is a count, not {value!r}")
    return value


def _digest(value: object) -> bytes:
    if not isinstance(value, bytes) or len(value) != HASH_SIZE:
        raise StarWireError(f"a resynchronisation's head is a {HASH_SIZE}-byte digest")
    return value


def _notice(seat: object, state: object) -> LinkNotice:
    if type(seat) is not int or not 1 <= seat < MAX_PARTIES or state not in LINK_STATES:
        raise StarWireError("a link notice names a joiner's seat and one of " + str(LINK_STATES))
    assert isinstance(state, str)
    return LinkNotice(seat, state)
