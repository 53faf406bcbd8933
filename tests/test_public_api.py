"""Each package's public API is what its `__all__` lists, and every listed name exists.

Which layer may import which is import-linter's contracts in pyproject.toml (tests/test_lint.py).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    "package",
    [
        "taskplate.contract",
        "taskplate.dsl",
        "taskplate.stdlib",
        "taskplate.stdlib.web",
        "taskplate.stdlib.content",
        "taskplate.browser",
        "taskplate.providers",
        "taskplate.interpreter",
        "taskplate.server",
        "taskplate.server.transports",
        "taskplate.interpreter.cases",
    ],
)
def test_all_names_exist(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__, package
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []


def test_every_import_names_the_layers_under_taskplate() -> None:
    """A bare `import dsl` would load a second copy of a layer beside `taskplate.dsl`."""
    root = Path(__file__).parents[1]
    layers = ("contract", "dsl", "interpreter", "stdlib", "browser", "server", "cli", "providers")
    folders = [*layers, "tests", "bench"]
    for path in (p for folder in folders for p in (root / folder).rglob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                assert words[1].split(".")[0] not in layers, f"{path}: {line}"
