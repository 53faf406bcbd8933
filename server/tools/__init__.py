"""Every MCP tool taskplate serves, one module each (its input and output schemas beside its
handler), in the order tools/list publishes them: the contract tools of SPEC §8 (and
resume_task_run), then the browser tools.

A handler takes the server's state explicitly (`ServerState`); `ToolSpec.tool` binds it.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcp.server.mcpserver.tools.base import Tool

from taskplate.contract import ErrorCode, TaskplateError

from .._state import ServerState
from . import (
    cancel_task_run,
    close_session,
    create_session,
    get_artifact,
    get_runtime_profile,
    get_task_run,
    list_sessions,
    list_tabs,
    list_task_runs,
    list_task_templates,
    page_actions,
    resume_task_run,
    run_steps,
    run_task_template,
    save_template,
    scrape,
)
from ._spec import ToolSpec

CONTRACT = [
    get_runtime_profile.SPEC,
    list_task_templates.SPEC,
    run_task_template.SPEC,
    get_task_run.SPEC,
    list_task_runs.SPEC,
    cancel_task_run.SPEC,
    resume_task_run.SPEC,
    get_artifact.SPEC,
]
BROWSER = [
    create_session.SPEC,
    close_session.SPEC,
    list_sessions.SPEC,
    list_tabs.SPEC,
    *page_actions.SPECS,
    scrape.SPEC,
    run_steps.SPEC,
    save_template.SPEC,
]
TOOLS: list[ToolSpec] = [*CONTRACT, *BROWSER]

# The groups an operator serves (`dsl serve --tools`, `[serve] tools` in taskplate.toml), as
# @playwright/mcp's capabilities: each tool is in one. docs/mcp.md lists them with their sizes.
GROUPS: dict[str, tuple[str, ...]] = {
    "templates": ("get_runtime_profile", "list_task_templates", "run_task_template"),
    "runs": (
        "get_task_run",
        "list_task_runs",
        "cancel_task_run",
        "resume_task_run",
        "get_artifact",
    ),
    "pages": (
        "create_session",
        "close_session",
        "navigate",
        "get_page_content",
        "snapshot",
        "click",
        "fill",
        "press",
        "scrape",
    ),
    "tabs": (
        "list_sessions",
        "list_tabs",
        "create_tab",
        "close_tab",
        "wait_for_stable",
        "get_page_info",
        "select_option",
        "screenshot",
        "evaluate",
    ),
    "authoring": ("run_steps", "save_template"),
}
# What an agent is served when the operator names no groups: templates and their runs, the
# page tools to read and act on a page, run_steps and save_template (docs/SKILL.md's ways);
# together no larger than @playwright/mcp's tools/list (bench/tools_size.py).
DEFAULT_GROUPS = ("templates", "runs", "pages", "authoring")
# With the templates served as tools (`--template-tools`), they are an agent's way to the
# browser: the default is theirs and the runs', the page tools served when named, so that the
# templates' tools have the room of tools/list's budget the page tools would take.
TEMPLATE_TOOLS_GROUPS = ("templates", "runs")
GROUP_OF = {name: group for group, names in GROUPS.items() for name in names}


def groups_named(names: Iterable[str]) -> tuple[str, ...]:
    """The groups `names` asks for (`all`: every one), checked; a name that is not a group is
    an error naming the ones there are."""
    wanted: list[str] = []
    for name in names:
        if name == "all":
            wanted += GROUPS
        elif name in GROUPS:
            wanted.append(name)
        else:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f'"{name}" is not a tool group (want {", ".join(GROUPS)} or all)',
                "Name groups of docs/mcp.md's list in --tools or [serve] tools.",
                {"group": name},
            )
    return tuple(group for group in GROUPS if group in wanted)


def tools(state: ServerState, groups: Iterable[str] = tuple(GROUPS)) -> list[Tool]:
    """The tools of `groups`, bound to one server's state, in tools/list's order."""
    served = {name for group in groups for name in GROUPS[group]}
    return [spec.tool(state) for spec in TOOLS if spec.name in served]


__all__ = [
    "BROWSER",
    "CONTRACT",
    "DEFAULT_GROUPS",
    "GROUPS",
    "GROUP_OF",
    "TEMPLATE_TOOLS_GROUPS",
    "TOOLS",
    "ToolSpec",
    "groups_named",
    "tools",
]
