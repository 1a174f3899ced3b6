"""Transport and identity: the only layer that touches sockets and clocks.

The session above it exchanges opaque byte messages through a ``SecureChannel``
and never sees frames, keys or sockets. Modules, bottom up:

- ``errors``: ``TransportError`` and its subclasses; each has a ``culprit``
  (``"remote"``, ``"local"``, ``"network"`` or ``"user"``).
- ``framing``: 4-byte big-endian length prefix, 64 KiB payload cap, and the
  sans-IO ``FrameDecoder`` (``FrameTooLarge`` / ``MalformedFrame`` blame the peer).
- ``streams``: the ``ByteStream`` surface (TCP, or ``memory_stream_pair``) and
  ``FrameConnection`` (frames over a stream).
- ``joincode``: ``word-word-word@host:port`` codes from a built-in 256-word list.
- ``identity``: Ed25519 ``Identity`` files (0600) in ``$P2P66_HOME`` or the user
  config dir, fingerprints, and ``KnownPeers`` pins of keys (trust on first use).
- ``channel``: ``RecordCipher`` (ChaCha20-Poly1305, per-direction keys and
  counters) and ``SecureChannel`` (send/recv, heartbeats, idle timeout).
- ``handshake``: the join-code (SPAKE2) and known-peer (X25519) handshakes.
- ``addresses``: listening on every family at one port, and the addresses
  (IPv4 and IPv6) a join code may name.
- ``gate``: limits on unauthenticated connections (per source, in total; the
  oldest is dropped for a newcomer).
- ``tcp``: ``Listener`` / ``host``, ``join``, ``join_known``.
- ``memory``: ``memory_channel_pair`` (two real channels in one process).
- ``discovery``: ``advertise`` / ``browse`` ``_p2p66._tcp.local.`` with zeroconf.
- ``reach``: address scopes by range (global, shared 100.64/10, private, loopback).
- ``portmap``: the home router's port mapping (UPnP IGD, NAT-PMP) and IPv6 pinholes.
- ``eyeballs``: codes with several addresses (``words@[v6]:p,v4:p``), joined side by side.
- ``reply``: reply codes: the host dials the joiner from its own port (TCP
  simultaneous open when neither router maps); the handshake roles stay.
- ``netcheck``: what ``p2p66 net check`` reports.
- ``seating``: the ``Seating`` of a table of three or more (its table id, the
  signatures) and the lobby messages.
- ``lobby``: ``host_table`` / ``join_table``: one code for a table, seats by
  arrival, bots over memory channels, a seating every player signs.

Handshake, joiner J and host H; one frame per line; ``[..]`` is encrypted
(a HANDSHAKE record), everything is a msgpack map with its type in ``"t"``::

    code mode                                   known-peer mode (rematch)
    J->H hello {proto, v, mode:"code", pake:X}   J->H hello {proto, v, mode:"known", nonce, dh}
    H->J pake {pake:Y, confirm:MAC_H}            H->J dh {nonce, dh}
    J->H confirm {confirm:MAC_J}
    J->H [id {name, key}]                        (the same from here on)
    H->J [id {name, key, sig:Sig_H(t1)}]
    J->H [auth {sig:Sig_J(t1)}]
    H->J [ready]

Either side may answer any step with ``abort {reason, text}`` instead
(``code-spent``, ``no-code``, ``wrong-code``, ``unknown-peer``, ``busy``,
``key-changed``, ``bad-signature``, ``malformed``, ``version``); the other side
raises the matching error. The host spends its code on the first code hello
whose SPAKE2 message is a valid group element (junk spends nothing), and
waits at most 5 s for the hello and 5 s for the joiner's ``confirm``.
SPAKE2 is ``SPAKE2_A`` (joiner) / ``SPAKE2_B`` (host) with password
``b"word-word-word"``, idA ``b"p2p66-net/v1 joiner"``, idB ``b"p2p66-net/v1 host"``.

Key schedule. ``t0`` = SHA-256 over length-prefixed parts:
``"p2p66-net/v1 code" | X | Y`` or ``"p2p66-net/v1 known" | nonce_J | dh_J |
nonce_H | dh_H``. With the SPAKE2 key (or the X25519 secret) as input keying
material and ``t0`` as salt, HKDF-SHA256 derives 32 bytes for each label:
``p2p66-net/v1 confirm host``, ``p2p66-net/v1 confirm joiner`` (MAC = HMAC-SHA256
(key, t0)), ``p2p66-net/v1 key host->joiner``, ``p2p66-net/v1 key joiner->host``.
``t1`` = hash of ``"p2p66-net/v1 identities" | t0 | key_J | name_J | key_H |
name_H``; each side signs hash(``"p2p66-net/v1 identity signature" | role |
t1``) with its Ed25519 key. ``t1`` is the channel's ``binding``.

Records after the handshake: ChaCha20-Poly1305(key of the direction, nonce =
4 zero bytes + 8-byte big-endian record counter, aad ``"p2p66-net/v1 record"``)
over one type byte (DATA 0, PING 1, PONG 2, CLOSE 3, HANDSHAKE 16) and the body.
"""

from typing import TYPE_CHECKING, Any, Final

from p2p66.net.channel import MAX_MESSAGE, ChannelConfig, SecureChannel
from p2p66.net.errors import (
    AuthenticationError,
    BadSignature,
    ChannelClosed,
    ConnectFailed,
    ConnectionLost,
    FrameTooLarge,
    IdentityRejected,
    JoinCodeSpent,
    ListenFailed,
    LocalTransportError,
    MalformedFrame,
    MalformedHandshake,
    NetworkError,
    NotThisMatch,
    PayloadTooLarge,
    PeerAborted,
    PeerClosed,
    PeerFlooded,
    PeerKeyChanged,
    PeerTimeout,
    RemoteTransportError,
    TamperedFrame,
    TransportError,
    UnknownPeer,
    WrongJoinCode,
)
from p2p66.net.identity import (
    Identity,
    IdentityError,
    KnownPeers,
    PeerIdentity,
    fingerprint,
    home_dir,
    load_or_create_identity,
)
from p2p66.net.joincode import (
    DEFAULT_PORT,
    JoinCode,
    JoinCodeError,
    generate_words,
    new_join_code,
    parse_join_code,
)
from p2p66.net.memory import memory_channel_pair
from p2p66.net.streams import memory_stream_pair
from p2p66.net.tcp import Listener, host, join, join_known

if TYPE_CHECKING:
    from p2p66.net.discovery import SERVICE_TYPE, Advertisement, Game, advertise, browse

_DISCOVERY: Final = ("SERVICE_TYPE", "Advertisement", "Game", "advertise", "browse")


def __getattr__(name: str) -> Any:
    """LAN discovery (zeroconf) is imported on first use: most runs never advertise."""
    if name in _DISCOVERY:
        from p2p66.net import discovery

        return getattr(discovery, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_PORT",
    "MAX_MESSAGE",
    "SERVICE_TYPE",
    "Advertisement",
    "AuthenticationError",
    "BadSignature",
    "ChannelClosed",
    "ChannelConfig",
    "ConnectFailed",
    "ConnectionLost",
    "FrameTooLarge",
    "Game",
    "Identity",
    "IdentityError",
    "IdentityRejected",
    "JoinCode",
    "JoinCodeError",
    "JoinCodeSpent",
    "KnownPeers",
    "ListenFailed",
    "Listener",
    "LocalTransportError",
    "MalformedFrame",
    "MalformedHandshake",
    "NetworkError",
    "NotThisMatch",
    "PayloadTooLarge",
    "PeerAborted",
    "PeerClosed",
    "PeerFlooded",
    "PeerIdentity",
    "PeerKeyChanged",
    "PeerTimeout",
    "RemoteTransportError",
    "SecureChannel",
    "TamperedFrame",
    "TransportError",
    "UnknownPeer",
    "WrongJoinCode",
    "advertise",
    "browse",
    "fingerprint",
    "generate_words",
    "home_dir",
    "host",
    "join",
    "join_known",
    "load_or_create_identity",
    "memory_channel_pair",
    "memory_stream_pair",
    "new_join_code",
    "parse_join_code",
]
