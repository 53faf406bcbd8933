"""The rooms stay small enough to read at once: no module over 400 lines, no class over 300 and
no folder of more than 25 modules, in any product folder and its subpackages (#29, #41, #52).
A room that grows past it is split by responsibility."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]
ROOMS = ("contract", "dsl", "interpreter", "stdlib", "browser", "providers", "server", "cli")
MODULE_LINES, CLASS_LINES, FOLDER_MODULES = 400, 300, 25


def _modules() -> list[Path]:
    return sorted(path for room in ROOMS for path in (ROOT / room).rglob("*.py"))


def _folders() -> list[Path]:
    """Every product folder and subpackage: a folder with an `__init__.py`."""
    return sorted({path.parent for path in _modules()})


def test_the_rooms_reach_their_subpackages() -> None:
    folders = {str(folder.relative_to(ROOT)) for folder in _folders()}
    assert {"stdlib/web", "stdlib/content", "interpreter/cases", "dsl/rules"} <= folders
    assert all((folder / "__init__.py").exists() for folder in _folders())


def test_no_folder_of_the_rooms_holds_more_than_25_modules() -> None:
    crowded = {
        str(folder.relative_to(ROOT)): count
        for folder in _folders()
        if (count := len(list(folder.glob("*.py")))) > FOLDER_MODULES
    }
    assert crowded == {}, f"split these folders into subpackages by purpose: {crowded}"


def test_no_module_of_the_rooms_is_over_400_lines() -> None:
    assert len(_modules()) > 50
    long = {
        str(path.relative_to(ROOT)): lines
        for path in _modules()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert long == {}, f"split these modules by responsibility: {long}"


def test_no_class_of_the_rooms_is_over_300_lines() -> None:
    long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > CLASS_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    assert long == {}, f"split these classes: {long}"


def test_the_rooms_are_every_product_folder() -> None:
    folders = {p.name for p in (ROOT / "taskplate").iterdir() if (p / "__init__.py").exists()}
    assert set(ROOMS) == folders, "a new product folder is a room too: name it in ROOMS"
