"""How kept calls become a template: inputs named after their fields, secrets as password
inputs, tabs by the step that opened them, and the recordings that cannot be one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taskplate.contract import TaskplateError
from taskplate.dsl import check_source
from taskplate.interpreter import RunStore, marked, typed_secret
from taskplate.interpreter._templates_from_calls import build_template, kept_calls, template_text
from taskplate.stdlib import REGISTRY


def call(action: str, args: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"step_id": None, "item_index": None, "tab": None, "opened_tab": None, **more,
            "action": action, "args": args}  # fmt: skip


def test_secrets_are_marked_whole_and_masked_inside_texts() -> None:
    assert typed_secret("fill", {"value": "pw"}, {"secret": True}) == "pw"
    assert typed_secret("fill", {"value": "pw", "secret": True}, None) == "pw"
    assert typed_secret("fill", {"value": "pw"}, {"secret": False}) is None
    assert typed_secret("click", {"value": "pw"}, {"secret": True}) is None
    assert marked({"a": ["pw", "my pw here"], "n": 1}, ["pw"]) == {
        "a": [{"$secret": True}, "my *** here"],
        "n": 1,
    }


def test_a_recording_becomes_a_clean_template() -> None:
    calls = [
        call("navigate", {"url": "https://shop.test/login"}),
        call("fill", {"selector": "#user", "value": "ada"}),
        call("fill", {"selector": "input[type=password]", "value": {"$secret": True}}),
        call("create_tab", {"url": "https://shop.test/cart"}, opened_tab="tab_2"),
        call("get_page_info", {}, tab="tab_2"),
        call("close_tab", {"tabId": "tab_2"}),
        call("navigate", {"url": "https://shop.test/login"}),
        call("evaluate", {"script": "document.title"}, step_id="title"),
    ]
    template, inputs = build_template("shop", calls, "session ses_1", REGISTRY)
    assert list(inputs.properties) == ["url", "user", "password", "url_2"]
    assert inputs.required == ["password"]
    assert template["trust"] == ["local"]  # evaluate is host access
    steps = template["steps"]
    assert [s["id"] for s in steps] == [
        "navigate_1", "fill_1", "fill_2", "create_tab_1", "get_page_info_1", "close_tab_1",
        "navigate_2", "title",
    ]  # fmt: skip
    assert steps[4]["tab"] == "${{ steps.create_tab_1.tabId }}"
    assert steps[5]["with"]["tabId"] == "${{ steps.create_tab_1.tabId }}"
    assert steps[6]["with"]["url"] == "${{ inputs.url }}"  # one input per distinct URL
    assert check_source(template_text(template), "shop.yaml", REGISTRY).diagnostics == []


@pytest.mark.parametrize(
    ("calls", "words"),
    [
        ([call("click", {"selector": "a"}, tab="tab_9")], "did not open"),
        ([call("set", {"token": {"$secret": True}})], "cannot ask for it"),
        ([call("set", {"deep": [{"token": {"$secret": True}}]})], "cannot ask for it"),
    ],
)
def test_recordings_that_cannot_be_a_template_are_refused(
    calls: list[dict[str, Any]], words: str
) -> None:
    with pytest.raises(TaskplateError) as caught:
        build_template("x", calls, "session ses_1", REGISTRY)
    assert words in caught.value.message


@pytest.mark.anyio
async def test_a_run_with_a_loop_is_refused(tmp_path: Path) -> None:
    async with RunStore(tmp_path / "runs.db") as store:
        await store.insert_run("run_1", "run_steps", "0.0.0", {}, {}, "me")
        await store.update_run("run_1", status="succeeded")
        await store.keep_call(
            "run_1", 0, step_id="a", item_index=3, action="set", tab=None, args={}
        )
        with pytest.raises(TaskplateError) as caught:
            await kept_calls(store, "run_1")
        assert "forEach" in caught.value.message
        await store.keep_call("ses_1", None, action="set", tab=None, args={"a": 1})
        await store.keep_call("ses_1", None, action="set", tab=None, args={"a": 2})
        assert [c["args"]["a"] for c in (await kept_calls(store, "ses_1"))[0]] == [1, 2]
