"""Errors of the transport layer, each naming whose fault it is.

Like h11's ``LocalProtocolError`` / ``RemoteProtocolError`` split, every error
carries a ``culprit`` so the CLI can tell the player who broke what:

- ``"remote"``: the peer sent bytes that break the protocol (garbage, an
  oversized or tampered frame, a bad signature). Nothing a user can fix.
- ``"local"``: our own caller misused the API (sending too much, using a
  closed channel).
- ``"network"``: the path between the peers (refused, unreachable, silent).
- ``"user"``: a person's input or decision (a wrong join code, a spent code,
  a changed identity key, an unknown peer). The message says what to do.
"""

from __future__ import annotations

from typing import ClassVar, Literal

Culprit = Literal["remote", "local", "network", "user"]


class TransportError(Exception):
    """Base class of every error raised by ``p2p66.net``."""

    culprit: ClassVar[Culprit] = "remote"


# --- the peer broke the protocol ---------------------------------------------------------


class RemoteTransportError(TransportError):
    """The peer sent something the protocol does not allow."""

    culprit: ClassVar[Culprit] = "remote"


class FrameTooLarge(RemoteTransportError):
    """The peer announced a frame longer than the 64 KiB cap."""


class MalformedFrame(RemoteTransportError):
    """The peer sent bytes that are not a well-formed frame or record."""


class MalformedHandshake(MalformedFrame):
    """A handshake message from the peer is not what the protocol expects at this step."""


class TamperedFrame(RemoteTransportError):
    """An encrypted frame failed authentication: tampered, replayed, reordered or dropped."""


class BadSignature(RemoteTransportError):
    """The peer's identity signature does not verify: it does not hold the key it claims."""


class PeerFlooded(RemoteTransportError):
    """The peer sent more messages than the protocol ever has in flight (unread by us)."""


class PeerAborted(RemoteTransportError):
    """The peer gave up the handshake for a reason of its own (the text says which)."""


# --- our own caller misused the API ------------------------------------------------------


class LocalTransportError(TransportError):
    """We were asked to do something the transport cannot do."""

    culprit: ClassVar[Culprit] = "local"


class PayloadTooLarge(LocalTransportError):
    """A message to send is longer than one frame can carry."""


class ChannelClosed(LocalTransportError):
    """The channel was closed on this side; it cannot send or receive any more."""


# --- the network -------------------------------------------------------------------------


class NetworkError(TransportError):
    """The connection could not be made or was lost."""

    culprit: ClassVar[Culprit] = "network"


class ConnectFailed(NetworkError):
    """Nobody answered at the address (refused, unreachable, name unknown)."""


class ListenFailed(NetworkError):
    """The host could not listen on the requested address and port (in use, not local)."""


class ConnectionLost(NetworkError):
    """The connection ended without a clean close from the peer."""


class PeerTimeout(NetworkError):
    """The peer (or a joiner) stayed silent longer than the configured limit."""


class PeerClosed(NetworkError):
    """The peer closed the channel cleanly; ``reason`` is its stated reason, if any."""

    def __init__(self, reason: str = "") -> None:
        text = "the peer closed the connection"
        super().__init__(f"{text}: {reason}" if reason else text)
        self.reason = reason


# --- a person's input or decision --------------------------------------------------------


class AuthenticationError(TransportError):
    """The two sides could not agree on who they are talking to."""

    culprit: ClassVar[Culprit] = "user"


class WrongJoinCode(AuthenticationError):
    """The join code typed by the joiner is not the host's code. The code is now spent."""


class JoinCodeSpent(AuthenticationError):
    """The host refused: its join code was already tried once and allows no second guess."""


class UnknownPeer(AuthenticationError):
    """A code-less ("known peer") handshake with a peer whose key is not pinned."""


class NotThisMatch(AuthenticationError):
    """Someone other than the opponent of a match in progress tried to take its place."""


class IdentityRejected(AuthenticationError):
    """The peer refused our identity key (it pinned a different key for our name)."""


class PeerKeyChanged(AuthenticationError):
    """A peer presented a key that differs from the one pinned for its name.

    ``old_fingerprint`` / ``new_fingerprint`` name both keys, ``path`` is the
    known-peers file holding the pin, so the CLI can show how to remove it.
    """

    def __init__(self, name: str, old_fingerprint: str, new_fingerprint: str, path: str) -> None:
        super().__init__(
            f"WARNING: the peer calling itself {name!r} presented the identity key "
            f"{new_fingerprint}, but {name!r} was pinned to {old_fingerprint} on first "
            "contact. It may be someone else using that name or someone in the middle of "
            "the connection, or the same person on a new installation. Refusing to connect. "
            f"If you are sure the new key is theirs, remove the pin with "
            f"`p2p66 peers forget {name}` (or delete its entry from {path}) and connect "
            "again with a join code."
        )
        self.name = name
        self.old_fingerprint = old_fingerprint
        self.new_fingerprint = new_fingerprint
        self.path = path
