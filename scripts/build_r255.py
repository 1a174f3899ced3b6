#!/usr/bin/env python3
"""Build (or remove) the optional verifier accelerator: ``p2p66/crypto/r255.c`` as a library.

    python scripts/build_r255.py            # p2p66/crypto/_r255.so and its source stamp
    python scripts/build_r255.py --clean    # back to rbcl alone
    python scripts/build_r255.py --into DIR # the library and stamp in DIR (for tests)

Needs a C compiler (``cc`` or ``$CC``) with 128-bit integers (gcc or clang on
a 64-bit machine); no Python headers, it is loaded through ctypes. ``pip
install`` never builds it: without it every verifier uses rbcl, with the
same results (``tests/crypto/test_crypto_fastgroup.py`` compares both).
The stamp holds the SHA-256 of the source, so a library left over from an
older ``r255.c`` is ignored rather than used. ``scripts/bench_verify.py``
prints which one ran.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from p2p66.crypto.fastgroup import LIBRARY, SOURCE, STAMP, source_digest  # noqa: E402

FLAGS = ("-O3", "-shared", "-fPIC", "-std=c99", "-Wall", "-Wextra")


def compiler() -> str | None:
    """The C compiler to use, or None if there is none."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return name
    return None


def build(library: Path, stamp: Path) -> None:
    """Compile ``r255.c`` into ``library`` and record its source digest in ``stamp``."""
    cc = compiler()
    if cc is None:
        raise SystemExit("no C compiler found (set CC): the verifier keeps using rbcl")
    library.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([cc, *FLAGS, "-o", str(library), str(SOURCE)], check=True)
    stamp.write_text(source_digest() + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the library in place")
    parser.add_argument("--into", type=Path, help="build into this folder instead")
    args = parser.parse_args()
    if args.clean:
        for path in (LIBRARY, STAMP):
            path.unlink(missing_ok=True)
        print("removed the compiled accelerator: verifiers use rbcl")
        return
    if args.into is not None:
        build(args.into / LIBRARY.name, args.into / STAMP.name)
        print(f"built {args.into / LIBRARY.name}")
        return
    build(LIBRARY, STAMP)
    print(f"built {LIBRARY.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
