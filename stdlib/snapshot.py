"""The `snapshot` action: the page's interactive elements, indexed with refs agents can click.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, Level

from ._schemas import BOOLEAN, INTEGER, STRING, args, result

ACTION = ActionSpec(
    name="snapshot",
    level=Level.L0,
    summary="Interactive elements with stable refs for click/fill, paged by maxBytes.",
    args_schema=args(
        {
            "selector": {
                "type": "string",
                "minLength": 1,
                "description": "Only inside this element.",
            },
            "maxBytes": {
                "type": "integer",
                "minimum": 1_000,
                "maximum": 1_000_000,
                "default": 50_000,
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "default": 0,
                "description": "First element index.",
            },
        }
    ),
    result_schema=result(
        {
            "url": STRING,
            "title": STRING,
            "elements": {"type": "array", "items": {"type": "object"}},
            "total": INTEGER,
            "truncated": BOOLEAN,
            "nextOffset": {"type": ["integer", "null"]},
        }
    ),
    pure=True,
)
