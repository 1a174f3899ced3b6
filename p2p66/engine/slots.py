"""Fast construction of the frozen value objects built at every move (views, results, turns).

A frozen dataclass's generated ``__init__`` sets each field through
``object.__setattr__``, a name lookup each. The hot ones write their own
``__init__``: under plain Python it calls the slots' own setters, and when
mypyc compiled the module (``scripts/build_accel.py``) the class is native,
its frozen check lives in ``__setattr__`` alone, and plain stores are single
machine writes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")


def slot_setters(cls: type[T]) -> tuple[Callable[[T, Any], None], ...]:
    """The slot setters of a frozen slots dataclass, in field order."""
    return tuple(getattr(cls, f.name).__set__ for f in fields(cls))  # type: ignore[arg-type]


def is_native(cls: type) -> bool:
    """True when mypyc compiled ``cls`` into a native class (plain stores are then safe)."""
    return hasattr(cls, "__mypyc_attrs__")
