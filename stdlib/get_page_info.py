"""The `get_page_info` action: the current page's URL, title and metadata.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, Level

from ._schemas import NULLABLE_STRING, STRING, args, result

ACTION = ActionSpec(
    name="get_page_info",
    level=Level.L0,
    summary="The current page's URL, title, description, language, canonical URL and status.",
    args_schema=args({}),
    result_schema=result(
        {
            "url": STRING,
            "title": STRING,
            "description": NULLABLE_STRING,
            "lang": NULLABLE_STRING,
            "canonical": NULLABLE_STRING,
            "status": {"type": ["integer", "null"]},
        }
    ),
    pure=True,
)
