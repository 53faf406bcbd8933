"""The `navigate` action: open a URL in the current tab and report where it landed.

Declaration only until the browser runtime lands; no page logic here.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import STRING, TIMEOUT_MS, args, result

ACTION = ActionSpec(
    name="navigate",
    level=Level.L0,
    summary="Open a URL in the current tab; answers the final URL, HTTP status and title.",
    args_schema=args(
        {
            "url": {"type": "string", "minLength": 1, "description": "Absolute http(s) URL."},
            "waitUntil": {
                "enum": ["load", "domcontentloaded", "networkidle", "commit"],
                "default": "load",
            },
            "timeoutMs": TIMEOUT_MS,
        },
        ["url"],
    ),
    result_schema=result({"url": STRING, "status": {"type": ["integer", "null"]}, "title": STRING}),
    retryable=frozenset({ErrorCode.NAVIGATION_TIMEOUT, ErrorCode.PAGE_CRASHED}),
)
