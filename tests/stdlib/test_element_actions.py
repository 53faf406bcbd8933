"""Element and tab actions against the fixture site in real headless Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib._context import ActionContext, MemoryArtifacts
from tests.conftest import act
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio


async def out(ctx: ActionContext) -> str:
    return str((await act("extract", ctx, fields={"o": "#out"}))["values"]["o"])


async def test_click_uses_input_events(ctx: ActionContext, site: FixtureServer) -> None:
    await act("navigate", ctx, url=site.url("/form.html"))
    await act("fill", ctx, selector="#name", value="Grace")
    assert await act("click", ctx, text="Send") == {"strategy": "input"}
    assert '"name":"Grace"' in await out(ctx)


async def test_click_falls_back_to_the_dom_with_a_warning(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/form.html"))
    cover = "() => { const o = document.createElement('div'); o.style.cssText = 'position:fixed;inset:0;z-index:1000'; document.body.appendChild(o); }"
    await act("evaluate", ctx, script=cover)
    result = await act("click", ctx, selector="#covered", timeoutMs=500)
    assert result["strategy"] == "dom" and "element.click()" in result["warnings"][0]
    assert await out(ctx) == "covered clicked"
    assert (await act("click", ctx, selector="#covered", strategy="dom")) == {"strategy": "dom"}


async def test_missing_element_is_element_not_found(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/form.html"))
    for action, extra in (
        ("click", {}),
        ("fill", {"value": "x"}),
        ("type", {"value": "x"}),
        ("hover", {}),
        ("check", {}),
        ("select_option", {"value": "r"}),
    ):
        with pytest.raises(TaskplateError) as caught:
            await act(action, ctx, selector="#nope", timeoutMs=200, **extra)
        assert caught.value.code is ErrorCode.ELEMENT_NOT_FOUND, action
        assert '"#nope"' in caught.value.message


async def test_type_press_select_check_hover(ctx: ActionContext, site: FixtureServer) -> None:
    await act("navigate", ctx, url=site.url("/form.html"))
    assert await act("type", ctx, xpath="//textarea", value="two words") == {"strategy": "input"}
    assert await act("type", ctx, selector="#name", value="!", strategy="dom") == {
        "strategy": "dom"
    }
    assert await act("select_option", ctx, selector="#colour", label="Blue") == {"selected": ["b"]}
    assert await act("check", ctx, selector="#agree") == {"checked": True}
    await act("click", ctx, selector="#submit")
    assert await out(ctx) == '{"name":"!","notes":"two words","colour":"b","agree":"yes","file":{}}'
    await act("press", ctx, selector="#keys", key="ArrowDown")
    assert await out(ctx) == "key:ArrowDown"
    with pytest.raises(TaskplateError) as caught:
        await act("press", ctx, key="NotAKey")
    assert caught.value.code is ErrorCode.INVALID_PARAMETER
    await act("hover", ctx, selector="#hover-target")
    assert (await act("extract", ctx, fields={"h": "#hover-target"}))["values"]["h"] == "hovered"


async def test_scroll_loads_lazy_content(ctx: ActionContext, site: FixtureServer) -> None:
    await act("navigate", ctx, url=site.url("/lazy.html"))
    before = await act("extract", ctx, fields={"items": {"selector": ".item", "all": True}})
    assert len(before["values"]["items"]) == 1
    result = await act("scroll", ctx, to="bottom", times=2)
    assert result["scrollY"] > 0
    after = await act("extract", ctx, fields={"items": {"selector": ".item", "all": True}})
    assert len(after["values"]["items"]) >= 11
    top = await act("scroll", ctx, to="top")
    assert top["scrollY"] == 0


async def test_tabs_are_created_used_and_closed(ctx: ActionContext, site: FixtureServer) -> None:
    created = await act("create_tab", ctx, url=site.url("/recipe.html"))
    assert created == {"tabId": created["tabId"], "url": site.url("/recipe.html")}
    in_tab = ActionContext(session=ctx.session, tab_id=created["tabId"])
    assert (await act("get_page_info", in_tab))["title"] == "Weeknight lentil soup"
    assert await act("close_tab", ctx, tabId=created["tabId"]) == {"closed": True}
    with pytest.raises(TaskplateError) as caught:
        await act("get_page_info", in_tab)
    assert (
        caught.value.code is ErrorCode.INVALID_PARAMETER
        and "create_tab" in caught.value.recover_hint
    )


async def test_evaluate_runs_scripts_with_arguments(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/article.html"))
    assert await act("evaluate", ctx, script="document.title") == {
        "value": "Tuning the sliding window"
    }
    assert await act("evaluate", ctx, script="(n) => n * 2", arg=21) == {"value": 42}
    with pytest.raises(TaskplateError) as caught:
        await act("evaluate", ctx, script="() => { throw new Error('boom') }")
    assert caught.value.code is ErrorCode.EXECUTION_ERROR and "boom" in caught.value.message


async def test_upload_file_sets_files(
    ctx: ActionContext, site: FixtureServer, tmp_path: Path
) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("hello")
    await act("navigate", ctx, url=site.url("/form.html"))
    assert await act("upload_file", ctx, selector="#file", files=[str(file)]) == {"files": 1}
    assert await act("evaluate", ctx, script="document.getElementById('file').files[0].name") == {
        "value": "notes.txt"
    }
    with pytest.raises(TaskplateError) as caught:
        await act("upload_file", ctx, selector="#file", files=[str(tmp_path / "missing.txt")])
    assert caught.value.code is ErrorCode.INVALID_PARAMETER


async def test_download_keeps_the_file_as_an_artifact(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/form.html"))
    result = await act("download", ctx, selector="#file-link")
    assert result["name"] == "report.txt" and result["size"] == len(b"quarterly report\nline 2\n")
    assert isinstance(ctx.artifacts, MemoryArtifacts)
    assert ctx.artifacts.items[result["artifactId"]] == (
        "report.txt",
        b"quarterly report\nline 2\n",
        "text/plain",
    )


async def test_clicking_a_download_link_downloads_nothing(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/form.html"))
    await act("click", ctx, selector="#file-link")
    assert (await act("get_page_info", ctx))["url"] == site.url("/form.html")


async def test_save_profile_without_a_store_says_so(ctx: ActionContext) -> None:
    with pytest.raises(TaskplateError) as caught:
        await act("save_profile", ctx)
    assert caught.value.code is ErrorCode.EXECUTION_ERROR
