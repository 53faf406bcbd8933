"""The `upload_file` action: set local files on a file input (host access: local callers only).

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import INTEGER, args, result

ACTION = ActionSpec(
    name="upload_file",
    level=Level.L2,
    summary="Set files from this machine on an <input type=file>.",
    args_schema=args(
        {"files": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}},
        ["files"],
        target=True,
    ),
    result_schema=result({"files": INTEGER}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
)
