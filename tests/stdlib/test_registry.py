"""The action registry: every SPEC §6 action declared with valid schemas; data actions work."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.stdlib import REGISTRY

SPEC_ACTIONS = {
    "navigate",
    "wait_for_stable",
    "wait_for",
    "wait",
    "get_page_info",
    "get_page_content",
    "screenshot",
    "extract",
    "snapshot",
    "click",
    "fill",
    "type",
    "press",
    "select_option",
    "check",
    "hover",
    "scroll",
    "create_tab",
    "close_tab",
    "save_profile",
    "evaluate",
    "upload_file",
    "set",
    "assert",
    "fail",
    "compare",
}
LEVELS = {
    # hand_over: a person acts on the page (issue #18)
    Level.L1: {
        "click",
        "fill",
        "type",
        "press",
        "select_option",
        "check",
        "save_profile",
        "hand_over",
    },
    Level.L2: {"evaluate", "upload_file", "download"},
}


def test_every_spec_action_is_declared() -> None:
    assert set(REGISTRY) >= SPEC_ACTIONS


@pytest.mark.parametrize("name", list(REGISTRY))
def test_schemas_are_valid_2020_12(name: str) -> None:
    spec = REGISTRY[name]
    jsonschema.Draft202012Validator.check_schema(spec.args_schema)
    jsonschema.Draft202012Validator.check_schema(spec.result_schema)
    assert spec.summary.endswith(".")


def test_capability_levels_follow_the_spec() -> None:
    for spec in REGISTRY.values():
        expected = next((level for level, names in LEVELS.items() if spec.name in names), Level.L0)
        assert spec.level is expected, spec.name


def test_data_actions_need_no_browser_and_run() -> None:
    data = {"set", "assert", "fail", "compare", "export", "wait"}
    plain_http = {"fetch", "sitemap", "robots"}  # tests/stdlib/test_fetch.py runs them
    # read_page opens a browser only when it chooses one (tests/interpreter/test_engines.py)
    chooses = {"read_page"}
    assert {n for n, s in REGISTRY.items() if not s.needs_browser} == data | plain_http | chooses
    assert all(REGISTRY[n].run is not None for n in data)


async def call(name: str, args: dict[str, Any]) -> Any:
    run = REGISTRY[name].run
    assert run is not None
    return await run(None, args)


@pytest.mark.anyio
async def test_set_answers_its_arguments() -> None:
    assert await call("set", {"a": 1, "b": [2]}) == {"a": 1, "b": [2]}


@pytest.mark.anyio
async def test_assert_fails_with_assertion_failed() -> None:
    assert await call("assert", {"that": True}) == {"passed": True}
    with pytest.raises(TaskplateError) as caught:
        await call("assert", {"that": "", "message": "title is empty"})
    assert caught.value.code is ErrorCode.ASSERTION_FAILED
    assert caught.value.message == "title is empty"


@pytest.mark.anyio
async def test_fail_uses_the_given_code() -> None:
    with pytest.raises(TaskplateError) as caught:
        await call("fail", {"message": "stop", "code": "ELEMENT_NOT_FOUND"})
    assert caught.value.code is ErrorCode.ELEMENT_NOT_FOUND


@pytest.mark.anyio
async def test_compare_reports_same_and_different_fields() -> None:
    items = [
        {"url": "a", "values": {"price": "1", "name": "x"}},
        {"url": "b", "values": {"price": "2", "name": "x"}},
        {"url": "c", "success": False},
    ]
    result = await call(
        "compare",
        {"items": items[:2], "fields": ["price", "name"], "key": "url", "within": "values"},
    )
    assert result == {
        "same": ["name"],
        "differences": [
            {"field": "price", "values": [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}]}
        ],
    }
    with_failed = await call(
        "compare", {"items": items, "fields": ["name"], "key": "url", "within": "values"}
    )
    assert with_failed["differences"][0]["values"][2] == {"key": "c", "value": None}


def test_export_encodes_json_and_csv() -> None:
    from taskplate.stdlib.data.export import encode

    rows = [{"url": "a", "title": "A, b"}, {"url": "b", "tags": ["x"]}]
    assert encode(rows, "csv").decode().splitlines() == [
        "url,title,tags",
        'a,"A, b",',
        'b,,"[""x""]"',
    ]
    assert b'"url": "a"' in encode(rows, "json")


@pytest.mark.anyio
async def test_run_action_refuses_bad_arguments_with_pointers() -> None:
    from taskplate.stdlib import run_action
    from taskplate.stdlib._context import ActionContext

    with pytest.raises(TaskplateError) as caught:
        await run_action("compare", ActionContext(), {"items": "nope", "fields": [], "bogus": 1})
    assert caught.value.code is ErrorCode.INVALID_PARAMETER
    pointers = {v["pointer"] for v in caught.value.details["violations"]}
    assert pointers == {"/", "/items", "/fields"}
    with pytest.raises(TaskplateError, match='unknown action "frobnicate"'):
        await run_action("frobnicate", ActionContext(), {})
