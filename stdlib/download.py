"""The `download` action: click a link or fetch a URL and keep the file as an artifact.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import INTEGER, STRING, TARGET_PROPS, TIMEOUT_MS, args, result

ACTION = ActionSpec(
    name="download",
    level=Level.L2,
    summary="Download a file (by clicking a target or from a URL) into an artifact.",
    args_schema=args(
        {**TARGET_PROPS, "url": {"type": "string", "minLength": 1}, "timeoutMs": TIMEOUT_MS}
    ),
    result_schema=result({"artifactId": STRING, "name": STRING, "size": INTEGER}),
    retryable=frozenset({ErrorCode.NAVIGATION_TIMEOUT}),
)
