"""Finding the element an action targets: CSS selector, XPath, visible text or a snapshot ref.

One helper for every element action, so they all report a missing element the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from taskplate.browser import is_crash, translate
from taskplate.contract import ErrorCode, TaskplateError

if TYPE_CHECKING:
    from playwright.async_api import Locator, Page

DEFAULT_TIMEOUT_MS = 5_000
REF_ATTRIBUTE = "data-taskplate-ref"


def describe(args: dict[str, Any]) -> str:
    for key in ("selector", "xpath", "text", "ref"):
        if key in args:
            return f'{key} "{args[key]}"'
    return "the element"


def locator(page: Page, args: dict[str, Any]) -> Locator:
    if "selector" in args:
        found = page.locator(args["selector"])
    elif "xpath" in args:
        found = page.locator(f"xpath={args['xpath']}")
    elif "text" in args:
        found = page.get_by_text(args["text"])
    elif "ref" in args:
        found = page.locator(f'[{REF_ATTRIBUTE}="{args["ref"]}"]')
    else:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            "no element target given",
            "Give selector, xpath, text or ref.",
        )
    return found.first


async def find(page: Page, args: dict[str, Any], state: str = "attached") -> Locator:
    """The first matching element, waited for up to timeoutMs; ELEMENT_NOT_FOUND otherwise."""
    target = locator(page, args)
    timeout = args.get("timeoutMs", DEFAULT_TIMEOUT_MS)
    try:
        await target.wait_for(state=state, timeout=timeout)  # type: ignore[arg-type]
    except Exception as exc:
        error = translate(
            exc, doing=f"finding {describe(args)}", timeout_code=ErrorCode.ELEMENT_NOT_FOUND
        )
        if error.code is ErrorCode.ELEMENT_NOT_FOUND and "ref" in args:
            error.recover_hint = (
                "Refs come from the latest snapshot of this tab; take a new snapshot."
            )
        raise error from None
    return target


async def input_or_dom(
    args: dict[str, Any],
    doing: str,
    by_input: Callable[[], Awaitable[Any]],
    by_dom: Callable[[], Awaitable[Any]],
    fallback_note: str,
) -> dict[str, Any]:
    """SPEC §6's strategies: real input events by default; the DOM when asked, or when input
    events fail on a present element (then with a warning saying why)."""
    reason = ""
    if args.get("strategy", "input") == "input":
        try:
            await by_input()
            return {"strategy": "input"}
        except Exception as exc:
            if is_crash(exc):
                raise translate(
                    exc, doing=doing, timeout_code=ErrorCode.ELEMENT_NOT_FOUND
                ) from None
            reason = str(exc).splitlines()[0]
    try:
        await by_dom()
    except Exception as exc:
        raise translate(exc, doing=doing, timeout_code=ErrorCode.ELEMENT_NOT_FOUND) from None
    result: dict[str, Any] = {"strategy": "dom"}
    if reason:
        result["warnings"] = [f"input events failed ({reason}); {fallback_note}"]
    return result
