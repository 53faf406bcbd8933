"""server/ talks to the run manager through its own methods only (#52): no chain into a part it
holds (`manager.artifacts.read`), no attribute outside its face, and no other name for it."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from taskplate.interpreter import RunManager

ROOT = Path(__file__).parents[1]
SERVER = ROOT / "server"


def _face() -> set[str]:
    """The manager's public methods, its own and its bases' (each a part of what it does)."""
    return {
        name
        for name in dir(RunManager)
        if not name.startswith("_") and inspect.isfunction(inspect.getattr_static(RunManager, name))
    }


def _is_manager(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "manager") or (
        isinstance(node, ast.Attribute) and node.attr == "manager"
    )


def _annotated_manager(annotation: ast.expr | None) -> bool:
    return annotation is not None and "RunManager" in ast.unparse(annotation)


def _leaks(source: str, face: set[str]) -> list[str]:
    """Where `source` reaches past the manager's face: `line: what`."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_manager(node.value):
            parent = parents.get(node)
            if isinstance(parent, ast.Attribute) and parent.value is node:
                found.append(f"{node.lineno}: manager.{node.attr}.{parent.attr} (a chain)")
            elif node.attr not in face:
                found.append(f"{node.lineno}: manager.{node.attr} (not a method of its face)")
        elif isinstance(node, ast.arg) and _annotated_manager(node.annotation):
            if node.arg != "manager":
                found.append(f"{node.lineno}: the manager named {node.arg}")
        elif isinstance(node, ast.AnnAssign) and _annotated_manager(node.annotation):
            if not _is_manager(node.target):
                found.append(f"{node.lineno}: the manager named {ast.unparse(node.target)}")
        elif isinstance(node, ast.Assign):
            pairs = [(target, node.value) for target in node.targets]
            if isinstance(node.value, ast.Tuple):
                pairs = [
                    pair
                    for target in node.targets
                    if isinstance(target, ast.Tuple)
                    for pair in zip(target.elts, node.value.elts, strict=False)
                ]
            for target, value in pairs:
                if _is_manager(value) and not _is_manager(target):
                    found.append(f"{node.lineno}: the manager named {ast.unparse(target)}")
    return sorted(found, key=lambda leak: int(leak.split(":")[0]))


def test_the_managers_face_is_its_methods_and_nothing_it_holds() -> None:
    face = _face()
    assert {"submit", "describe", "read_artifact", "templates", "session"} <= face
    assert not face & {"artifacts", "library", "sessions", "runtime", "profiles", "reads"}


def test_server_talks_to_the_run_manager_only_through_its_methods() -> None:
    leaks = {
        f"{path.relative_to(ROOT)}:{leak}"
        for path in sorted(SERVER.rglob("*.py"))
        for leak in _leaks(path.read_text(encoding="utf-8"), _face())
    }
    assert leaks == set(), "add a method to RunManager's face (interpreter/runs/_manager_*.py)"


def test_the_check_finds_chains_parts_and_other_names_for_the_manager() -> None:
    source = """
async def tool(state, m: RunManager):
    chunk = await state.manager.artifacts.read("a")
    names = state.manager.library
    other = state.manager
    manager, alias = state.manager, state.manager
    fine = await state.manager.describe("run")
"""
    assert _leaks(source, _face()) == [
        "2: the manager named m",
        "3: manager.artifacts.read (a chain)",
        "4: manager.library (not a method of its face)",
        "5: the manager named other",
        "6: the manager named alias",
    ]
