"""Templates as tools of their own, as an author meets them (issue 53): their own templates
offered before the shipped ones, one left out by the budget named with why, a template without
`outputs` typed as `dsl validate` infers it, a login profile taken, whole first sentences."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp.client.client import Client
from mcp_types import CallToolResult

from taskplate.browser import BrowserRuntime
from taskplate.server import build_server
from taskplate.server._schemas import answers
from taskplate.server.tools import TEMPLATE_TOOLS_GROUPS
from taskplate.server.tools.template_tools import first_sentence, spec_of
from tests.fixtures.server import FixtureServer
from tests.server.conftest import running_manager

pytestmark = pytest.mark.anyio

# Two templates of the author's, as in the issue: neither declares `outputs`.
SHOP_CARDS = """template: shop_cards
version: 1.0.0
description: >-
  The cards of one shop page (title and price; as many as it shows). Each card is a record.
trust: [local, remote]
mode: {default: sync}
inputs:
  type: object
  additionalProperties: false
  required: [url]
  properties:
    url: {type: string, description: The shop page.}
steps:
  - id: page
    action: navigate
    with: {url: "${{ inputs.url }}"}
  - id: info
    action: get_page_info
output:
  title: ${{ steps.info.title }}
  status: ${{ steps.page.status }}
  words: ${{ split(steps.info.title, ' ') }}
"""
WHOSE_PROFILE = """template: whose_profile
version: 1.0.0
description: Which login profile the run starts from (e.g. shop; master unless given). No more.
trust: [local, remote]
mode: {default: sync}
inputs: {type: object, additionalProperties: false, properties: {}}
steps:
  - action: wait
    with: {ms: 1}
output:
  profile: ${{ run.profileId }}
"""

# A template whose inputs name the profile, as the shipped ones do.
NAMED_PROFILE = WHOSE_PROFILE.replace("whose_profile", "named_profile").replace(
    "inputs: {type: object, additionalProperties: false, properties: {}}",
    'session: {profile: "${{ inputs.profileId }}"}\n'
    "inputs: {type: object, properties: {profileId: {type: string, default: master}}}",
)


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, ...]:
    (tmp_path / "mine").mkdir()
    for text in (SHOP_CARDS, WHOSE_PROFILE, NAMED_PROFILE):
        name = text.split("\n", 1)[0].removeprefix("template: ")
        (tmp_path / "mine" / f"{name}.yaml").write_text(text, encoding="utf-8")
    return (tmp_path / "mine",)


def checked(answer: CallToolResult, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The answer's structuredContent, valid against the tool's declared schema; an error
    has a code and a hint."""
    content = answer.structured_content
    assert content is not None, answer.content
    if schema:
        jsonschema.validate(content, schema)
    if answer.is_error:
        assert content["errorCode"] and content["recoverHint"], content
    return dict(content)


async def test_the_authors_templates_come_first_and_one_left_out_says_why(
    tmp_path: Path, runtime: BrowserRuntime, folders: tuple[Path, ...]
) -> None:
    """Under the default budget the six shipped templates and the author's two do not all fit:
    the author's are offered, the shipped ones left out are named in list_task_templates with
    why, and calling one as a tool names --tool-tokens and run_task_template."""
    async with running_manager(tmp_path / "home", runtime, *folders) as manager:
        server, _ = build_server(manager, groups=TEMPLATE_TOOLS_GROUPS, template_tools=True)
        async with Client(server, mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            listing = checked(
                await client.call_tool("list_task_templates", {}),
                tools["list_task_templates"].output_schema,
            )
            shipped = {t.id for t in manager.library.all() if manager.library.is_shipped(t)}
            left = {
                t["templateId"]: t["tool"] for t in listing["templates"] if not t["tool"]["offered"]
            }
            assert left, "the budget fits everything: the test needs it to leave one out"
            name = sorted(left)[0]
            refused = checked(await client.call_tool(name, {"urls": ["https://a.test/"]}), None)
    assert {"shop_cards", "whose_profile", "named_profile"} <= set(tools)
    assert set(left) <= shipped, left  # the author's own are never the ones left out
    assert "--tool-tokens" in left[name]["why"] and "run_task_template" in left[name]["why"]
    offered = [t for t in listing["templates"] if t["templateId"] in tools]
    assert all(t["tool"] == {"offered": True} for t in offered), offered
    assert refused["errorCode"] == "INVALID_PARAMETER"
    assert f'the template "{name}" is not offered as a tool' in refused["error"]
    assert "--tool-tokens" in refused["error"] + refused["recoverHint"]
    assert "run_task_template" in refused["recoverHint"], refused


async def test_a_template_without_outputs_is_typed_as_validate_infers_it(
    tmp_path: Path, runtime: BrowserRuntime, site: FixtureServer, folders: tuple[Path, ...]
) -> None:
    async with running_manager(tmp_path / "home", runtime, *folders) as manager:
        server, _ = build_server(manager, groups=("templates",), template_tools=True)
        async with Client(server, mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            schema = tools["shop_cards"].output_schema
            answer = checked(
                await client.call_tool("shop_cards", {"url": site.url("/article.html")}), schema
            )
    result = (schema or {})["anyOf"][0]["properties"]["result"]
    assert result["properties"] == {
        "title": {"type": ["string", "null"]},
        "status": {"type": ["number", "null"]},
        "words": {"type": ["array", "null"], "items": {"type": ["string", "null"]}},
    }, result
    assert answer["status"] == "succeeded", answer.get("error")
    assert isinstance(answer["result"]["title"], str) and answer["result"]["status"] == 200
    # the server's own schema checks it: a title that is a number is not this tool's answer
    spec = spec_of(manager.library.get("shop_cards"))
    wrong = answer | {"result": answer["result"] | {"title": 3}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, answers(spec.output_schema))


async def test_a_template_tool_takes_the_login_profile_as_run_task_template_does(
    tmp_path: Path, runtime: BrowserRuntime, folders: tuple[Path, ...]
) -> None:
    async with running_manager(tmp_path / "home", runtime, *folders) as manager:
        server, _ = build_server(manager, groups=("templates",), template_tools=True)
        async with Client(server, mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            schema = tools["whose_profile"].output_schema
            given = checked(await client.call_tool("whose_profile", {"profileId": "shop"}), schema)
            plain = checked(await client.call_tool("whose_profile", {}), schema)
            bad = checked(await client.call_tool("whose_profile", {"profileId": "../etc"}), None)
            named = checked(
                await client.call_tool("named_profile", {"profileId": "work"}),
                tools["named_profile"].output_schema,
            )
            through = checked(
                await client.call_tool(
                    "run_task_template", {"templateId": "whose_profile", "profileId": "shop"}
                ),
                tools["run_task_template"].output_schema,
            )
    assert "profileId" in tools["whose_profile"].input_schema["properties"]
    assert given["status"] == "succeeded", given.get("error")
    assert given["result"] == {"profile": "shop"} == through["result"]
    assert plain["result"] == {"profile": "master"}
    assert named["result"] == {"profile": "work"}, named  # the template's own input
    assert bad["errorCode"] == "INVALID_PARAMETER", bad


def test_a_tools_description_is_the_whole_first_sentence() -> None:
    """Parentheses and semicolons stay; a stop inside parentheses or an abbreviation does
    not end the sentence (issue 53: cut at `(` and `;`)."""
    cases = {
        "Read pages (HTML or PDF; up to 50). Then more.": "Read pages (HTML or PDF; up to 50).",
        "Waits 1.5 s, e.g. for a feed. Then reads it.": "Waits 1.5 s, e.g. for a feed.",
        "Reads a list (see a. Then b.) fast. More.": "Reads a list (see a. Then b.) fast.",
        "One sentence without a stop": "One sentence without a stop",
    }
    assert {text: first_sentence(text, 200) for text in cases} == cases
    assert first_sentence("word " * 60, 30).endswith("…")
    assert spec_of_whose_profile_description() == (
        "Which login profile the run starts from (e.g. shop; master unless given)."
    )


def spec_of_whose_profile_description() -> str:
    from taskplate.dsl import check_source
    from taskplate.stdlib import REGISTRY

    template = check_source(WHOSE_PROFILE, "whose_profile.yaml", REGISTRY).template
    assert template is not None
    return spec_of(template).description or ""
