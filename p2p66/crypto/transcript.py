"""The public record of one hand: its config and every payload, in the order applied.

Everything the audit needs except the seeds (which are in the transcript too
once the parties reveal them at the end of the hand). Both parties of a hand
hold the same payloads; the replay file stores them with its own signatures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from p2p66.crypto.config import HandConfig
from p2p66.crypto.errors import MalformedMessage
from p2p66.crypto.messages import HandPayload, SeedReveal, decode_payload

MAX_PAYLOADS = 10_000


@dataclass(frozen=True, slots=True)
class HandTranscript:
    """A hand's config and its payloads (all parties', in application order)."""

    config: HandConfig
    payloads: tuple[HandPayload, ...]

    def seeds(self) -> dict[int, bytes]:
        """The seeds revealed in the transcript, by seat."""
        return {p.seat: p.seed for p in self.payloads if isinstance(p, SeedReveal)}

    def to_wire(self) -> dict[str, Any]:
        return {"config": self.config.to_wire(), "payloads": [p.to_wire() for p in self.payloads]}

    @classmethod
    def from_wire(cls, obj: object) -> HandTranscript:
        if not isinstance(obj, Mapping) or set(obj) != {"config", "payloads"}:
            raise MalformedMessage("a hand transcript is a map with 'config' and 'payloads'")
        payloads = obj["payloads"]
        if not isinstance(payloads, list | tuple) or len(payloads) > MAX_PAYLOADS:
            raise MalformedMessage(f"transcript payloads must be a list of at most {MAX_PAYLOADS}")
        return cls(
            config=HandConfig.from_wire(obj["config"]),
            payloads=tuple(decode_payload(p) for p in payloads),
        )
