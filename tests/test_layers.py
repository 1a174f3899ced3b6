"""The arrows point down: each layer imports only the layers DESIGN.md puts beneath it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "p2p66"

ALLOWED = {
    "engine": {"engine"},
    "crypto": {"crypto", "engine"},
    "net": {"net"},
    "session": {"session", "crypto", "engine", ""},
    # replay: the verifier re-runs the session; `show` borrows the UI's card text
    "replay": {"replay", "session", "crypto", "engine", "net", "ui"},
    "bots": {"bots", "engine", ""},  # "": the package root, for its version
    "ui": {"ui", "bots", "engine", "net"},
    "live": {"live", "session", "crypto", "engine", "net", "replay", "ui"},
    "runner": {"runner", "bots", "engine", "live", "net", "replay", "session", "ui"},
}


def imported_layers(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    layers = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "p2p66":
                layers.add(parts[1] if len(parts) > 1 else "")
    return layers


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_what_lies_beneath(layer: str) -> None:
    wrong = {
        str(path.relative_to(PACKAGE)): sorted(imported_layers(path) - ALLOWED[layer])
        for path in sorted((PACKAGE / layer).glob("*.py"))
        if imported_layers(path) - ALLOWED[layer]
    }
    assert wrong == {}
