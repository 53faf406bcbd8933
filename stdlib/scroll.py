"""The `scroll` action: scroll the page (to load lazy content) or bring an element into view.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, Level

from ._schemas import INTEGER, TARGET_PROPS, args, result

ACTION = ActionSpec(
    name="scroll",
    level=Level.L0,
    summary="Scroll to the bottom/top, by a distance, or to an element; repeat for lazy pages.",
    args_schema=args(
        {
            **TARGET_PROPS,
            "to": {"enum": ["top", "bottom"]},
            "by": {"type": "integer", "description": "Pixels down (negative: up)."},
            "times": {"type": "integer", "minimum": 1, "maximum": 50, "default": 1},
        }
    ),
    result_schema=result({"scrollY": INTEGER, "scrollHeight": INTEGER}),
)
