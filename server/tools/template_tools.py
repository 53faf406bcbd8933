"""Served templates as tools of their own (`[serve] templateTools`, `dsl serve
--template-tools`): each enabled template, at its newest version, is the tool named by its id,
its inputs schema the tool's inputSchema and its description the tool's. A call runs it through
`run_task_template`'s handler (one execution path): the arguments are the run's inputs, and
the answer is the run's, as run_task_template gives it.

A template whose id is a built-in tool's name is not offered as a tool (run_task_template
still runs it). The set follows the library: `offer` is called again when it reloads.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context

from taskplate.dsl import Template

from .._state import ServerState
from . import TOOLS, run_task_template
from ._spec import Answer, ToolSpec

log = logging.getLogger("taskplate.serve")
BUILT_IN = frozenset(spec.name for spec in TOOLS)
# The most characters of a template's description its tool repeats (tools/list is read on
# every turn of an agent; list_task_templates gives the whole text).
DESCRIPTION_CHARS = 300


def spec_of(template: Template) -> ToolSpec:
    """The tool of one template: its inputs are the arguments, run_task_template runs it."""
    template_id, version = template.id, template.version

    async def run(state: ServerState, args: dict[str, Any], ctx: Context) -> Answer:
        call = {"templateId": template_id, "templateVersion": version, "inputs": args}
        return await run_task_template.run_task_template(state, call, ctx)

    described = " ".join((template.description or template.name).split())
    if len(described) > DESCRIPTION_CHARS:
        described = described[: DESCRIPTION_CHARS - 1].rstrip() + "…"
    inputs = {"type": "object", **template.inputs_schema}
    return ToolSpec(template_id, described, inputs, run_task_template.OUTPUT, run)


def template_specs(templates: list[Template]) -> list[ToolSpec]:
    """The tools of the served templates: one per id, its newest version (the library lists
    versions oldest first), built-in names left out."""
    newest = {t.id: t for t in templates}
    for name in sorted(newest.keys() & BUILT_IN):
        log.warning("template %s is not offered as a tool: a built-in tool has its name", name)
    return [spec_of(t) for name, t in sorted(newest.items()) if name not in BUILT_IN]
