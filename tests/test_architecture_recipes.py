"""docs/architecture.md's recipes hold against the code: each place a recipe names exists, and
doing what it says has the effect it promises (a new action is listed, a new MCP tool is served
only in a group and with an ownership rule, a new rule runs); leaving a step out shows."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from taskplate import stdlib
from taskplate.contract import Level
from taskplate.dsl import ActionSpec, Severity, check_source, rules
from taskplate.dsl.rules import Rule
from taskplate.server import tools as server_tools
from tests.server.test_ownership import RULES

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "architecture.md"
KINDS = ("navigation", "reading", "interaction", "data")


def _recipe(title: str) -> str:
    recipes = DOC.read_text(encoding="utf-8").split("## Recipes", 1)[1]
    found = re.search(rf"- \*\*{re.escape(title)}\*\*(.*?)(?=\n- \*\*|\Z)", recipes, re.S)
    assert found is not None, f"docs/architecture.md has no recipe '{title}'"
    return " ".join(found.group(1).split())


def test_the_new_tool_recipe_names_the_groups_and_the_ownership_rules() -> None:
    recipe = _recipe("A new MCP tool is served")
    for place in ("`GROUPS`", "`RULES`", "`CONTRACT`", "`BROWSER`", "server/tools/__init__.py"):
        assert place in recipe, f"the new-tool recipe must name {place}"
    assert "tests/server/test_ownership.py" in recipe


def test_every_tool_is_in_one_group_and_has_an_ownership_rule() -> None:
    names = [spec.name for spec in server_tools.TOOLS]
    grouped = [name for group in server_tools.GROUPS.values() for name in group]
    assert sorted(grouped) == sorted(names), "each tool is in exactly one group"
    assert set(RULES) == set(names), "each tool says whose ids it takes (RULES)"


def test_a_tool_in_no_group_is_never_served(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recipe's warning: a tool listed in TOOLS but in no group of GROUPS is not served;
    put in a group, it is."""
    bound = object()
    new = SimpleNamespace(name="get_weather", tool=lambda state: bound)
    monkeypatch.setattr(server_tools, "TOOLS", [*server_tools.TOOLS, new])
    only_new = {name: () for name in server_tools.GROUPS}
    monkeypatch.setattr(server_tools, "GROUPS", only_new)
    assert server_tools.tools(SimpleNamespace()) == []  # listed, in no group: never served
    monkeypatch.setattr(server_tools, "GROUPS", {**only_new, "pages": ("get_weather",)})
    assert server_tools.tools(SimpleNamespace(), ["pages"]) == [bound]


def _fake_action(name: str) -> ActionSpec:
    async def run(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
        return {}

    return ActionSpec(
        name=name,
        summary="A made-up action of the recipe's test.",
        args_schema={"type": "object", "additionalProperties": False},
        result_schema={"type": "object"},
        level=Level.L0,
        run=run,
        needs_browser=False,
    )


def test_every_action_module_is_listed_and_each_line_names_a_module() -> None:
    modules = sorted(
        f"{kind}.{path.stem}"
        for kind in KINDS
        for path in (ROOT / "stdlib" / kind).glob("*.py")
        if not path.stem.startswith("_")
    )
    assert sorted(stdlib._MODULES) == modules
    assert set(stdlib.REGISTRY) == {module.split(".")[1] for module in modules}
    for name in stdlib.USER_INPUT | stdlib.MOVES_PAGE:
        assert name in stdlib.REGISTRY
    recipe = _recipe("A new action is listed")
    for place in ("`_MODULES`", "stdlib/__init__.py", "`USER_INPUT`", "`MOVES_PAGE`", "`ACTION`"):
        assert place in recipe
    assert all(f"`{kind}`" in recipe for kind in KINDS)


def test_a_new_action_is_listed_by_its_line_in_the_modules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = ModuleType("taskplate.stdlib.data.tally")
    module.ACTION = _fake_action("tally")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "taskplate.stdlib.data.tally", module)
    assert "tally" not in stdlib.REGISTRY  # a module without its line is never listed
    listed = stdlib.Registry((*stdlib._MODULES, "data.tally"))
    assert "tally" in listed and listed.names()[-1] == "tally"
    assert listed["tally"] is module.ACTION
    assert listed["navigate"] is stdlib.REGISTRY["navigate"]


def test_every_rule_module_is_in_the_registry() -> None:
    modules = {
        path.stem for path in (ROOT / "dsl" / "rules").glob("*.py") if path.stem != "__init__"
    }
    assert {rule.name.replace("-", "_") for rule in rules.REGISTRY} == modules
    recipe = _recipe("A new rule runs")
    for place in ("`RULE`", "`REGISTRY`", "dsl/rules/__init__.py", "`docs_table`"):
        assert place in recipe


TEMPLATE = """\
template: recipe
version: 1.0.0
steps:
  - action: wait
    with: {ms: 1}
"""


def test_a_new_rule_runs_by_its_line_in_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    def on_template(ctx: Any, report: Any) -> None:
        report("every template is suspicious", "/template")

    new = Rule("suspicious", Severity.WARNING, "a made-up rule", on_template=on_template)
    from taskplate.dsl import _checker

    before = check_source(TEMPLATE, "recipe.yaml", stdlib.REGISTRY)
    assert before.diagnostics == []
    monkeypatch.setattr(_checker, "REGISTRY", (*rules.REGISTRY, new))
    after = check_source(TEMPLATE, "recipe.yaml", stdlib.REGISTRY)
    assert [(d.rule, d.message) for d in after.diagnostics] == [
        ("suspicious", "every template is suspicious")
    ]
