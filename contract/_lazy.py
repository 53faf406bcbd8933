"""Packages whose public names are loaded on first use: a command that needs only a few of
them pays only for those (dsl, browser, stdlib, providers, server).

A package writes its public names once, as the relative imports of its `if TYPE_CHECKING:`
block: mypy reads them there, and `lazy_names` reads the same lines from the package's source
when a name is first asked for.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any


def lazy_names(package: str, namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A package's module `__getattr__`: a name of its `if TYPE_CHECKING:` imports is imported
    on first use and kept in the package's `namespace`."""
    table: dict[str, tuple[str, str]] = {}

    def __getattr__(name: str) -> Any:
        if not table:
            table.update(typing_imports(Path(namespace["__file__"])))
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = table[name]
        value = getattr(import_module(module, package), attribute)
        namespace[name] = value
        return value

    return __getattr__


def typing_imports(path: Path) -> dict[str, tuple[str, str]]:
    """The names a module imports from its own package under `if TYPE_CHECKING:`, each with
    (relative module, attribute); imports from elsewhere are types only."""
    table = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for line in node.body:
                if isinstance(line, ast.ImportFrom) and line.level > 0:
                    module = "." * line.level + (line.module or "")
                    for alias in line.names:
                        table[alias.asname or alias.name] = (module, alias.name)
    return table
