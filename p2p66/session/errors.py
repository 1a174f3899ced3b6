"""Session errors, in the style of h11: they say whose fault it is.

``RemoteProtocolError``: the peer sent something wrong (malformed, out of
turn, illegal). ``CheatingDetected`` is the subclass for what can only be
deliberate: a failed proof, a wrong key, an illegal move under the rules.
``LocalProtocolError``: our own code asked for something the protocol does
not allow (a bug on our side, never the peer's).
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Base class: the game cannot go on. ``culprit`` is the seat to blame, if known;
    ``kind`` a stable problem kind when the error knows it (a mental-poker code)."""

    def __init__(
        self, message: str, culprit: int | None = None, *, kind: str | None = None
    ) -> None:
        super().__init__(message)
        self.culprit = culprit
        self.kind = kind


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol: malformed data, wrong message, wrong moment."""


class CheatingDetected(RemoteProtocolError):
    """The peer broke the rules or the cryptography in a way only cheating explains."""


class AuditFinding(CheatingDetected):
    """The end-of-hand audit, run on a sound seed record, convicts someone of an earlier cheat.

    The record that completed the audit is itself correct and stays in the
    chain (its author's own record included), so the evidence is the same
    whichever player revealed its seed second.
    """


class LocalProtocolError(ProtocolError):
    """Our own side misused the session (a bug here, not the peer's fault)."""


class PeerResigned(ProtocolError):
    """The peer resigned or aborted the match; ``reason`` is theirs."""
