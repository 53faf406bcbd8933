"""Arguments that can never work are INVALID_PARAMETER, not EXECUTION_ERROR (#28): URLs that
are not absolute URLs, before any request; selectors Chromium cannot parse. Real Chromium."""

from __future__ import annotations

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib._context import ActionContext
from tests.conftest import act
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

NOT_URLS = [
    "http://",
    "http://127.0.0.1:99999/",
    "http://[::1/",
    "../../etc/passwd",
    "https://example.com/a b",
    "https://example.com/\nx",
]


@pytest.mark.parametrize("url", NOT_URLS)
async def test_a_text_that_is_no_absolute_url_is_refused_before_any_request(
    ctx: ActionContext, site: FixtureServer, url: str
) -> None:
    await act("navigate", ctx, url=site.url("/form.html"))
    tabs = len(ctx.session.tabs) if ctx.session else 0
    for action in ("navigate", "create_tab", "fetch"):
        with pytest.raises(TaskplateError) as refused:
            await act(action, ctx, url=url)
        assert refused.value.code is ErrorCode.INVALID_PARAMETER, (action, refused.value)
        assert "uri" in refused.value.message and refused.value.recover_hint
    assert (len(ctx.session.tabs) if ctx.session else 0) == tabs  # no tab opened
    assert (await act("get_page_info", ctx))["url"] == site.url("/form.html")  # still there


@pytest.mark.parametrize(
    ("where", "selector"),
    [("selector", ":::"), ("selector", ")"), ("xpath", "//["), ("selector", "xpath=//[")],
)
async def test_a_selector_chromium_cannot_parse_is_invalid_parameter(
    ctx: ActionContext, site: FixtureServer, where: str, selector: str
) -> None:
    await act("navigate", ctx, url=site.url("/form.html"))
    for action, extra in (
        ("click", {"timeoutMs": 2000}),
        ("fill", {"value": "x", "timeoutMs": 2000}),
        ("wait_for", {"timeoutMs": 2000}),
        ("extract", None),
    ):
        args = {"fields": {"f": {where: selector}}} if extra is None else {where: selector, **extra}
        if action in ("wait_for", "extract") and where == "xpath":  # these take xpath=…
            prefixed = {"selector": f"xpath={selector}"}
            args = {"fields": {"f": prefixed}} if extra is None else {**prefixed, **extra}
        with pytest.raises(TaskplateError) as refused:
            await act(action, ctx, **args)
        assert refused.value.code is ErrorCode.INVALID_PARAMETER, (action, refused.value)
        assert "selector is not valid" in refused.value.message, refused.value.message
