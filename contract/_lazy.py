"""Packages whose public names are loaded on first use: a command that needs only a few of
them pays only for those (dsl, browser)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_names(
    package: str, table: dict[str, tuple[str, str]], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module `__getattr__`: `table` maps a public name to (submodule, attribute); the value
    is imported on first use and kept in the package's `namespace`."""

    def __getattr__(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = table[name]
        value = getattr(import_module(module, package), attribute)
        namespace[name] = value
        return value

    return __getattr__
