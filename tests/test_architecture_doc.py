"""docs/architecture.md stays true: a map of at most 350 lines whose layer diagram is the
import-linter contracts of pyproject.toml, and every file, folder, module and name of ours it (or
docs/internals.md, the mechanisms beside it) mentions is in the tree. Its recipes are held to
the code by tests/test_architecture_recipes.py."""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "architecture.md"
INTERNALS = ROOT / "docs" / "internals.md"
MAP_LINES = 350
PRODUCT = ("contract", "dsl", "interpreter", "stdlib", "browser", "providers", "server", "cli")
SEARCHED = (*PRODUCT, "templates", "tests", "bench", "docs")
FILE = re.compile(r"[\w.*/<>-]*\.(py|md|json|lark|yaml|toml|js|css|mjs)|[\w./-]+/")
CAMEL = re.compile(r"_?[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")
CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+|[A-Z]{4,}")
SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)+")
DOTTED = re.compile(r"(_?\w+)((?:\.\w+)+)(\(.*\))?")
RUN_TIME_FILES = {"trace.zip"}  # files a run writes, not files of the tree
# Library names the doc explains that no module of ours imports (the SDK installs them itself).
LIBRARY = {"RequestStateBoundary": "mcp.server.request_state"}
# Names of the tests the doc points to (a recipe's ownership rules), with the file defining them.
TEST_NAMES = {"RULES": "tests/server/test_ownership.py"}


def _doc(path: Path = DOC) -> str:
    return path.read_text(encoding="utf-8")


def _spans(path: Path = DOC) -> list[str]:
    prose = re.sub(r"```.*?```", "", _doc(path), flags=re.S)
    return sorted(set(re.findall(r"`([^`\n]+)`", prose)))


def test_the_map_is_at_most_350_lines_with_its_sections() -> None:
    lines = _doc().splitlines()
    assert len(lines) <= MAP_LINES, (
        f"docs/architecture.md is {len(lines)} lines: move mechanism detail beside the code "
        "(its module's docstring, docs/internals.md)"
    )
    sections = [line for line in lines if line.startswith("## ")]
    for section in ("## Rooms", "## The flow of one run", "## Invariants", "## Glossary"):
        assert section in sections
    assert sections[-1] == "## Recipes"


@cache
def _sources() -> dict[Path, str]:
    return {
        path: path.read_text(encoding="utf-8")
        for folder in PRODUCT
        for path in (ROOT / folder).rglob("*.py")
    }


def _diagram(contracts: list[dict[str, Any]]) -> str:
    """The layer contracts drawn as the doc draws them: layers top down, then forbidden imports."""

    def folder(module: str) -> str:
        return (
            module.removeprefix("taskplate.") + "/" if module.startswith("taskplate.") else module
        )

    (layers,) = [c for c in contracts if c["type"] == "layers"]
    prefix = "".join(f"{c}." for c in layers.get("containers", []))
    lines = []
    for layer in layers["layers"]:
        lines += ["  ↓"] if lines else []
        lines.append(" | ".join(folder(prefix + name.strip()) for name in layer.split("|")))
    for contract in (c for c in contracts if c["type"] == "forbidden"):
        if lines[-1] != "" and not lines[-1].count("↛"):
            lines.append("")
        sources = ", ".join(folder(m) for m in contract["source_modules"])
        lines.append(f"{sources} ↛ {', '.join(folder(m) for m in contract['forbidden_modules'])}")
    return "\n".join(lines)


def test_the_layer_diagram_is_the_import_contracts() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    expected = _diagram(config["tool"]["importlinter"]["contracts"])
    view = _doc().split("## Bird's eye view", 1)[1]
    drawn = re.search(r"```text\n(.*?)\n```", view, flags=re.S)
    assert drawn is not None, "docs/architecture.md: no ```text diagram under Bird's eye view"
    assert drawn.group(1) == expected, f"draw the contracts of pyproject.toml as:\n{expected}"


def _arrows() -> str:
    """The product folders' imports of each other, drawn as the doc draws them."""
    import grimp  # import-linter's graph: the imports `lint-imports` checks

    graph = grimp.build_graph("taskplate")
    order = ("cli", "server", "interpreter", "stdlib", "browser", "providers", "dsl", "contract")
    lines = []
    for importer in order:
        imported = [
            f"{other}/"
            for other in order
            if other != importer
            and graph.direct_import_exists(
                importer=f"taskplate.{importer}", imported=f"taskplate.{other}", as_packages=True
            )
        ]
        lines.append(f"{importer + '/':<12} → {' '.join(imported) or '(nothing)'}")
    return "\n".join(lines)


def test_the_folder_arrows_are_the_import_graph() -> None:
    expected = _arrows()
    drawn = re.search(r"import graph of the product folders.*?```text\n(.*?)\n```", _doc(), re.S)
    assert drawn is not None, "docs/architecture.md: no ```text block of the folder arrows"
    assert drawn.group(1) == expected, f"draw the folder arrows of the code as:\n{expected}"


def _file_exists(span: str) -> bool:
    name = span.removeprefix("taskplate/")
    if "/" not in name.rstrip("/"):  # a bare name: somewhere in the tree
        return any(
            (ROOT / name).exists() or any((ROOT / folder).rglob(name.rstrip("/")))
            for folder in SEARCHED
        )
    return (ROOT / name).exists() or any(ROOT.glob(name))


@pytest.mark.parametrize("doc", [DOC, INTERNALS], ids=lambda p: p.name)
def test_every_file_the_doc_names_exists(doc: Path) -> None:
    named = [s for s in _spans(doc) if FILE.fullmatch(s) and "<" not in s and not s.startswith("$")]
    assert len(named) > 100  # the pattern still finds the doc's files
    missing = [span for span in named if not _file_exists(span)]
    assert missing == [], f"docs/{doc.name} names files that do not exist: {missing}"


def _module_exists(name: str) -> bool:
    """A `_name` span is a module of ours (its file) or a private name the code defines; a
    word left in a comment does not count."""
    return any(path.stem == name for path in _sources()) or _defined(name)


@pytest.mark.parametrize("doc", [DOC, INTERNALS], ids=lambda p: p.name)
def test_every_module_the_doc_names_exists(doc: Path) -> None:
    modules = [s for s in _spans(doc) if re.fullmatch(r"_[a-z][a-z0-9_]*", s)]
    modules += [d.group(1) for s in _spans(doc) if (d := DOTTED.fullmatch(s)) and d[1][0] == "_"]
    missing = sorted({name for name in modules if not _module_exists(name)})
    assert missing == [], f"docs/{doc.name} names modules that do not exist: {missing}"


def test_a_module_that_is_gone_is_told() -> None:
    assert not _module_exists("_run_inputs") and not _module_exists("_run_liveness")
    assert _module_exists("_liveness") and _module_exists("_selection")


@cache
def _definitions(path: Path) -> frozenset[str]:
    """What a module of ours defines (classes, functions, constants, fields, `self.`
    attributes, enum members) or imports (a library name we use, so one that exists)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(_sources()[path])):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.id if isinstance(node, ast.Name) else node.attr)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return frozenset(names)


def _defined(name: str, paths: list[Path] | None = None) -> bool:
    found = any(name in _definitions(path) for path in paths or _sources())
    return found or hasattr(builtins, name)


@cache
def _words() -> frozenset[str]:
    return frozenset(word for text in _sources().values() for word in re.findall(r"\w+", text))


def _mentioned(name: str) -> bool:
    """For tool, action and table names: the word appears in our code, as a name or a string."""
    return name in _words()


def _attribute_exists(owner: str, attribute: str) -> bool:
    """`owner.attribute`: a module of ours or a library's with that attribute, or a class or
    module of ours whose defining file defines it."""
    for module in (f"taskplate.{owner}", owner):
        try:
            found = importlib.import_module(module)
        except ImportError:
            continue
        return (
            hasattr(found, attribute)
            or importlib.util.find_spec(f"{module}.{attribute}") is not None
        )
    files = [p for p, text in _sources().items() if p.stem == owner]  # `_run_views.describe`
    files += [p for p, text in _sources().items() if re.search(rf"^class {owner}\b", text, re.M)]
    for text in [_sources()[p] for p in files]:  # what a class inherits: its bases' files
        for base in re.findall(rf"^class {owner}\((\w+)\)", text, re.M):
            files += [p for p, s in _sources().items() if re.search(rf"^class {base}\b", s, re.M)]
    return bool(files) and _defined(attribute, files)


def _name_exists(span: str) -> bool:
    dotted = DOTTED.fullmatch(span)
    if dotted:
        return _attribute_exists(dotted.group(1), dotted.group(2).split(".")[1])
    if span in LIBRARY:
        return hasattr(importlib.import_module(LIBRARY[span]), span)
    if span in TEST_NAMES:
        return bool(re.search(rf"^{span}\b", (ROOT / TEST_NAMES[span]).read_text(), re.M))
    if CAMEL.fullmatch(span):
        return _defined(span)
    if CONSTANT.fullmatch(span) or SNAKE.fullmatch(span):
        return _mentioned(span)
    return True  # a word of the template language, a command line: not a name of the code


@pytest.mark.parametrize("doc", [DOC, INTERNALS], ids=lambda p: p.name)
def test_every_name_the_doc_mentions_exists(doc: Path) -> None:
    names = [s for s in _spans(doc) if not FILE.fullmatch(s) and s not in RUN_TIME_FILES]
    missing = [span for span in names if not _name_exists(span)]
    assert missing == [], f"docs/{doc.name} names what the code does not have: {missing}"
