"""How a taskplate tool becomes an MCP tool: a `ToolSpec` (name, description, exact input and
output schemas, a handler taking the server's state explicitly), checked and answered here.

Arguments are checked against the input schema before the handler runs (errors in the
contract's shape); a handler's TaskplateError, or a bug, is still an answer with a code.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import jsonschema
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools.base import Tool
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ConfigDict

from taskplate.contract import ErrorCode, TaskplateError, internal_error
from taskplate.dsl import listed, validator_for, violations
from taskplate.interpreter import Limits, admit
from taskplate.providers import ArgModelBase, FuncMetadata

from .._artifact_links import linked
from .._results import failed
from .._schemas import listed_inputs, published
from .._state import ServerState

log = logging.getLogger("taskplate.serve")
Answer = CallToolResult | InputRequiredResult
Handler = Callable[[ServerState, dict[str, Any], Context], Awaitable[Answer]]
Schema = dict[str, Any]


class _AllArguments(ArgModelBase):
    """Takes the arguments as they came; the tool's own JSON Schema checks them."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


@dataclass(frozen=True)
class ToolSpec:
    """One tool as declared beside its handler. `input_schema` is a schema, or a function of
    the server's limits for a tool whose bounds are the server's (get_artifact's `limit`).
    `listed`: what tools/list gives of the input and output schemas, when the tool makes them
    itself (a template's tool); else `listed_inputs` and `published` of the exact ones."""

    name: str
    description: str
    input_schema: Schema | Callable[[Limits], Schema]
    output_schema: Schema
    handler: Handler
    listed: tuple[Schema, Schema] | None = None

    def inputs(self, limits: Limits) -> Schema:
        schema = self.input_schema
        return schema if isinstance(schema, dict) else schema(limits)

    def tool(self, state: ServerState) -> Tool:
        """The SDK's tool, bound to one server's state."""
        limits = state.manager.run_limits()
        inputs = self.inputs(limits)
        validator = validator_for(inputs)
        name, handler = self.name, self.handler

        async def call(arguments: dict[str, Any], ctx: Context) -> Answer:
            problem = _problem(name, validator, arguments, limits.max_input_bytes)
            if problem is not None:
                return failed(problem)
            try:
                return linked(await handler(state, arguments, ctx), ctx)
            except TaskplateError as error:
                return failed(error)
            except Exception as exc:  # a bug: still an answer with a code, as a run's would be
                return failed(internal_error(exc, name, log))

        parameters, output = self.listed or (listed_inputs(inputs), published(self.output_schema))
        return Tool(
            fn=call,
            name=self.name,
            title=None,
            description=self.description,
            parameters=parameters,
            fn_metadata=FuncMetadata(arg_model=_AllArguments, output_schema=output),
            is_async=True,
            context_kwarg="ctx",
            annotations=None,
        )


def _problem(
    name: str,
    validator: jsonschema.Draft202012Validator,
    arguments: dict[str, Any],
    max_bytes: int,
) -> TaskplateError | None:
    try:
        admit(arguments, max_bytes, "the arguments")
    except TaskplateError as error:
        return error
    problems = violations(validator, arguments)
    if not problems:
        return None
    return TaskplateError(
        ErrorCode.INVALID_PARAMETER,
        f"invalid arguments for {name}: {listed(problems)}",
        "Fix the arguments; the tool's input schema lists them.",
        {"violations": problems},
    )


def params(properties: dict[str, Any], required: list[str] | None = None) -> Schema:
    return {
        "type": "object",
        "properties": properties,
        "required": required or [],
        "additionalProperties": False,
    }
