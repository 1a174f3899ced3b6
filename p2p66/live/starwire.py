"""The two messages of a star link (host <-> one joiner), one per channel DATA message.

``[0, record, receipt]``: a signed record (``p2p66.session.records``). From a
joiner it is the joiner's own record and ``receipt`` is empty; from the host
it is any record of the chain, with the host's 64-byte receipt signature for
it (the signature of the host's head acknowledgement of that record).

``[1, ack]``: a head acknowledgement (``p2p66.session.headacks``): the host's
receipt for the joiner's own record, a joiner's acknowledgement, or one the
host relays from another joiner.

Both are canonical msgpack; anything else is the sender's protocol error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import msgpack

from p2p66.session.canonical import NonCanonical, unpack
from p2p66.session.headacks import HeadAck, HeadAckError
from p2p66.session.records import MAX_BODY, SIG_SIZE, Record, RecordError

KIND_RECORD: Final = 0
KIND_ACK: Final = 1
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


StarMessage = RecordMessage | AckMessage


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
        else:
            raise StarWireError(f"unknown star message of kind {obj[0]} with {len(obj)} fields")
    except (RecordError, HeadAckError) as exc:
        raise StarWireError(str(exc)) from None
    return message
