"""What every ``regen_*_vectors.py`` script shares: write its JSON vector file, or check it.

``regenerate(OUT, build, __doc__)`` parses ``--check``; without it the file is
written, with it the script exits 1 if the file differs from what ``build``
makes now (CI runs the checks; the tests compare the vectors themselves).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def regenerate(
    out: Path, build: Callable[[], Any], doc: str | None, *, ensure_ascii: bool = True
) -> int:
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    text = json.dumps(build(), indent=2, ensure_ascii=ensure_ascii) + "\n"
    if args.check:
        same = out.exists() and out.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{out} is stale")
        return 0 if same else 1
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0
