"""What tools/list offers (docs/mcp.md, "Tool groups"): the groups an operator serves, a tool
of another group refused naming how to serve it, output schemas outlined truthfully, and the
templates as tools of their own (typed by their inputs, run like run_task_template, the list
announced again when the templates change), on both protocol lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
import yaml
from mcp.client.client import Client

from taskplate.browser import BrowserRuntime
from taskplate.dsl._model import build_template
from taskplate.interpreter import RunManager
from taskplate.server import build_server
from taskplate.server._schemas import answers, published
from taskplate.server.tools import (
    DEFAULT_GROUPS,
    GROUPS,
    TEMPLATE_TOOLS_GROUPS,
    TOOLS,
    groups_named,
)
from taskplate.server.tools.template_tools import spec_of
from tests.fixtures.server import FixtureServer
from tests.server.conftest import running_manager, start_http, stop

pytestmark = pytest.mark.anyio
LINES = ["legacy", "2026-07-28"]  # the 2025-11-25 handshake and the stateless line

ECHO = """template: echo_title
version: 1.0.0
description: The title of one page of the fixture site.
trust: [local, remote]
mode: {default: sync}
inputs:
  type: object
  required: [url]
  additionalProperties: false
  properties:
    url: {type: string, description: The page to read.}
steps:
  - id: page
    action: navigate
    with: {url: "${{ inputs.url }}"}
output:
  title: ${{ steps.page.title }}
"""
OUTPUTS = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, ...]:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "echo_title.yaml").write_text(ECHO, encoding="utf-8")
    return (tmp_path / "mine",)


def test_group_names_are_checked() -> None:
    assert groups_named(["pages", "templates"]) == ("templates", "pages")
    assert groups_named(["all"]) == tuple(GROUPS)
    with pytest.raises(Exception, match='"page" is not a tool group'):
        groups_named(["page"])


def test_outlines_accept_every_answer_the_full_schemas_accept() -> None:
    """An outline only drops constraints: the contract's examples, valid against the full
    schema, are valid against it; and it is much smaller."""
    examples = Path(__file__).parents[2] / "docs" / "contract"
    for spec in TOOLS:
        full, outline = answers(spec.output_schema), published(spec.output_schema)
        jsonschema.Draft202012Validator.check_schema(outline)
        assert len(json.dumps(outline)) < len(json.dumps(full)) / 2
        answered = [p for p in examples.glob(f"{spec.name}.*.json") if ".request" not in p.name]
        for path in answered:
            example = json.loads(path.read_text(encoding="utf-8"))
            jsonschema.validate(example, full)
            jsonschema.validate(example, outline)


@pytest.mark.parametrize("line", LINES)
async def test_the_default_groups_and_a_tool_outside_them(manager: RunManager, line: str) -> None:
    server, _ = build_server(manager, groups=DEFAULT_GROUPS)
    async with Client(server, mode=line) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert set(names) == {n for g in DEFAULT_GROUPS for n in GROUPS[g]}
        refused = await client.call_tool("evaluate", {"sessionId": "s", "script": "1"})
    assert refused.is_error and refused.structured_content is not None
    assert refused.structured_content["details"] == {"tool": "evaluate", "group": "tabs"}
    assert "--tools" in refused.structured_content["recoverHint"]


@pytest.mark.parametrize("line", LINES)
async def test_a_template_is_a_tool_of_its_own(
    manager: RunManager, site: FixtureServer, line: str
) -> None:
    server, _ = build_server(manager, groups=("templates",), template_tools=True)
    url = site.url("/article.html")
    async with Client(server, mode=line) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        tool = tools["echo_title"]
        assert tool.description == "The title of one page of the fixture site."
        assert tool.input_schema["required"] == ["url"]
        assert "batch_extract_pages" in tools  # the shipped ones too
        own = await client.call_tool("echo_title", {"url": url})
        through = await client.call_tool(
            "run_task_template", {"templateId": "echo_title", "inputs": {"url": url}}
        )
        wrong = await client.call_tool("echo_title", {"url": 3})
    assert own.structured_content is not None and through.structured_content is not None
    assert own.structured_content["status"] == "succeeded", own.structured_content.get("error")
    assert own.structured_content["result"] == through.structured_content["result"]
    assert own.structured_content["templateId"] == "echo_title"
    jsonschema.validate(own.structured_content, tool.output_schema or {})
    typed = (tool.output_schema or {})["anyOf"][0]["properties"]["result"]
    # echo_title declares no outputs: its result is typed as dsl validate infers its `output`
    assert typed["properties"] == {"title": {"type": ["string", "null"]}}, typed
    assert wrong.is_error and wrong.structured_content is not None
    assert wrong.structured_content["errorCode"] == "INVALID_PARAMETER"


async def test_a_new_template_is_announced_and_offered(manager: RunManager, tmp_path: Path) -> None:
    server, _ = build_server(manager, groups=("templates",), template_tools=True)
    changed = anyio.Event()

    async def told(message: Any) -> None:
        if getattr(getattr(message, "root", message), "method", "") == (
            "notifications/tools/list_changed"
        ):
            changed.set()

    async with Client(server, mode="legacy", message_handler=told) as client:
        capabilities = client.server_capabilities
        assert capabilities.tools is not None and capabilities.tools.list_changed
        again = ECHO.replace("echo_title", "echo_again")
        (tmp_path / "mine" / "echo_again.yaml").write_text(again, encoding="utf-8")
        await client.call_tool("list_task_templates", {})
        with anyio.fail_after(5):
            await changed.wait()
        names = {t.name for t in (await client.list_tools()).tools}
    assert {"echo_title", "echo_again"} <= names


async def test_over_http_a_template_tool_is_typed_and_a_new_one_announced(tmp_path: Path) -> None:
    """Streamable HTTP: the session is told of a template saved into the data home's folder."""
    home = tmp_path / "home"
    (home / "templates").mkdir(parents=True)
    (home / "templates" / "echo_title.yaml").write_text(ECHO, encoding="utf-8")
    served = start_http(home, "--tools", "templates", "--template-tools")
    changed = anyio.Event()

    async def told(message: Any) -> None:
        if getattr(getattr(message, "root", message), "method", "") == (
            "notifications/tools/list_changed"
        ):
            changed.set()

    try:
        async with Client(served.url, mode="legacy", message_handler=told) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["echo_title"].input_schema["properties"]["url"]["type"] == "string"
            wrong = await client.call_tool("echo_title", {"url": ["not", "a", "string"]})
            assert wrong.is_error and wrong.structured_content is not None
            assert wrong.structured_content["errorCode"] == "INVALID_PARAMETER"
            again = ECHO.replace("echo_title", "echo_again")
            (home / "templates" / "echo_again.yaml").write_text(again, encoding="utf-8")
            await client.call_tool("list_task_templates", {})
            with anyio.fail_after(10):
                await changed.wait()
            assert "echo_again" in {t.name for t in (await client.list_tools()).tools}
    finally:
        stop(served)


# @playwright/mcp 0.0.83's tools/list, 25 tools: characters and o200k_base tokens
# (bench/tools_size.py measures both servers in one run; docs/mcp.md "Tool groups")
PEER_CHARS, PEER_TOKENS = 20_296, 4_415


async def test_the_default_tool_list_is_no_larger_than_the_peers(manager: RunManager) -> None:
    """What tools/list sends of the default groups, as bench/tools_size.py counts it: a tool
    added to the default set, or a longer description or schema, must still fit."""
    import bpe_openai

    server, _ = build_server(manager, groups=DEFAULT_GROUPS)
    async with Client(server, mode="legacy") as client:
        tools = (await client.list_tools()).tools
    listed = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
    text = json.dumps({"tools": listed}, separators=(",", ":"), ensure_ascii=False)
    tokens = len(bpe_openai.get_encoding("o200k_base").encode(text))
    assert len(text) <= PEER_CHARS and tokens <= PEER_TOKENS, (len(text), tokens)


async def test_with_the_templates_as_tools_the_default_list_is_no_larger_than_the_peers(
    tmp_path: Path, runtime: BrowserRuntime
) -> None:
    """`dsl serve --template-tools`'s list (its default groups and every shipped template as a
    tool) is measured as bench/tools_size.py measures it: within @playwright/mcp's size."""
    import bpe_openai

    async with running_manager(tmp_path / "home", runtime) as shipped:
        server, _ = build_server(shipped, groups=TEMPLATE_TOOLS_GROUPS, template_tools=True)
        async with Client(server, mode="legacy") as client:
            tools = (await client.list_tools()).tools
    listed = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
    assert {t.name for t in tools} >= {t.id for t in shipped.library.all()}
    text = json.dumps({"tools": listed}, separators=(",", ":"), ensure_ascii=False)
    tokens = len(bpe_openai.get_encoding("o200k_base").encode(text))
    assert len(text) <= PEER_CHARS and tokens <= PEER_TOKENS, (len(text), tokens)


async def test_templates_that_do_not_fit_the_budget_are_left_to_run_task_template(
    tmp_path: Path, runtime: BrowserRuntime, site: FixtureServer, folders: tuple[Path, ...]
) -> None:
    """A budget too small for every template's tool: those that fit are tools, the others are
    not listed but still run through run_task_template."""
    async with running_manager(tmp_path / "home", runtime, *folders) as library:
        roomy, _ = build_server(library, groups=("runs",), template_tools=True)
        tight, _ = build_server(
            library, groups=("templates",), template_tools=True, tool_tokens=1_000
        )
        async with Client(roomy, mode="legacy") as client:
            everyone = {t.name for t in (await client.list_tools()).tools}
        async with Client(tight, mode="legacy") as client:
            tools = (await client.list_tools()).tools
            offered = {t.name for t in tools} - set(GROUPS["templates"])
            url = site.url("/article.html")
            through = await client.call_tool(
                "run_task_template", {"templateId": "echo_title", "inputs": {"url": url}}
            )
        listed = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
    templates = {t.id for t in library.library.all()}
    assert templates <= everyone
    assert offered < templates  # some, not all
    text = json.dumps({"tools": listed}, separators=(",", ":"), ensure_ascii=False)
    assert len(text) <= 1_000 * 4 or not offered, len(text)
    assert through.structured_content is not None
    assert through.structured_content["status"] == "succeeded"


def test_a_template_tools_answer_is_typed_by_its_outputs() -> None:
    """The listed outputSchema names a succeeded run's result's fields and types; an answer
    of a run that did not succeed (its result unchecked) is valid against it too."""
    template, _ = build_template(yaml.safe_load(ECHO) | {"outputs": OUTPUTS})
    spec = spec_of(template)
    assert spec.listed is not None
    listed = spec.listed[1]
    jsonschema.Draft202012Validator.check_schema(listed)
    [succeeded, _other, _error] = listed["anyOf"]
    assert succeeded["properties"]["result"]["properties"]["title"] == {"type": "string"}
    run = {"runId": "run_1", "templateId": "echo_title", "templateVersion": "1.0.0"}
    good = run | {"status": "succeeded", "result": {"title": "A"}}
    partial = run | {"status": "failed", "result": {"title": None}}
    for answer in (good, partial, {"runId": "run_1", "status": "queued", "createdAt": "now"}):
        jsonschema.validate(answer, listed)
    exact = answers(spec.output_schema)  # the server's own: a succeeded run's result typed
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(run | {"status": "succeeded", "result": {"title": 3}}, exact)
