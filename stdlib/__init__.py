"""The built-in actions: each module declares one action; this registry lists them all.

Adding an action is adding one module and one line below. Knows no templates.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import nullcontext
from contextvars import ContextVar
from functools import partial
from importlib import import_module
from typing import TYPE_CHECKING, Any

from taskplate.contract import (
    MAX_VALUE_DEPTH,
    ErrorCode,
    TaskplateError,
    lazy_names,
    valid_unicode,
    value_depth,
)
from taskplate.dsl import ActionSpec, listed, validator_for, violations

from ._json_text import json_text, small, walked

if TYPE_CHECKING:
    from taskplate.browser import Tab

    from ._chat_completions import ChatCompletions
    from ._context import ActionContext
    from ._sampling import CallerModel, Message, NoSampler, Sampled, Sampler, SamplingRequest
    from .content import conversion_workers, warm_workers
    from .web import CookieSource, HttpRecording, HttpReplay, WebClient, WebConfig

# Public names: the TYPE_CHECKING imports above, loaded on first use: the web client, httpx with
# it, only when a run reads over HTTP; none of them when dsl validate checks a template.
__getattr__ = lazy_names(__name__, globals())

# One line per action: its module, in the subpackage of its kind, named for it (a keyword such
# as `assert` included).
_MODULES = (
    "navigation.navigate",
    "navigation.wait_for_stable",
    "navigation.wait_for",
    "navigation.wait",
    "reading.get_page_info",
    "reading.get_page_content",
    "reading.fetch",
    "reading.read_page",
    "reading.sitemap",
    "reading.robots",
    "reading.screenshot",
    "reading.extract",
    "reading.llm_extract",
    "reading.snapshot",
    "interaction.click",
    "interaction.fill",
    "interaction.type",
    "interaction.press",
    "interaction.select_option",
    "interaction.check",
    "interaction.hover",
    "interaction.scroll",
    "navigation.create_tab",
    "navigation.close_tab",
    "navigation.save_profile",
    "interaction.evaluate",
    "interaction.upload_file",
    "interaction.download",
    "data.set",
    "data.assert",
    "data.fail",
    "data.compare",
    "data.export",
    "navigation.hand_over",
)


# Actions that act for the user: a window the page opens while they run is a wanted tab; any
# other window a page opens by itself is closed (see Session._adopt_popup).
USER_INPUT = frozenset(
    {"click", "press", "type", "fill", "select_option", "check", "hover", "evaluate", "download"}
)

# Actions that only wait for a page: like reading ones (`pure`), their page calls are the
# runtime's own, not trace actions (browser/_untraced.py).
WAITS = frozenset({"wait_for_stable"})

# Actions that may take their tab's page to another document while they run: a read that
# meets a navigation meanwhile was disturbed by another step (TAB_IN_USE), not by the page.
MOVES_PAGE = USER_INPUT | {"navigate", "scroll", "upload_file", "hand_over"}


class Registry(Mapping[str, ActionSpec]):
    """Every built-in action by name; also the checker's ActionCatalog. It knows the names and
    imports an action's module when that action is first looked up (a `dsl validate` loads only
    the actions its template names); iterating it loads them all."""

    def __init__(self, modules: tuple[str, ...]) -> None:
        self._modules = {module.rpartition(".")[2]: module for module in modules}
        self._specs: dict[str, ActionSpec] = {}

    def __getitem__(self, name: str) -> ActionSpec:
        spec = self._specs.get(name)
        if spec is None:
            if name not in self._modules:
                raise KeyError(name)
            module = self._modules[name]
            spec = self._specs[name] = import_module(f"{__name__}.{module}").ACTION
            assert spec.name == name, f"stdlib/{module.replace('.', '/')}.py declares {spec.name!r}"
        return spec

    def __contains__(self, name: object) -> bool:
        return name in self._modules

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def names(self) -> list[str]:
        return list(self._modules)


REGISTRY = Registry(_MODULES)


# Set while an action runs: an action it runs in turn (read_page's navigate and
# get_page_content) answers into its result, which is made valid Unicode as a whole when it
# returns, so a page's content is scanned once, not once per level.
_ANSWERING_INTO: ContextVar[str | None] = ContextVar("answering_into", default=None)


def argument_errors(spec: ActionSpec, args: Any) -> list[dict[str, str]]:
    """Each way the arguments break the action's schema, with a JSON pointer."""
    return violations(validator_for(spec.args_schema, formats=True), args)


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
    outermost = _ANSWERING_INTO.get() is None
    token = _ANSWERING_INTO.set(name) if outermost else None
    try:
        result = await _run_checked(spec, name, ctx, args)
    finally:
        if token is not None:
            _ANSWERING_INTO.reset(token)
    if not outermost:
        return result
    # what a page, a provider or a model answered, made valid Unicode and bounded once, here
    if await walked(value_depth, result) > MAX_VALUE_DEPTH:
        raise TaskplateError(
            ErrorCode.EXECUTION_ERROR,
            f"{name}'s result nests deeper than {MAX_VALUE_DEPTH} levels, more than a run may hold",
            "Have it answer flatter data (pick the fields you need).",
            {"maxDepth": MAX_VALUE_DEPTH},
        )
    valid: dict[str, Any] = await _valid_unicode(result)
    return valid


async def _valid_unicode(result: Any) -> Any:
    """The result made valid Unicode; a large one (a 100,000-row extract) checked in pieces that
    each hold the event loop briefly, its one JSON dump was the longest hold of the read."""
    if small(result):
        return valid_unicode(result)
    try:
        (await json_text(result)).encode()
    except (TypeError, ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
        return valid_unicode(result)
    return result


async def _run_checked(
    spec: ActionSpec, name: str, ctx: ActionContext, args: dict[str, Any]
) -> dict[str, Any]:
    """The action run on checked arguments, read again when its page moved on by itself."""
    import anyio

    from taskplate.browser import translate

    run = spec.run
    assert run is not None  # run_action answered an action without one
    for attempt in range(1, READ_ATTEMPTS + 1):
        tab = _open_tab(ctx) if spec.needs_browser and spec.uses_tab else None
        begun = tab.moves_begun if tab is not None else 0
        try:
            if name in MOVES_PAGE and ctx.session is not None:
                tab = await ctx.tab()
                with tab.moved_by(name), tab.user_input() if name in USER_INPUT else nullcontext():
                    result: dict[str, Any] = await run(ctx, args)
            elif ctx.session is not None and (spec.pure or name in WAITS):
                from taskplate.browser import untraced

                result = await untraced(partial(run, ctx, args))
            else:
                result = await run(ctx, args)
            return result
        except TaskplateError as exc:
            raise await _lost_browser(ctx, exc) from None
        except Exception as exc:
            navigated = spec.pure and _navigated_away(exc)
            if navigated and tab is not None and (tab.moving or tab.moves_begun != begun):
                raise _disturbed(name, tab) from None
            if navigated and attempt < READ_ATTEMPTS:
                # The page moved on by itself while it was being read (its script or a failed
                # load took it to another document): reading has no effect, so read the page
                # it is now on.
                await anyio.sleep(0.05 * attempt)
                continue
            error = translate(exc, doing=name, timeout_code=ErrorCode.EXECUTION_ERROR)
            raise await _lost_browser(ctx, error) from None
    raise AssertionError("unreachable")


READ_ATTEMPTS = 4


def _open_tab(ctx: ActionContext) -> Tab | None:
    """The tab the action runs in if it is open already (a look-up, nothing awaited)."""
    if ctx.session is None:
        return None
    return ctx.session.tabs.get(ctx.tab_id or ctx.session.main_tab or "")


def _disturbed(name: str, tab: Tab) -> TaskplateError:
    """A read whose page another step of the run (or another tool call in the session)
    navigated: the read is not repeated on a page it was never meant to read."""
    by = ", ".join(tab.moving) or "another action"
    return TaskplateError(
        ErrorCode.TAB_IN_USE,
        f"{name} was reading tab {tab.id} when another step or call in the same tab ({by}) "
        "took its page to another document",
        "Give steps that run at the same time tabs of their own (tab: new on the forEach), "
        "or order them with needs.",
        {"tabId": tab.id},
    )


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
    "CallerModel",
    "ChatCompletions",
    "CookieSource",
    "HttpRecording",
    "HttpReplay",
    "Message",
    "NoSampler",
    "Registry",
    "Sampled",
    "Sampler",
    "SamplingRequest",
    "WebClient",
    "WebConfig",
    "argument_errors",
    "conversion_workers",
    "json_text",
    "run_action",
    "walked",
    "warm_workers",
]
