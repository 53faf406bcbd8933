"""Each package's public API is what its `__all__` lists, and every listed name exists."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest


@pytest.mark.parametrize("package", ["taskplate.dsl", "taskplate.stdlib", "taskplate.providers"])
def test_all_names_exist(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__, package
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []


def test_the_language_does_not_import_playwright_or_other_layers() -> None:
    root = Path(importlib.import_module("taskplate.dsl").__path__[0])
    forbidden = ("playwright", "stdlib", "interpreter", "browser", "server", "cli")
    for path in root.rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                layer = words[1].removeprefix("taskplate.").split(".")[0]
                assert layer not in forbidden, f"{path.name}: {line}"


def test_every_import_names_the_layers_under_taskplate() -> None:
    """A bare `import dsl` would load a second copy of a layer beside `taskplate.dsl`."""
    root = Path(__file__).parents[1]
    layers = ("dsl", "interpreter", "stdlib", "browser", "server", "cli", "providers")
    folders = [*layers, "tests", "bench"]
    for path in (p for folder in folders for p in (root / folder).rglob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                assert words[1].split(".")[0] not in layers, f"{path}: {line}"


def test_providers_know_only_the_language() -> None:
    """Provider tools reach runs through the interpreter; providers/ imports no other layer."""
    root = Path(importlib.import_module("taskplate.providers").__path__[0])
    forbidden = ("playwright", "stdlib", "interpreter", "browser", "server", "cli")
    for path in root.rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                layer = words[1].removeprefix("taskplate.").split(".")[0]
                assert layer not in forbidden, f"{path.name}: {line}"
