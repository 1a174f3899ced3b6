"""Join codes: three words from a fixed list, then the host's address.

A code looks like ``fox-lamp-river@192.0.2.7:6666`` or ``fox-lamp-river@[::1]:6666``
(the port may be left out: it defaults to 6666). The words are the SPAKE2
password; the address only says where to connect. 256 words give 8 bits each,
24 bits per code, which is plenty because SPAKE2 lets an attacker test one
guess per handshake and the host spends the code after that one attempt.

The list is built so that a typo almost never lands on another valid word:
every two words differ in at least two letters, no word is a prefix of
another, and every word has 3 to 6 letters. A mistyped word is therefore caught
here, before connecting, and does not waste the host's one guess.
"""

from __future__ import annotations

import difflib
import ipaddress
import random
import re
import secrets
from dataclasses import dataclass
from typing import Final

DEFAULT_PORT: Final = 6666
WORD_COUNT: Final = 3

_WORD_TEXT: Final = """
    anvil apple arch arrow atlas axe badge bamboo banjo beetle belt bench berry bike birch
    bison blade board boat bone bottle brass bread brick bridge broom bucket button cabin
    cactus cake camel canal candle canoe card carpet castle cedar cello chair chalk chapel
    cheese cherry chess cliff cloud clover cobalt cocoa comet copper corn cotton crab cradle
    crane crown cup dagger daisy dance delta desert dingo domino dragon drum duck dune echo
    elk ember falcon farm fence field fig flag flute forest fossil fox frog frost garden
    garlic gate gecko ginger glass glove gold grape gravy guitar gull hammer harbor harp
    hawk helmet hermit heron hippo honey hook icicle igloo iron island ivy jacket jam jester
    jungle kayak kettle kimono kite kitten kiwi koala lagoon lamp lava lemur lilac linen
    lizard lotus magpie mango maple marble meadow melon minnow monkey moon moose mosaic moth
    nebula nest nutmeg oasis ocean onion orange orchid otter owl paddle pagoda panda pantry
    papaya parrot peach peanut pebble piano pigeon pilot pine pizza planet plaza plum pocket
    pony poppy prism python quail quartz quilt quince quiver rabbit radio raft rain raisin
    ranch rattle raven rhino ribbon rice riddle river robin ruby salmon scarf sesame shark
    sheep shell shovel silver sky snail snow sock sofa sphinx spider spoon sprout spruce
    squash squid star sun swan tartan tavern teapot tent timber tinsel toffee tomato torch
    tower trout tulip tuna tundra tunnel turnip turtle tuxedo tweed valley vase vessel vinyl
    violet violin vortex waffle wagon walnut walrus weasel whale wombat wren yodel zebra
    zenith
"""
WORDS: Final[tuple[str, ...]] = tuple(_WORD_TEXT.split())
_WORD_SET: Final = frozenset(WORDS)
_HOSTNAME = re.compile(
    r"^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$",
    re.I,
)
_EXAMPLE: Final = "fox-lamp-river@192.0.2.7:6666"


class JoinCodeError(ValueError):
    """Text that is not a join code; the message says which part is wrong and how to fix it."""


@dataclass(frozen=True, slots=True)
class JoinCode:
    """Three secret words plus the host address a joiner connects to."""

    words: tuple[str, ...]
    host: str
    port: int = DEFAULT_PORT

    def __post_init__(self) -> None:
        check_words(self.words)
        _check_host(self.host)
        _check_port(self.port)

    @property
    def secret(self) -> str:
        """The words joined with dashes: the part a player must keep private."""
        return "-".join(self.words)

    @property
    def password(self) -> bytes:
        """The SPAKE2 password derived from the words."""
        return self.secret.encode("ascii")

    @property
    def address(self) -> str:
        """``host:port`` with IPv6 hosts in brackets."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def __str__(self) -> str:
        return f"{self.secret}@{self.address}"


def generate_words(rng: random.Random | None = None) -> tuple[str, ...]:
    """Three words drawn uniformly from ``WORDS``; ``rng`` defaults to the OS source."""
    source = rng if rng is not None else secrets.SystemRandom()
    return tuple(WORDS[source.randrange(len(WORDS))] for _ in range(WORD_COUNT))


def new_join_code(
    host: str, port: int = DEFAULT_PORT, rng: random.Random | None = None
) -> JoinCode:
    """A fresh code for a host reachable at ``host:port``."""
    return JoinCode(generate_words(rng), host, port)


def parse_words(text: str) -> tuple[str, ...]:
    """Parse the secret part ``word-word-word`` (any case, surrounding blanks ignored)."""
    words = tuple(w.strip().lower() for w in text.strip().split("-"))
    check_words(words)
    return words


def parse_join_code(text: str) -> JoinCode:
    """Parse ``word-word-word@host[:port]``; IPv6 hosts go in brackets."""
    stripped = text.strip()
    secret, at, address = stripped.rpartition("@")
    if not at:
        raise JoinCodeError(
            f"{text!r} is not a join code: it needs '@' between the words and the address, "
            f"as in {_EXAMPLE}"
        )
    host, port = _parse_address(address.strip())
    return JoinCode(parse_words(secret), host, port)


def check_words(words: tuple[str, ...]) -> None:
    """Raise ``JoinCodeError`` unless ``words`` are exactly three words of ``WORDS``."""
    if len(words) != WORD_COUNT:
        raise JoinCodeError(
            f"a join code has {WORD_COUNT} words separated by '-', "
            f"got {len(words)}: {'-'.join(words)!r}"
        )
    for word in words:
        if word not in _WORD_SET:
            close = difflib.get_close_matches(word, WORDS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise JoinCodeError(f"{word!r} is not a join-code word{hint}")


def _parse_address(address: str) -> tuple[str, int]:
    if not address:
        raise JoinCodeError(f"the join code has no address after '@', as in {_EXAMPLE}")
    if address.startswith("["):
        host, bracket, rest = address[1:].partition("]")
        if not bracket:
            raise JoinCodeError(f"the IPv6 address {address!r} lacks its closing ']'")
        if rest and not rest.startswith(":"):
            raise JoinCodeError(f"expected ':port' after ']' in {address!r}")
        port_text = rest[1:] if rest else None
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise JoinCodeError(f"{host!r} in brackets is not an IPv6 address") from None
    elif address.count(":") > 1:
        raise JoinCodeError(
            f"an IPv6 address must be written in brackets, as in [{address}]:{DEFAULT_PORT}"
        )
    else:
        host, colon, port_text_or_empty = address.partition(":")
        port_text = port_text_or_empty if colon else None
    if port_text is None:
        return host, DEFAULT_PORT
    if not port_text.isdigit():
        raise JoinCodeError(f"the port {port_text!r} is not a number between 1 and 65535")
    port = int(port_text)
    _check_port(port)
    return host, port


def _check_host(host: str) -> None:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if not _HOSTNAME.match(host):
            raise JoinCodeError(f"{host!r} is neither an IP address nor a host name") from None


def _check_port(port: int) -> None:
    if not 1 <= port <= 65535:
        raise JoinCodeError(f"the port {port} is outside 1..65535")
