"""Strict canonical msgpack: one value, one byte string (protocol/SPEC.md section 17).

Every signed byte string of the protocol (a message body and everything
nested in it) must be the canonical encoding of its value: each value in
its smallest msgpack form (what msgpack-python's ``packb`` writes), strings
as str and byte strings as bin, maps with text keys and no key twice, no
extension types (and, by the schemas, no floats). ``unpack`` accepts exactly
that and raises ``NonCanonical`` on anything else, so two decoders can never
read two meanings from one signed record. The order of a map's keys is
fixed by its schema, which the decoders of each message check
(``ordered_keys``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgpack


class NonCanonical(ValueError):
    """Bytes that are not the one canonical msgpack encoding of a value."""


def _pairs(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[Any] = set()
        for key, _ in pairs:
            if key in seen:
                raise NonCanonical(f"a map has the key {key!r} twice")
            seen.add(key)
    for key in out:
        if not isinstance(key, str):
            raise NonCanonical(f"a map key must be text, not {type(key).__name__}")
    return out


def _no_ext(code: int, data: bytes) -> object:
    raise NonCanonical(f"msgpack extension type {code} is not allowed")


def unpack(data: bytes) -> Any:
    """The value ``data`` encodes; ``NonCanonical`` unless it is that value's canonical form.

    The check is a round trip: decode, re-encode, compare. A key given twice
    collapses on decoding and a wider form than needed re-encodes narrower, so
    both differ; only then is the input decoded again, slowly, to say which.
    Floats pass the round trip but no schema has a float field.
    """
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, ext_hook=_no_ext)
    except NonCanonical:
        raise
    except Exception as exc:  # msgpack raises many types; all mean "not msgpack"
        raise NonCanonical(f"not msgpack ({type(exc).__name__})") from None
    if msgpack.packb(value) != data:
        _diagnose(data)
        raise NonCanonical(
            "not in canonical form (every value must take its smallest msgpack encoding)"
        )
    return value


def _diagnose(data: bytes) -> None:
    """Raise the specific NonCanonical for a key given twice or a key that is not text."""
    msgpack.unpackb(data, raw=False, strict_map_key=False, object_pairs_hook=_pairs)


def ordered_keys(obj: Mapping[str, Any], allowed: Iterable[tuple[str, ...]]) -> str | None:
    """None if ``obj``'s keys are, in order, one of the ``allowed`` key tuples; else why not."""
    keys = tuple(obj)
    options = list(allowed)
    if keys in options:
        return None
    for want in options:
        if set(keys) == set(want):
            return f"fields out of order: {list(keys)}, where the order is {list(want)}"
    nearest = min(options, key=lambda want: len(set(want) ^ set(keys)))
    missing = [k for k in nearest if k not in keys]
    extra = [k for k in keys if k not in nearest]
    parts = []
    if missing:
        parts.append(f"missing {missing}")
    if extra:
        parts.append(f"unknown {extra}")
    return "fields " + ", ".join(parts)
