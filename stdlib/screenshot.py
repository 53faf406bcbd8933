"""The `screenshot` action: a PNG of the page or of one element, stored as an artifact.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import INTEGER, STRING, args, result

ACTION = ActionSpec(
    name="screenshot",
    level=Level.L0,
    summary="A PNG screenshot of the viewport, the full page or one element, stored as an artifact.",
    args_schema=args(
        {
            "fullPage": {"type": "boolean", "default": False},
            "selector": {"type": "string", "minLength": 1},
            "name": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,100}$"},
        }
    ),
    result_schema=result({"artifactId": STRING, "width": INTEGER, "height": INTEGER}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
)
