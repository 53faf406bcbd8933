"""Each package's public API is what its `__all__` lists, and every listed name exists."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest


@pytest.mark.parametrize("package", ["dsl", "stdlib"])
def test_all_names_exist(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__, package
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []


def test_the_language_does_not_import_playwright_or_other_layers() -> None:
    root = Path(importlib.import_module("dsl").__path__[0])
    forbidden = ("playwright", "stdlib", "interpreter", "browser", "server", "cli")
    for path in root.rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                assert words[1].split(".")[0] not in forbidden, f"{path.name}: {line}"
