"""The `download` action: click a link or fetch a URL and keep the file as an artifact.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._elements import find
from .._schemas import INTEGER, STRING, TARGET_PROPS, TIMEOUT_MS, args, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    url = args.get("url")
    if url is None:
        if not args.keys() & {"selector", "xpath", "text", "ref"}:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                "download needs a url or an element target",
                "Give url, or a link's selector.",
            )
        href = await (await find(page, args)).get_attribute("href")
        if not href:
            raise TaskplateError(
                ErrorCode.ELEMENT_NOT_FOUND, "the target has no href to download", "Target a link."
            )
        url = urljoin(page.url, href)
    await ctx.check_url(url)
    try:
        context = await ctx.need_session().ensure_open()
        reply = await context.request.get(url, timeout=args.get("timeoutMs", 30_000))
        body = await reply.body()
    except Exception as exc:
        raise translate(
            exc, doing=f"downloading {url}", timeout_code=ErrorCode.NAVIGATION_TIMEOUT
        ) from None
    if not reply.ok:
        raise TaskplateError(
            ErrorCode.EXECUTION_ERROR,
            f"downloading {url} answered HTTP {reply.status}",
            "Check the URL.",
        )
    import mimetypes  # here, not for `dsl validate`

    name = PurePosixPath(urlsplit(url).path).name or "download.bin"
    mime = (
        reply.headers.get("content-type", "").split(";")[0]
        or mimetypes.guess_type(name)[0]
        or "application/octet-stream"
    )
    artifact_id = await ctx.save_artifact(name, body, mime)
    return {"artifactId": artifact_id, "name": name, "size": len(body)}


ACTION = ActionSpec(
    name="download",
    level=Level.L2,
    requires_confirm=True,  # host access: a remote caller's user must say yes
    summary="Download a file (by clicking a target or from a URL) into an artifact.",
    args_schema=args(
        {**TARGET_PROPS, "url": {"type": "string", "minLength": 1}, "timeoutMs": TIMEOUT_MS}
    ),
    result_schema=result({"artifactId": STRING, "name": STRING, "size": INTEGER}),
    retryable=frozenset({ErrorCode.NAVIGATION_TIMEOUT}),
    run=run,
)
