"""Text made valid Unicode where it enters: `valid_unicode` replaces lone UTF-16 surrogates with
U+FFFD and leaves clean values untouched (the same objects), `valid_json` reads a page's JSON
text to the same value, and what any action answers or fails with (a provider's tool here)
comes out of `run_action` valid and within the depth bound, the errors included, a large answer
checked off the event loop (`walked`) as a small one is inline."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp_types import CallToolResult, TextContent

from taskplate.contract import (
    MAX_VALUE_DEPTH,
    ErrorCode,
    Level,
    TaskplateError,
    valid_json,
    valid_unicode,
)
from taskplate.dsl import ActionSpec
from taskplate.providers._actions import step_result
from taskplate.stdlib import ActionContext, run_action, walked
from tests.fuzzing import fuzz_settings

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


TEXTS = st.lists(
    st.sampled_from(["a", "\\", '"', "\ud800", "\udfff", "\U0001f600", "\\ud800"])
).map("".join)
VALUES = st.recursive(
    st.none() | st.integers() | TEXTS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXTS, inner, max_size=3),
    max_leaves=12,
)


@pytest.mark.fuzz
@fuzz_settings(200)
@given(VALUES, st.booleans())
def test_a_json_text_reads_as_json_loads_made_valid(value: Any, ascii_only: bool) -> None:
    # lone surrogates escaped (\ud800, as JSON.stringify writes them) or raw in the text, and
    # texts that only look like an escape (a backslash before "ud800")
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert valid_json(text) == valid_unicode(json.loads(text))
    assert valid_json(json.dumps(valid_unicode(value))) == valid_unicode(value)


async def test_a_large_values_walk_runs_off_the_loop_and_a_small_ones_on_it() -> None:
    def where(value: Any, also: int) -> tuple[str, int]:
        return threading.current_thread().name, len(value) + also

    loop = threading.current_thread().name
    small_on, small_n = await walked(where, [1, 2], 1)
    large_on, large_n = await walked(where, [[i] for i in range(20_000)], 1)
    assert (small_on, small_n) == (loop, 3)
    assert large_on != loop and large_n == 20_001


def action_answering(value: Any) -> dict[str, ActionSpec]:
    async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
        return {"value": value}

    schema = {"type": "object"}
    spec = ActionSpec("answers", Level.L0, "", schema, schema, needs_browser=False, run=run)
    return {spec.name: spec}


async def test_a_large_answer_past_the_depth_bound_is_refused_as_a_small_one_is() -> None:
    deep: Any = 1
    for _ in range(MAX_VALUE_DEPTH):
        deep = [deep]
    for rows in (1, 20_000):  # checked inline, and in a worker thread
        value = [{"row": i} for i in range(rows)] + [deep]
        with pytest.raises(TaskplateError) as raised:
            await run_action("answers", ActionContext(), {}, action_answering(value))
        assert raised.value.code is ErrorCode.EXECUTION_ERROR, rows
        assert f"deeper than {MAX_VALUE_DEPTH} levels" in raised.value.message
        within = [{"row": i, "text": LONE} for i in range(rows)]
        answered = await run_action("answers", ActionContext(), {}, action_answering(within))
        assert answered["value"][-1] == {"row": rows - 1, "text": CLEAN}


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
