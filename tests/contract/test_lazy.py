"""A lazy package writes its public names once, as its `if TYPE_CHECKING:` imports: mypy reads
them there, `lazy_names` reads the same lines at first access (contract/_lazy.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from taskplate.contract._lazy import typing_imports

LAZY = [
    "taskplate.dsl",
    "taskplate.stdlib",
    "taskplate.stdlib.web",
    "taskplate.stdlib.content",
    "taskplate.browser",
    "taskplate.providers",
    "taskplate.server",
    "taskplate.server.transports",
]


@pytest.mark.parametrize("package", LAZY)
def test_each_typing_import_is_public_and_loads_on_first_use(package: str) -> None:
    module = importlib.import_module(package)
    table = typing_imports(Path(module.__file__ or ""))
    assert table, f"{package}: no names under TYPE_CHECKING"
    assert set(table) <= set(module.__all__), f"{package}: a lazy name missing from __all__"
    for name, (where, attribute) in table.items():
        assert getattr(module, name) is getattr(importlib.import_module(where, package), attribute)
    with pytest.raises(AttributeError, match="has no attribute 'not_a_name'"):
        module.not_a_name  # noqa: B018


def test_a_lazy_name_is_imported_only_when_asked_for() -> None:
    code = (
        "import sys, taskplate.server as s\n"
        "assert 'taskplate.server._app' not in sys.modules\n"
        "s.build_server\n"
        "assert 'taskplate.server._app' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_only_the_packages_own_typing_imports_are_its_table(tmp_path: Path) -> None:
    source = tmp_path / "__init__.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    import jsonschema\n"
        "    from taskplate.browser import Tab\n"
        "    from ._a import One, two as Two\n"
        "    from .sub import Three\n"
        "from ._b import Eager\n"
    )
    assert typing_imports(source) == {
        "One": ("._a", "One"),
        "Two": ("._a", "two"),
        "Three": (".sub", "Three"),
    }
