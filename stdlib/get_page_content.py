"""The `get_page_content` action: the page as Markdown, HTML, text or a list of links.

Declaration and implementation; page access goes through the browser runtime.
"""

from typing import Any

from taskplate.browser import element_html, page_html_and_title
from taskplate.dsl import ActionSpec, Level
from taskplate.stdlib._context import ActionContext
from taskplate.stdlib._conversion import convert
from taskplate.stdlib._elements import find

from ._schemas import BOOLEAN, INTEGER, STRING, args, result


def truncate(text: str, max_bytes: int | None) -> tuple[str, int, bool]:
    """The text cut to at most max_bytes of UTF-8 on a character boundary, its size, and whether cut."""
    data = text.encode()
    if max_bytes is None or len(data) <= max_bytes:
        return text, len(data), False
    cut = data[:max_bytes].decode("utf-8", errors="ignore")
    return cut, len(cut.encode()), True


def render(html: str, url: str, fmt: str, only_main: bool) -> tuple[str, bool]:
    # Imported here: trafilatura is heavy, and checking templates needs only the declaration.
    from taskplate.stdlib._markdown import to_html, to_links, to_markdown, to_text

    if fmt == "markdown":
        return to_markdown(html, url, only_main)
    if fmt == "text":
        return to_text(html, url, only_main)
    if fmt == "links":
        links, is_main = to_links(html, url, only_main)
        return "".join(f"[{link['text']}]({link['url']})\n" for link in links), is_main
    return to_html(html, url, only_main)


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    fmt = args.get("format", "markdown")
    only_main = args.get("onlyMainContent", True) and "selector" not in args
    if "selector" in args:
        html, title = await element_html(await find(page, args)), await page.title()
    else:
        html, title = await page_html_and_title(page)  # one round trip for both
    if fmt == "html" and not only_main:
        content, is_main = html, True
    else:
        # Extraction is CPU work of tens of milliseconds: in the runtime's warm worker process,
        # which spares the event loop the GIL (bench/content.py measures its lag); in a thread
        # while the worker starts, so its start (a second or more) holds no batch back.
        content, is_main = await convert(render, html, page.url, fmt, only_main)
    content, size, truncated = truncate(content, args.get("maxBytes"))
    warnings = []
    if only_main and not is_main:
        warnings.append("no main content was found; this is the whole page")
    if truncated:
        warnings.append(f"the content was cut at {args['maxBytes']} bytes")
    result: dict[str, Any] = {
        "format": fmt,
        "title": title,
        "content": content,
        "bytes": size,
        "truncated": truncated,
    }
    if warnings:
        result["warnings"] = warnings
    return result


ACTION = ActionSpec(
    name="get_page_content",
    level=Level.L0,
    summary=(
        "The page's content as markdown, html, text or links, optionally only the main content,"
        " and its title."
    ),
    args_schema=args(
        {
            "format": {"enum": ["markdown", "html", "text", "links"], "default": "markdown"},
            "onlyMainContent": {"type": "boolean", "default": True},
            "selector": {
                "type": "string",
                "minLength": 1,
                "description": "Only this element's content.",
            },
            "maxBytes": {"type": "integer", "minimum": 1, "maximum": 50_000_000},
        }
    ),
    result_schema=result(
        {
            "format": STRING,
            "title": STRING,
            "content": STRING,
            "bytes": INTEGER,
            "truncated": BOOLEAN,
        }
    ),
    pure=True,
    run=run,
)
