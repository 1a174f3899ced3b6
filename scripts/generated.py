"""What the scripts that regenerate checked-in files share: write them, or check them.

``--check`` compares instead of writing and exits 1 naming every stale file
(CI and the tests run the checks). ``regenerate_files`` writes a whole set
(golden replays: files in its folders that the set no longer has are
removed); ``regenerate`` writes one JSON vector file.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def check_wanted(doc: str | None, argv: Sequence[str] | None = None) -> bool:
    """Parse the command line of a regenerating script: True for ``--check``."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0] if doc else None)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    return bool(parser.parse_args(argv).check)


def regenerate_files(files: dict[Path, bytes], *, check: bool, clean: Sequence[Path] = ()) -> int:
    """Write ``files`` (removing others in the ``clean`` folders), or with ``check`` say
    which differ; the exit code."""
    if check:
        stale = [p for p, data in files.items() if not p.exists() or p.read_bytes() != data]
        for path in stale:
            print(f"out of date: {path.relative_to(ROOT)}")
        return 1 if stale else 0
    for directory in clean:
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.iterdir():
            if old not in files:
                old.unlink()
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"wrote {len(files)} files, {sum(len(d) for d in files.values())} bytes")
    return 0


def regenerate(
    out: Path, build: Callable[[], Any], doc: str | None, *, ensure_ascii: bool = True
) -> int:
    """A script's ``main`` for one JSON vector file made by ``build``."""
    check = check_wanted(doc)
    text = json.dumps(build(), indent=2, ensure_ascii=ensure_ascii) + "\n"
    return regenerate_files({out: text.encode()}, check=check)
