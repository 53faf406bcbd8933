"""Every example in docs/contract/ validates against the full schema its tool declares and
against the outline tools/list publishes of it."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import jsonschema
import pytest

from taskplate.interpreter import SHIPPED, RunManager, TemplateLibrary
from taskplate.server._app import build_server
from taskplate.server._schemas import ERROR, answers
from taskplate.server.tools import TOOLS
from taskplate.stdlib import REGISTRY

EXAMPLES = sorted((Path(__file__).parents[2] / "docs" / "contract").glob("*.json"))


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    library = TemplateLibrary(REGISTRY).load([SHIPPED])
    manager = RunManager(tmp_path_factory.mktemp("home"), library)  # its store never opens
    server, _ = build_server(manager)
    full = {spec.name: answers(spec.output_schema) for spec in TOOLS}
    return {t.name: (t.input_schema, full[t.name]) for t in anyio.run(server.list_tools)}


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The output schemas tools/list gives."""
    library = TemplateLibrary(REGISTRY).load([SHIPPED])
    manager = RunManager(tmp_path_factory.mktemp("home"), library)
    server, _ = build_server(manager)
    return {t.name: t.output_schema or {} for t in anyio.run(server.list_tools)}


def test_every_contract_tool_has_examples() -> None:
    named = {p.name.split(".")[0] for p in EXAMPLES}
    assert named == {
        "get_runtime_profile",
        "list_task_templates",
        "run_task_template",
        "get_task_run",
        "list_task_runs",
        "cancel_task_run",
        "resume_task_run",
        "get_artifact",
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_validates_against_the_published_schema(
    path: Path, tools: dict[str, tuple[dict, dict]], published: dict[str, dict]
) -> None:
    tool, kind = path.name.split(".")[:2]
    inputs, outputs = tools[tool]
    assert ERROR in outputs["anyOf"]  # every answer may be the error object
    results = {**outputs, "anyOf": [s for s in outputs["anyOf"] if s != ERROR]}
    schema = {"request": inputs, "response": results, "error": ERROR}[kind]
    jsonschema.Draft202012Validator.check_schema(schema)
    example = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(example, schema)
    if kind != "request":
        jsonschema.validate(example, published[tool])
