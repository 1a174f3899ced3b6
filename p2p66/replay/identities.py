"""Who the players of a replay are to you: a replay's names are self-declared, its keys are not.

A name in a hello record is whatever its author typed; only the key is
bound to the signatures. So ``verify`` marks each player against your
``known_peers`` pins (read only): "known to you as NAME" when you pinned that
very key, "key differs from the one you pinned for NAME" when the declared
name is pinned to another key, else "unknown key". A third party with no
pins of their own passes ``--no-known-peers``: nothing is marked.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from p2p66.net.identity import IdentityError, KnownPeers
from p2p66.replay.report import Player


class Recognition(Enum):
    KNOWN = "known"
    UNKNOWN = "unknown-key"
    KEY_DIFFERS = "key-differs"
    NOT_CHECKED = "not-checked"


@dataclass(frozen=True, slots=True)
class Recognised:
    """One player as your pins see it; ``pinned_name`` is the name of the pin concerned."""

    seat: int
    recognition: Recognition
    pinned_name: str | None = None

    def describe(self) -> str:
        if self.recognition is Recognition.KNOWN:
            return f"known to you as {self.pinned_name}"
        if self.recognition is Recognition.KEY_DIFFERS:
            return f"key differs from the one you pinned for {self.pinned_name}"
        if self.recognition is Recognition.UNKNOWN:
            return "unknown key"
        return "not checked against known peers"

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.recognition.value,
            "pinned_name": self.pinned_name,
            "text": self.describe(),
        }


def load_pins() -> tuple[KnownPeers | None, str]:
    """Your pins, or None and why they cannot be read (a broken file is not the replay's fault)."""
    try:
        return KnownPeers.load(), ""
    except (IdentityError, OSError) as exc:
        return None, f"known peers not checked: {exc}"


def recognise(player: Player, pins: KnownPeers | None) -> Recognised:
    if pins is None:
        return Recognised(player.seat, Recognition.NOT_CHECKED)
    known = pins.name_for_key(player.public_key)
    if known is not None:
        return Recognised(player.seat, Recognition.KNOWN, known)
    pinned = pins.key_of(player.name)
    if pinned is not None and pinned != player.public_key:
        return Recognised(player.seat, Recognition.KEY_DIFFERS, player.name)
    return Recognised(player.seat, Recognition.UNKNOWN)


def recognise_all(players: tuple[Player, ...], pins: KnownPeers | None) -> list[Recognised]:
    return [recognise(p, pins) for p in players]
