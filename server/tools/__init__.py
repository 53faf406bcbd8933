"""Every MCP tool taskplate serves, one module each (its input and output schemas beside its
handler), in the order tools/list publishes them: the contract tools of SPEC §8 (and
resume_task_run), then the browser tools.

A handler takes the server's state explicitly (`ServerState`); `ToolSpec.tool` binds it.
"""

from __future__ import annotations

from mcp.server.mcpserver.tools.base import Tool

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


def tools(state: ServerState) -> list[Tool]:
    """Every tool, bound to one server's state."""
    return [spec.tool(state) for spec in TOOLS]


__all__ = ["BROWSER", "CONTRACT", "TOOLS", "ToolSpec", "tools"]
