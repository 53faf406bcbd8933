"""The `upload_file` action: set local files on a file input (host access: local callers only).

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._elements import describe, find
from .._schemas import INTEGER, args, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    files = [Path(f).expanduser() for f in args["files"]]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"no such file: {', '.join(missing)}",
            "Give paths of existing files on this machine.",
        )
    page = await ctx.page()
    target = await find(page, args)
    try:
        await target.set_input_files(files)
    except Exception as exc:
        raise translate(
            exc, doing=f"uploading to {describe(args)}", timeout_code=ErrorCode.ELEMENT_NOT_FOUND
        ) from None
    return {"files": len(files)}


ACTION = ActionSpec(
    name="upload_file",
    level=Level.L2,
    requires_confirm=True,  # host access: a remote caller's user must say yes
    summary="Set files from this machine on an <input type=file>.",
    args_schema=args(
        {"files": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}},
        ["files"],
        target=True,
    ),
    result_schema=result({"files": INTEGER}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
