"""Player identities (Ed25519) and the ``known_peers`` pin file (trust on first use).

Each player has one long-lived Ed25519 key and a display name, created on first
use in the p2p66 home directory: an explicit ``directory`` argument wins, then
the ``P2P66_HOME`` environment variable (so tests never touch the real home),
then ``platformdirs.user_config_dir("p2p66")``. Secret files are written with
mode 0600 and refused if other users can read them, as ssh does.

``KnownPeers`` pins a peer's full public key (with the name it used) the
first time a join code authenticated it; a code-less rematch is allowed only
for pinned keys. A new key under a known name is a new player, shown with a
short fingerprint wherever the two could be confused.
Fingerprints are the first 80 bits of SHA-256 of the key in five hex groups
(``3f2a-9c01-77de-b4e0-1a2b``): short enough to read aloud, long enough that
nobody can make a key with a chosen fingerprint.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import shutil
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import platformdirs
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2p66.net.errors import BadSignature

HOME_ENV: Final = "P2P66_HOME"
IDENTITY_FILE: Final = "identity.json"
KNOWN_PEERS_FILE: Final = "known_peers.json"
PUBLIC_KEY_SIZE: Final = 32
SIGNATURE_SIZE: Final = 64
MAX_NAME_LENGTH: Final = 32
_IDENTITY_FORMAT: Final = "p2p66-identity/1"
_PEERS_FORMAT: Final = "p2p66-known-peers/2"
_PEERS_FORMAT_V1: Final = "p2p66-known-peers/1"


class IdentityError(ValueError):
    """A local identity or known-peers file is missing pieces, corrupt or unsafe."""


def home_dir(directory: Path | str | None = None) -> Path:
    """The p2p66 home: ``directory`` if given, else ``$P2P66_HOME``, else the user config dir."""
    if directory is not None:
        return Path(directory)
    env = os.environ.get(HOME_ENV)
    if env:
        return Path(env)
    return Path(platformdirs.user_config_dir("p2p66"))


def data_dir() -> Path:
    """Where replays and logs go: ``$P2P66_HOME`` if set, else the user data dir.

    Settings and keys stay in the config dir (``home_dir``); what p2p66 writes
    as it plays is data, which platforms keep apart (XDG_DATA_HOME on Linux).
    """
    env = os.environ.get(HOME_ENV)
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir("p2p66"))


def replays_dir() -> Path:
    """The replay folder, moving an older version's ``replays`` from the config dir once."""
    new = data_dir() / "replays"
    old = home_dir() / "replays"
    if old != new and old.is_dir() and not new.exists():
        new.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(old, new)
    return new


def fingerprint(public_key: bytes) -> str:
    """Short human-readable fingerprint of an Ed25519 public key."""
    digest = hashlib.sha256(public_key).hexdigest()[:20]
    return "-".join(digest[i : i + 4] for i in range(0, 20, 4))


def check_name(name: str) -> str:
    """Return ``name`` if it is a usable display name, else raise ``ValueError`` saying why."""
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise ValueError(f"a player name has 1 to {MAX_NAME_LENGTH} characters, got {len(name)}")
    if name != name.strip():
        raise ValueError(f"a player name cannot start or end with blanks: {name!r}")
    if any(unicodedata.category(ch).startswith(("C", "Z")) and ch != " " for ch in name):
        raise ValueError(f"a player name cannot contain control or separator characters: {name!r}")
    return name


@dataclass(frozen=True, slots=True)
class PeerIdentity:
    """The public side of an identity: what a peer learns about us and we about it."""

    name: str
    public_key: bytes

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def verify(self, signature: bytes, message: bytes) -> None:
        """Raise ``BadSignature`` (the peer's fault) unless ``signature`` is valid."""
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, message)
        except (InvalidSignature, ValueError):
            raise BadSignature(
                f"the identity signature of {self.name!r} ({self.fingerprint}) does not verify: "
                "the peer does not hold the key it claims"
            ) from None


@dataclass(frozen=True, slots=True)
class Identity:
    """Our own identity: a name and an Ed25519 private key."""

    name: str
    private_key: Ed25519PrivateKey

    @classmethod
    def generate(cls, name: str) -> Identity:
        """A fresh in-memory identity (for tests, bots and memory channels)."""
        return cls(check_name(name), Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, name: str, seed: bytes) -> Identity:
        """A deterministic identity from a 32-byte seed (for reproducible tests)."""
        return cls(check_name(name), Ed25519PrivateKey.from_private_bytes(seed))

    @property
    def public_key(self) -> bytes:
        return self.private_key.public_key().public_bytes_raw()

    @property
    def public(self) -> PeerIdentity:
        return PeerIdentity(self.name, self.public_key)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def sign(self, message: bytes) -> bytes:
        return self.private_key.sign(message)


def load_or_create_identity(
    name: str | None = None, directory: Path | str | None = None
) -> Identity:
    """Load our identity from the home directory, creating it on first use.

    ``name`` names a new identity (default: the login name) and renames an
    existing one when it differs; the key itself never changes.
    """
    path = home_dir(directory) / IDENTITY_FILE
    if not path.exists():
        identity = Identity.generate(check_name(name if name is not None else _default_name()))
        _save_identity(path, identity)
        return identity
    identity = _load_identity(path)
    if name is not None and name != identity.name:
        identity = Identity(check_name(name), identity.private_key)
        _save_identity(path, identity)
    return identity


def load_identity(directory: Path | str | None = None) -> Identity | None:
    """Our identity if one was made, else None: for commands that only look (no side effect)."""
    path = home_dir(directory) / IDENTITY_FILE
    return _load_identity(path) if path.exists() else None


def _default_name() -> str:
    try:
        user = getpass.getuser().strip()
    except (KeyError, OSError):
        user = ""
    try:
        return check_name(user[:MAX_NAME_LENGTH])
    except ValueError:
        return "player"


def _save_identity(path: Path, identity: Identity) -> None:
    data = {
        "format": _IDENTITY_FORMAT,
        "name": identity.name,
        "ed25519_private": identity.private_key.private_bytes_raw().hex(),
        "ed25519_public": identity.public_key.hex(),
    }
    write_private_file(path, json.dumps(data, indent=2) + "\n")


def _load_identity(path: Path) -> Identity:
    data = read_private_json(path)
    if data.get("format") != _IDENTITY_FORMAT:
        raise IdentityError(f"{path} is not a p2p66 identity file (format {data.get('format')!r})")
    try:
        seed = bytes.fromhex(str(data["ed25519_private"]))
        public = bytes.fromhex(str(data["ed25519_public"]))
        identity = Identity.from_seed(str(data["name"]), seed)
    except (KeyError, ValueError) as exc:
        raise IdentityError(f"{path} is corrupt: {exc}") from None
    if identity.public_key != public:
        raise IdentityError(f"{path} is corrupt: its public key does not match its private key")
    return identity


def write_private_file(path: Path, text: str) -> None:
    """Atomically replace ``path`` with ``text``, readable by the owner only (0600)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def read_private_json(path: Path) -> dict[str, Any]:
    """Read a JSON object from a file that must not be readable by other users."""
    mode = path.stat().st_mode
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise IdentityError(
            f"{path} is accessible by other users (mode {stat.S_IMODE(mode):04o}); "
            f"it holds secrets: run 'chmod 600 {path}'"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IdentityError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise IdentityError(f"{path} does not hold a JSON object")
    return data


class KnownPeers:
    """Pinned identity keys and the name each last used, stored in ``known_peers.json``.

    A pin is a *key*: names are only what people call themselves, so two keys
    may share a name (two fresh installs both called ``root``) and a key may
    change its name. ``label`` tells same-named keys apart by a short
    fingerprint. The file format is ``p2p66-known-peers/2`` (a list of
    ``{name, public_key, fingerprint}``); files of format ``/1`` (a map from
    name to key, written by older versions) are read the same way and
    rewritten as ``/2`` on the next change.
    """

    def __init__(self, path: Path, pins: dict[str, bytes] | None = None) -> None:
        self.path = path
        self._names: dict[bytes, str] = {key: name for name, key in (pins or {}).items()}

    @classmethod
    def load(cls, directory: Path | str | None = None) -> KnownPeers:
        """The pins in the home directory (none yet if the file does not exist)."""
        path = home_dir(directory) / KNOWN_PEERS_FILE
        peers = cls(path)
        if not path.exists():
            return peers
        data = read_private_json(path)
        entries = data.get("peers")
        if data.get("format") == _PEERS_FORMAT_V1 and isinstance(entries, dict):
            listed = [{"name": n, **e} if isinstance(e, dict) else e for n, e in entries.items()]
        elif data.get("format") == _PEERS_FORMAT and isinstance(entries, list):
            listed = entries
        else:
            raise IdentityError(f"{path} is not a p2p66 known-peers file")
        for entry in listed:
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str):
                raise IdentityError(f"{path}: a pin lacks its name or public_key")
            try:
                key = bytes.fromhex(str(entry["public_key"]))
            except (KeyError, TypeError, ValueError):
                raise IdentityError(
                    f"{path}: the pin of {name!r} has no valid public_key"
                ) from None
            if len(key) != PUBLIC_KEY_SIZE:
                raise IdentityError(f"{path}: the pin of {name!r} is not a 32-byte key")
            peers._names[key] = name
        return peers

    def __contains__(self, name: object) -> bool:
        return name in self._names.values()

    def __len__(self) -> int:
        return len(self._names)

    def names(self) -> list[str]:
        """Every pinned name, once each, sorted."""
        return sorted(set(self._names.values()))

    def peers(self) -> list[PeerIdentity]:
        """Every pinned key with its name, sorted by name, then fingerprint."""
        found = [PeerIdentity(name, key) for key, name in self._names.items()]
        return sorted(found, key=lambda p: (p.name, p.fingerprint))

    def keys_named(self, name: str) -> list[bytes]:
        """The keys pinned under ``name`` (several players may use one name)."""
        return [p.public_key for p in self.peers() if p.name == name]

    def key_of(self, name: str) -> bytes | None:
        """The key pinned under ``name`` if exactly one is; None if none or several."""
        keys = self.keys_named(name)
        return keys[0] if len(keys) == 1 else None

    def name_for_key(self, public_key: bytes) -> str | None:
        """The name last seen with ``public_key``, if that key is pinned."""
        return self._names.get(public_key)

    def check(self, peer: PeerIdentity) -> bool:
        """True if ``peer``'s key is pinned under this very name, False if it is new or renamed.

        A known name with a new key is a new player (not an error): pins are keys.
        """
        return self._names.get(peer.public_key) == peer.name

    def label(self, peer: PeerIdentity) -> str:
        """``peer``'s name, with a short fingerprint if another pinned key uses the name too."""
        others = [k for k in self.keys_named(peer.name) if k != peer.public_key]
        return short_label(peer) if others else peer.name

    def find(self, who: str) -> list[PeerIdentity]:
        """The pins whose fingerprint starts with ``who`` (4+ hex digits), else named ``who``."""
        digits = who.strip().lower().replace("-", "")
        by_print = [
            p
            for p in self.peers()
            if len(digits) >= 4 and p.fingerprint.replace("-", "").startswith(digits)
        ]
        return by_print or [p for p in self.peers() if p.name == who]

    def pin(self, peer: PeerIdentity) -> None:
        """Pin ``peer``'s key under its current name and save the file."""
        self._names[peer.public_key] = peer.name
        self._save()

    def forget(self, who: str) -> list[PeerIdentity]:
        """Remove the pins matching ``who`` (a name, or a fingerprint or its start).

        Returns what was removed: nothing if nothing matched, nor if a name is
        shared by several keys (then a fingerprint must say which).
        """
        matched = self.find(who)
        if len(matched) != 1:
            return []
        del self._names[matched[0].public_key]
        self._save()
        return matched

    def _save(self) -> None:
        peers = [
            {"name": p.name, "public_key": p.public_key.hex(), "fingerprint": p.fingerprint}
            for p in self.peers()
        ]
        text = json.dumps({"format": _PEERS_FORMAT, "peers": peers}, indent=2)
        write_private_file(self.path, text + "\n")


def short_label(peer: PeerIdentity) -> str:
    """``name (3f2a)``: a name with the first group of its key's fingerprint."""
    return f"{peer.name} ({peer.fingerprint[:4]})"


def distinct_names(first: PeerIdentity, second: PeerIdentity) -> tuple[str, str]:
    """Names for two players shown together: with short fingerprints if they are the same."""
    if first.name == second.name and first.public_key != second.public_key:
        return short_label(first), short_label(second)
    return first.name, second.name
