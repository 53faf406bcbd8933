"""Served templates as tools of their own (`[serve] templateTools`, `dsl serve
--template-tools`): each enabled template, at its newest version, is the tool named by its id,
its inputs schema the tool's inputSchema (with `profileId`, the login profile the run starts
from, where the inputs do not name one), its outputs schema the type of the answer's `result`
(without one, the type `dsl validate` infers for its `output`), its description the tool's. A
call runs it through `run_task_template`'s handler (one execution path, its profile handling
too): the arguments are the run's inputs, and the answer is the run's, as run_task_template
gives it.

tools/list is read on every turn of an agent, so the templates' tools share a budget with the
built-in tools served (`[serve] toolTokens`): they are listed concisely (a description's first
sentence; the whole texts are in list_task_templates and the template:// resources) and
offered while the list fits, the operator's own templates first, then the shipped ones, each
in the order of their ids; a template left out is named, with why, in list_task_templates and
in the refusal to call it, and is still run by run_task_template. A template whose id is a
built-in tool's name is not offered as a tool either. The set follows the library: `offer` is
called again when it reloads.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context

from taskplate.dsl import Template

from .._schemas import ERROR_OUTLINE, PROFILE_ID, RUN, STATUS, listed_inputs, obj, outline
from .._state import ServerState
from . import TOOLS, run_task_template
from ._spec import Answer, Schema, ToolSpec

log = logging.getLogger("taskplate.serve")
BUILT_IN = frozenset(spec.name for spec in TOOLS)
# The budget of tools/list when templates are tools, in tokens counted as CHARS_PER_TOKEN
# characters each: about @playwright/mcp's list (20,296 characters, 4,415 o200k tokens; our
# schemas' JSON runs 4.2 characters a token, so this is some 4,200 of them).
DEFAULT_TOOL_TOKENS = 4_400
# The most characters of a description a template's tool lists: the tool's its whole first
# sentence, at most DESCRIPTION_CHARS; an argument's its first clause, at most SHORT_CHARS (the
# arguments are many, and their whole texts are in list_task_templates).
DESCRIPTION_CHARS = 200
SHORT_CHARS = 80
# Where a description's first sentence ends: a stop (., ! or ?) before a space and a capital
# letter, a digit or an opening mark, outside parentheses (`first_sentence` tracks them), so
# "e.g. this", "1.5 s" and "(see a. b.)" do not end it.
_STOP = re.compile(r"[.!?](?=\s+[A-Z0-9\"'(\[`])")
# Where an argument's first clause ends: a stop or a semicolon, or a parenthesis begins.
_CLAUSE = re.compile(r"(?<=[.;])\s|\s\(")
# The argument a template's tool takes for run_task_template's `profileId`.
PROFILE = "profileId"
PROFILE_ARG = {**PROFILE_ID, "description": "The login profile to start from."}
# as tools/list gives it: the id's pattern is checked, not listed (tools/list's room is scarce)
LISTED_PROFILE_ARG = {"type": "string", "description": PROFILE_ARG["description"]}
# How many levels of a template's outputs the answer's `result` lists (a batch's items' fields).
RESULT_DEPTH = 3
_CHECKED = ["succeeded", "partial_success"]  # the statuses whose result the outputs schema checked


def first_sentence(text: str, most: int) -> str:
    """`text`'s first sentence, whole (its stop kept; `text` itself when it is one), cut at a
    word to at most `most` characters."""
    text = " ".join(text.split())
    first = text
    for stop in _STOP.finditer(text):
        before = text[: stop.start()]
        if before.count("(") <= before.count(")"):  # not inside parentheses
            first = text[: stop.end()]
            break
    return _within(first, most)


def first_clause(text: str, most: int) -> str:
    """`text` when it is one clause of at most `most` characters; else its first clause,
    without its stop, cut at a word to at most `most` characters."""
    text = " ".join(text.split())
    first = _CLAUSE.split(text, maxsplit=1)[0]
    return text if first == text and len(text) <= most else _within(first.rstrip(".;"), most)


def _within(text: str, most: int) -> str:
    if len(text) <= most:
        return text
    return text[: most - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _concise(schema: Any) -> Any:
    """An inputs schema as a template's tool lists it: every description its first clause."""
    if isinstance(schema, dict):
        return {
            k: first_clause(v, SHORT_CHARS)
            if k == "description" and isinstance(v, str)
            else _concise(v)
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_concise(v) for v in schema]
    return schema


def answer_schema(outputs: Schema | None) -> Schema:
    """The answer of a template's tool: a run whose `result`, when the run succeeded (in full or
    in part), is the template's outputs (checked against them when the run ended); any other
    run (queued, failed, …) as run_task_template answers it."""
    result = outputs if outputs is not None else {}
    checked = obj({**RUN["properties"], "status": {"enum": _CHECKED}, "result": result})
    others = [s for s in STATUS["enum"] if s not in _CHECKED]
    other = obj({**RUN["properties"], "status": {"enum": others}}, ["runId", "status"])
    return {"anyOf": [{**checked, "required": ["runId", "status", "result"]}, other]}


def listed_answer(outputs: Schema | None) -> Schema:
    """What tools/list gives of `answer_schema`: a succeeded run's id, status and the outline
    of its result, the outputs a few levels deep (types, no descriptions or bounds); any other
    run's id and status."""
    result = outline(outputs, RESULT_DEPTH) if outputs is not None else {}
    return {
        "type": "object",
        "anyOf": [
            {
                "properties": {"status": {"enum": _CHECKED}, "result": result},
                "required": ["runId", "status", "result"],
            },
            {"required": ["runId", "status"]},  # queued, running, failed, …: its result unchecked
            ERROR_OUTLINE,
        ],
    }


def spec_of(template: Template) -> ToolSpec:
    """The tool of one template: its inputs are the arguments (and `profileId`, where they do
    not name one: run_task_template's own), run_task_template runs it."""
    template_id, version = template.id, template.version
    inputs = {"type": "object", **template.inputs_schema}
    own_profile = PROFILE not in inputs.get("properties", {})
    if own_profile:
        inputs["properties"] = {**inputs.get("properties", {}), PROFILE: PROFILE_ARG}

    async def run(state: ServerState, args: dict[str, Any], ctx: Context) -> Answer:
        # the call run_task_template would be given: a profileId of the tool's own is its
        # profileId; one the template's inputs name stays an input (its session.profile reads it)
        given = dict(args)
        profile = given.pop(PROFILE, None) if own_profile else None
        call = {"templateId": template_id, "templateVersion": version, "inputs": given}
        if profile is not None:
            call["profileId"] = profile
        return await run_task_template.run_task_template(state, call, ctx)

    described = first_sentence(template.description or template.name, DESCRIPTION_CHARS)
    outputs = template.outputs_schema
    if outputs is None:
        outputs = template.inferred_outputs
    listed_args = _concise(listed_inputs(inputs))
    if own_profile:
        listed_args["properties"][PROFILE] = LISTED_PROFILE_ARG
    listed = (listed_args, listed_answer(outputs))
    return ToolSpec(template_id, described, inputs, answer_schema(outputs), run, listed)


def listed_size(
    name: str,
    description: str | None,
    inputs: Schema,
    outputs: Schema | None,
    execution: Schema | None = None,
) -> int:
    """The characters a tool takes in tools/list: its JSON, compact, and the comma after it
    (`execution`: what the 2025-11-25 line adds to a tool whose runs may be tasks)."""
    tool = {"name": name, "description": description or "", "inputSchema": inputs}
    if outputs is not None:
        tool["outputSchema"] = outputs
    if execution is not None:
        tool["execution"] = execution
    return len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False)) + 1


def template_specs(
    templates: list[Template], room: int, shipped: Callable[[Template], bool], tool_tokens: int
) -> tuple[list[ToolSpec], dict[str, str]]:
    """The tools of the served templates that fit in `room` characters of tools/list: one per
    id, its newest version (the library lists versions oldest first), the operator's own first,
    then the shipped ones, each by id, built-in names left out; and why each other is not."""
    newest = {t.id: t for t in templates}
    left_out: dict[str, str] = {}
    for name in sorted(newest.keys() & BUILT_IN):
        left_out[name] = f'a built-in tool is named "{name}"; run_task_template runs it'
        log.warning("template %s is not offered as a tool: a built-in tool has its name", name)
    specs: list[ToolSpec] = []
    for name, template in sorted(newest.items(), key=lambda kv: (shipped(kv[1]), kv[0])):
        if name in BUILT_IN:
            continue
        spec = spec_of(template)
        assert spec.listed is not None
        size = listed_size(name, spec.description, *spec.listed)
        if size > room:
            left_out[name] = (
                f"tools/list's budget ({tool_tokens} tokens: dsl serve --tool-tokens, [serve]"
                " toolTokens) was spent before it; run_task_template runs it"
            )
            log.warning("template %s is not offered as a tool: %s", name, left_out[name])
            continue
        room -= size
        specs.append(spec)
    return specs, left_out
