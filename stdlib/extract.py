"""The `extract` action: named values read from the page by selectors.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, Level

from ._schemas import args, result

_FIELD_MAP = {
    "type": "object",
    "additionalProperties": False,
    "required": ["selector"],
    "properties": {
        "selector": {"type": "string", "minLength": 1},
        "attr": {
            "type": "string",
            "minLength": 1,
            "description": "An attribute instead of the text.",
        },
        "all": {"type": "boolean", "default": False, "description": "Every match as a list."},
    },
}
# A bare string is shorthand for {selector: the string}.
FIELD = {
    "anyOf": [{"type": "string", "minLength": 1}, _FIELD_MAP],
    "x-hint": "a selector or {selector, attr, all}",
}

ACTION = ActionSpec(
    name="extract",
    level=Level.L0,
    summary="Read named fields (text or an attribute, one or all matches) under an optional root.",
    args_schema=args(
        {
            "root": {
                "type": "string",
                "minLength": 1,
                "description": "Only look inside this element.",
            },
            "fields": {"type": "object", "minProperties": 1, "additionalProperties": FIELD},
        },
        ["fields"],
    ),
    result_schema=result(
        {"values": {"type": "object"}, "missing": {"type": "array", "items": {"type": "string"}}}
    ),
    pure=True,
)
