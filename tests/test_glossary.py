"""One name per concept (#52): each name of docs/architecture.md's glossary of names is listed once and
defined once in the product folders, and no two classes there share a name."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).parents[1]
PRODUCT = ("contract", "dsl", "interpreter", "stdlib", "browser", "providers", "server", "cli")
ROW = re.compile(r"^\| `([^`]+)` \| (\w+) \|", re.M)


def _glossary() -> list[tuple[str, str]]:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("\n## Glossary of names\n", 1)[1].split("\n## ", 1)[0]
    return ROW.findall(section)


def _definitions() -> dict[str, list[str]]:
    """Every top-level name of the product folders (class, function, constant, module): where."""
    found: dict[str, list[str]] = defaultdict(list)
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            where = str(path.relative_to(ROOT))
            if path.stem != "__init__":
                found[path.stem].append(where)
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    found[node.name].append(f"{where}:{node.lineno}")
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        if isinstance(target, ast.Name) and target.id != "__all__":
                            found[target.id].append(f"{where}:{node.lineno}")
    return found


def test_the_glossary_lists_each_name_once() -> None:
    names = [name for name, _ in _glossary()]
    assert len(names) >= 30
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


def test_each_glossary_name_is_defined_once() -> None:
    found = _definitions()
    wrong = {
        name: found.get(name, [])
        for name, kind in _glossary()
        if kind != "word" and len(found.get(name, [])) != 1
    }
    assert wrong == {}, "one definition each, or another name for the second concept"


def test_no_two_classes_of_the_product_share_a_name() -> None:
    classes: dict[str, list[str]] = defaultdict(list)
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    classes[node.name].append(str(path.relative_to(ROOT)))
    assert {name: where for name, where in classes.items() if len(where) > 1} == {}
