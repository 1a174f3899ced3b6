"""Signed head acknowledgements: "record ``seq`` of the chain, as I hold it, hashes to ``head``".

With three or four players every record travels through the host (a star,
``p2p66.live.star``), which cannot forge a record but could show different
records to different players. Acknowledgements make each player's view of
the chain a signed, checkable statement:

- the host's own acknowledgement (seat 0, no receipt) is its **receipt**: it
  goes with every record the host delivers, and back to the author of every
  record the host takes in, so an author can prove the host had its record;
- a joiner's acknowledgement carries, as ``receipt``, the host's signature for
  the same position, so anyone who reads it holds the host's own statement of
  what it showed that joiner.

Encoding: the msgpack array ``[seat, seq, head, sig, receipt]`` in canonical
form; ``receipt`` is empty for seat 0 and 64 bytes otherwise. What seat ``s``
signs: ``ACK_DOMAIN || table (32 bytes) || s (1 byte) || seq (8 bytes big
endian) || head || receipt``; the receipt is the host's signature over the
same input with seat 0 and an empty receipt. ``table`` is the id of the
seating every player signed in the lobby (``p2p66.net.seating``): it is not
sent, but it binds every acknowledgement to one match, so a statement from
another match (whose records may start out byte for byte the same) can never
pass for a contradiction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import msgpack

from p2p66.crypto.sigcheck import verify_ed25519
from p2p66.session.canonical import NonCanonical, unpack
from p2p66.session.records import HASH_SIZE, MAX_PARTIES, SIG_SIZE

ACK_DOMAIN: Final = b"p2p66/head-ack/v1\x00"
HOST_SEAT: Final = 0
MAX_ACK_BYTES: Final = 256


class HeadAckError(ValueError):
    """Bytes that are not a well-formed head acknowledgement."""


def ack_signing_input(table: bytes, seat: int, seq: int, head: bytes, receipt: bytes) -> bytes:
    if len(table) != HASH_SIZE:
        raise ValueError("a table id is 32 bytes")  # our caller's bug
    return ACK_DOMAIN + table + bytes([seat]) + seq.to_bytes(8, "big") + head + receipt


@dataclass(frozen=True, slots=True)
class HeadAck:
    """Seat ``seat`` signed that record ``seq`` of the chain hashes to ``head``."""

    seat: int
    seq: int
    head: bytes
    signature: bytes
    receipt: bytes = b""

    def encode(self) -> bytes:
        return msgpack.packb([self.seat, self.seq, self.head, self.signature, self.receipt])

    def signed_bytes(self, table: bytes) -> bytes:
        return ack_signing_input(table, self.seat, self.seq, self.head, self.receipt)

    def verify_signature(self, public_key: bytes, table: bytes) -> bool:
        """True if ``public_key`` (the seat's identity key) signed this for ``table``."""
        return verify_ed25519(public_key, self.signature, self.signed_bytes(table))

    def host_receipt(self) -> HeadAck | None:
        """The host's acknowledgement this one carries (``None`` for the host's own)."""
        if self.seat == HOST_SEAT:
            return None
        return HeadAck(HOST_SEAT, self.seq, self.head, self.receipt)

    @staticmethod
    def decode(data: bytes) -> HeadAck:
        """Parse an encoded acknowledgement; ``HeadAckError`` on anything malformed."""
        if len(data) > MAX_ACK_BYTES:
            raise HeadAckError(f"a head acknowledgement has at most {MAX_ACK_BYTES} bytes")
        try:
            obj = unpack(data)
        except NonCanonical as exc:
            raise HeadAckError(f"not a head acknowledgement: {exc}") from None
        if not (isinstance(obj, list) and len(obj) == 5):
            raise HeadAckError("a head acknowledgement is an array of 5 fields")
        seat, seq, head, sig, receipt = obj
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < MAX_PARTIES:
            raise HeadAckError("head acknowledgement seat must be a seat from 0 to 7")
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < 2**63:
            raise HeadAckError("head acknowledgement seq must be a non-negative integer")
        if not (isinstance(head, bytes) and len(head) == HASH_SIZE):
            raise HeadAckError("head acknowledgement head must be 32 bytes")
        if not (isinstance(sig, bytes) and len(sig) == SIG_SIZE):
            raise HeadAckError("head acknowledgement signature must be 64 bytes")
        want = 0 if seat == HOST_SEAT else SIG_SIZE
        if not (isinstance(receipt, bytes) and len(receipt) == want):
            raise HeadAckError(
                "the host's acknowledgement has an empty receipt"
                if seat == HOST_SEAT
                else "a joiner's acknowledgement carries the host's 64-byte receipt"
            )
        return HeadAck(seat, seq, head, sig, receipt)


def make_head_ack(
    table: bytes,
    seat: int,
    seq: int,
    head: bytes,
    sign: Callable[[bytes], bytes],
    *,
    receipt: bytes = b"",
) -> HeadAck:
    """Sign ``seat``'s acknowledgement of record ``seq`` = ``head`` (``receipt``: the host's)."""
    signature = sign(ack_signing_input(table, seat, seq, head, receipt))
    return HeadAck(seat, seq, head, signature, receipt)
