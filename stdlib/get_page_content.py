"""The `get_page_content` action: the page as Markdown, HTML, text or a list of links.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, Level

from ._schemas import BOOLEAN, INTEGER, STRING, args, result

ACTION = ActionSpec(
    name="get_page_content",
    level=Level.L0,
    summary="The page's content as markdown, html, text or links, optionally only the main content.",
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
        {"format": STRING, "content": STRING, "bytes": INTEGER, "truncated": BOOLEAN}
    ),
    pure=True,
)
