"""How a taskplate tool becomes an MCP tool: an exact input schema (checked here, errors in the
contract's shape), an exact output schema, and a handler that answers a CallToolResult.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import jsonschema
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ConfigDict

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import listed, violations
from taskplate.interpreter import admit, internal

from ._results import failed
from ._schemas import answers

log = logging.getLogger("taskplate.serve")
Handler = Callable[[dict[str, Any], Context], Awaitable[CallToolResult | InputRequiredResult]]


class _AllArguments(ArgModelBase):
    """Takes the arguments as they came; the tool's own JSON Schema checks them."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    handler: Handler

    @cached_property
    def validator(self) -> jsonschema.Draft202012Validator:
        return jsonschema.Draft202012Validator(self.input_schema)

    def check(self, arguments: dict[str, Any], max_bytes: int) -> TaskplateError | None:
        try:
            admit(arguments, max_bytes, "the arguments")
        except TaskplateError as error:
            return error
        problems = violations(self.validator, arguments)
        if not problems:
            return None
        return TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"invalid arguments for {self.name}: {listed(problems)}",
            "Fix the arguments; the tool's input schema lists them.",
            {"violations": problems},
        )

    def tool(self, max_input_bytes: int) -> Tool:
        spec = self

        async def call(
            arguments: dict[str, Any], ctx: Context
        ) -> CallToolResult | InputRequiredResult:
            problem = spec.check(arguments, max_input_bytes)
            if problem is not None:
                return failed(problem)
            try:
                return await spec.handler(arguments, ctx)
            except TaskplateError as error:
                return failed(error)
            except Exception as exc:  # a bug: still an answer with a code, as a run's would be
                log.exception("tool %s failed with an internal error", spec.name)
                return failed(
                    TaskplateError(
                        ErrorCode.EXECUTION_ERROR,
                        f"internal error: {internal(exc)}",
                        "Report this as a bug.",
                    )
                )

        return Tool(
            fn=call,
            name=self.name,
            description=self.description,
            parameters=self.input_schema,
            fn_metadata=FuncMetadata(
                arg_model=_AllArguments, output_schema=answers(self.output_schema)
            ),
            is_async=True,
            context_kwarg="ctx",
        )


def params(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required or [],
        "additionalProperties": False,
    }
