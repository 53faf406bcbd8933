"""The built-in actions: each module declares one action; this registry lists them all.

Adding an action is adding one module and one line below. Knows no templates.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import partial
from importlib import import_module
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.browser import translate
from taskplate.dsl import (
    ActionSpec,
    ErrorCode,
    TaskplateError,
    format_checker,
    listed,
    valid_unicode,
    violations,
)

from ._context import ActionContext
from ._sampling import Message, NoSampler, Sampler, SamplingRequest

if TYPE_CHECKING:  # jsonschema is imported when arguments are first checked, not by dsl validate
    import jsonschema

# One line per action; the module of the same name (a keyword such as `assert` included).
_MODULES = (
    "navigate",
    "wait_for_stable",
    "wait_for",
    "wait",
    "get_page_info",
    "get_page_content",
    "fetch",
    "sitemap",
    "robots",
    "screenshot",
    "extract",
    "llm_extract",
    "snapshot",
    "click",
    "fill",
    "type",
    "press",
    "select_option",
    "check",
    "hover",
    "scroll",
    "create_tab",
    "close_tab",
    "save_profile",
    "evaluate",
    "upload_file",
    "download",
    "set",
    "assert",
    "fail",
    "compare",
    "export",
    "hand_over",
)


# Actions that act for the user: a window the page opens while they run is a wanted tab; any
# other window a page opens by itself is closed (see Session._adopt_popup).
USER_INPUT = frozenset(
    {"click", "press", "type", "fill", "select_option", "check", "hover", "evaluate", "download"}
)

# Actions that only wait for a page: like reading ones (`pure`), their page calls are the
# runtime's own, not trace actions (browser/_untraced.py).
WAITS = frozenset({"wait_for_stable"})


class Registry(Mapping[str, ActionSpec]):
    """Every built-in action by name; also the checker's ActionCatalog."""

    def __init__(self, specs: list[ActionSpec]) -> None:
        self._specs = {spec.name: spec for spec in specs}

    def __getitem__(self, name: str) -> ActionSpec:
        return self._specs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def names(self) -> list[str]:
        return list(self._specs)


REGISTRY = Registry([import_module(f"{__name__}.{m}").ACTION for m in _MODULES])


_VALIDATORS: dict[str, jsonschema.Draft202012Validator] = {}


def argument_errors(spec: ActionSpec, args: Any) -> list[dict[str, str]]:
    """Each way the arguments break the action's schema, with a JSON pointer."""
    validator = _VALIDATORS.get(spec.name)
    if validator is None or validator.schema is not spec.args_schema:
        import jsonschema

        validator = _VALIDATORS[spec.name] = jsonschema.Draft202012Validator(
            spec.args_schema, format_checker=format_checker()
        )
    return violations(validator, args)


async def run_action(
    name: str,
    ctx: ActionContext,
    args: dict[str, Any],
    catalog: Mapping[str, ActionSpec] = REGISTRY,
) -> dict[str, Any]:
    """The one way to run an action: arguments checked, errors in the contract's codes.

    Template steps and tool-level MCP calls both come through here; `catalog` adds the
    providers' tools to the built-in actions."""
    spec = catalog.get(name)
    if spec is None or spec.run is None:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER, f'unknown action "{name}"', "See docs/actions.md."
        )
    problems = argument_errors(spec, args)
    if problems:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"invalid arguments for {name}: {listed(problems)}",
            "Fix the arguments (docs/actions.md lists them).",
            {"violations": problems},
        )
    for attempt in range(1, READ_ATTEMPTS + 1):
        try:
            if name in USER_INPUT and ctx.session is not None:
                with (await ctx.tab()).user_input():
                    result: dict[str, Any] = await spec.run(ctx, args)
            elif ctx.session is not None and (spec.pure or name in WAITS):
                from taskplate.browser import untraced

                result = await untraced(partial(spec.run, ctx, args))
            else:
                result = await spec.run(ctx, args)
            # what a page, a provider or a model answered, made valid Unicode once, here
            return valid_unicode(result)  # type: ignore[no-any-return]
        except TaskplateError as exc:
            raise await _lost_browser(ctx, exc) from None
        except Exception as exc:
            if spec.pure and attempt < READ_ATTEMPTS and _navigated_away(exc):
                # The page moved on while it was being read (a script or a failed load took it
                # to another document): reading has no effect, so read the page it is now on.
                await anyio.sleep(0.05 * attempt)
                continue
            error = translate(exc, doing=name, timeout_code=ErrorCode.EXECUTION_ERROR)
            raise await _lost_browser(ctx, error) from None
    raise AssertionError("unreachable")


READ_ATTEMPTS = 4


async def _lost_browser(ctx: ActionContext, error: TaskplateError) -> TaskplateError:
    """A crash in a remote browser that went away is BROWSER_DISCONNECTED, not PAGE_CRASHED."""
    if error.code is ErrorCode.PAGE_CRASHED and ctx.session is not None:
        return await ctx.session.lost(ctx.tab_id, error)
    return error


_NAVIGATED = ("Execution context was destroyed", "Cannot find context with specified id")


def _navigated_away(exc: Exception) -> bool:
    return any(text in str(exc) for text in _NAVIGATED)


__all__ = [
    "REGISTRY",
    "ActionContext",
    "Message",
    "NoSampler",
    "Registry",
    "Sampler",
    "SamplingRequest",
    "argument_errors",
    "run_action",
]
