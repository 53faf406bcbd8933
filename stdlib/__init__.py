"""The built-in actions: each module declares one action; this registry lists them all.

Adding an action is adding one module and one line below. Knows no templates.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module

from dsl import ActionSpec

# One line per action; the module of the same name (a keyword such as `assert` included).
_MODULES = (
    "navigate",
    "wait_for_stable",
    "wait_for",
    "wait",
    "get_page_info",
    "get_page_content",
    "screenshot",
    "extract",
    "snapshot",
    "click",
    "fill",
    "type",
    "press",
    "select_option",
    "check",
    "hover",
    "scroll",
    "create_tab",
    "close_tab",
    "save_profile",
    "evaluate",
    "upload_file",
    "download",
    "set",
    "assert",
    "fail",
    "compare",
    "export",
)


class Registry(Mapping[str, ActionSpec]):
    """Every built-in action by name; also the checker's ActionCatalog."""

    def __init__(self, specs: list[ActionSpec]) -> None:
        self._specs = {spec.name: spec for spec in specs}

    def __getitem__(self, name: str) -> ActionSpec:
        return self._specs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def names(self) -> list[str]:
        return list(self._specs)


REGISTRY = Registry([import_module(f"{__name__}.{m}").ACTION for m in _MODULES])

__all__ = ["REGISTRY", "Registry"]
