"""Text made valid Unicode where it enters: `valid_unicode` replaces lone UTF-16 surrogates with
U+FFFD and leaves clean values untouched (the same objects), and what any action answers or
fails with (a provider's tool here) comes out of `run_action` valid, the errors included."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_types import CallToolResult, TextContent

from taskplate.contract import ErrorCode, Level, TaskplateError, valid_unicode
from taskplate.dsl import ActionSpec
from taskplate.providers._actions import step_result
from taskplate.stdlib import ActionContext, run_action

pytestmark = pytest.mark.anyio
LONE = "A\ud800B"
CLEAN = "A\ufffdB"


def test_lone_surrogates_are_replaced_and_clean_values_kept_as_they_are() -> None:
    clean = {"a": ["x", {"y": 1.5, "z": None}], "emoji": "\U0001f600"}
    assert valid_unicode(clean) is clean
    assert valid_unicode({LONE: [LONE, ("\udfff", 1)]}) == {CLEAN: [CLEAN, ("\ufffd", 1)]}
    assert valid_unicode("\ud83d\ude00") == "\ufffd\ufffd"  # an unjoined pair is two lone ones
    error = TaskplateError(ErrorCode.EXECUTION_ERROR, LONE, LONE, {"quote": [LONE]})
    assert (error.message, error.recover_hint, error.details, str(error)) == (
        CLEAN,
        CLEAN,
        {"quote": [CLEAN]},
        CLEAN,
    )


def provider_action(answer: CallToolResult) -> dict[str, ActionSpec]:
    async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
        return step_result("p", "echo", answer, typed=False)

    spec = ActionSpec(
        name="mcp.p.echo",
        level=Level.L0,
        summary="",
        args_schema={"type": "object"},
        result_schema={"type": "object"},
        needs_browser=False,
        provider="p",
        run=run,
    )
    return {spec.name: spec}


async def test_a_providers_answer_and_its_error_come_out_valid() -> None:
    said = CallToolResult(content=[TextContent(type="text", text=LONE)])
    assert await run_action("mcp.p.echo", ActionContext(), {}, provider_action(said)) == {
        "text": CLEAN
    }
    failed = CallToolResult(content=[TextContent(type="text", text=LONE)], is_error=True)
    with pytest.raises(TaskplateError) as raised:
        await run_action("mcp.p.echo", ActionContext(), {}, provider_action(failed))
    assert raised.value.code is ErrorCode.PROVIDER_ERROR and CLEAN in raised.value.message


async def test_an_action_run_by_another_answers_into_it_and_the_whole_is_made_valid_once() -> None:
    seen: list[dict[str, Any]] = []

    async def inner(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
        return {"text": LONE}

    async def outer(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
        seen.append(await run_action("inner", ctx, {}, catalog))
        return {"read": seen[-1]["text"]}

    def spec(name: str, run: Any) -> ActionSpec:
        schema = {"type": "object"}
        return ActionSpec(name, Level.L0, "", schema, schema, needs_browser=False, run=run)

    catalog = {"inner": spec("inner", inner), "outer": spec("outer", outer)}
    assert await run_action("outer", ActionContext(), {}, catalog) == {"read": CLEAN}
    assert seen == [{"text": LONE}]  # not scanned on its way into the outer result
    assert await run_action("inner", ActionContext(), {}, catalog) == {"text": CLEAN}  # alone
