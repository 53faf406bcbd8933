"""The contract tools of SPEC §8 (and resume_task_run for hand-overs): templates, runs and
artifacts, all through the one run manager. Each answers structuredContent or an error result.
"""

from __future__ import annotations

import base64
import json
from importlib.metadata import version
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, InputRequiredResult

from taskplate.contract import RunStatus

from . import _schemas as schemas
from ._follow import follow
from ._input_required import channels_for, modern
from ._results import ok
from ._state import ServerState
from ._tools import ToolSpec, params

ID = {"type": "string", "minLength": 1}


def fit(answer: dict[str, Any], limit: int) -> dict[str, Any]:
    """Keep an answer under the inline limit: steps are cut first (and flagged)."""
    if len(json.dumps(answer, default=str)) <= limit or "steps" not in answer:
        return answer
    steps = answer["steps"]
    while steps and len(json.dumps({**answer, "steps": steps}, default=str)) > limit:
        steps = steps[: len(steps) // 2]
    return {**answer, "steps": steps, "stepsTruncated": True}


def contract_tools(state: ServerState) -> list[ToolSpec]:
    manager = state.manager
    inline = manager.limits.max_artifact_inline_bytes

    async def get_runtime_profile(args: dict[str, Any], ctx: Context) -> CallToolResult:
        await manager.runtime.browser()
        return ok(
            {
                "runtimeVersion": version("taskplate"),
                "trustLevel": str(state.trust(ctx)),
                "limits": manager.limits.to_json(),
                "browser": {"name": "chromium", "version": manager.runtime.version},
            }
        )

    async def list_task_templates(args: dict[str, Any], ctx: Context) -> CallToolResult:
        library = manager.library
        await library.refresh()  # template files and taskplate.toml changes take effect here
        return ok({"templates": [library.info(t) for t in library.all()]})

    async def following(run_id: str, ctx: Context) -> CallToolResult:
        return ok(fit(await follow(manager, ctx, run_id, state.log_levels), inline))

    async def run_task_template(
        args: dict[str, Any], ctx: Context
    ) -> CallToolResult | InputRequiredResult:
        inbox = state.inbox
        if ctx.request_state is not None:  # a later round (2026-07-28): answers, then on
            run_id = await inbox.deliver(manager, ctx)
            return await inbox.follow_or_ask(run_id, lambda: following(run_id, ctx))
        await manager.library.refresh()
        template = manager.library.get(args["templateId"], args.get("templateVersion"))
        options = dict(args.get("options") or {})
        inputs = args.get("inputs") or {}
        mode = manager.decide_mode(template, inputs, options)
        trust, caller = state.trust(ctx), state.caller(ctx)
        asker, sampler, questions = channels_for(inbox, ctx, trust, caller)
        run_id = await manager.submit(
            template.id,
            inputs,
            version=template.version,
            options=options,
            trust=trust,
            session_id=args.get("sessionId"),
            profile_id=args.get("profileId"),
            caller=caller,
            asker=asker,
            sampler=sampler,
        )
        if questions is not None:
            inbox.bind(manager, run_id, questions)
        if mode == "async":
            asker.call_ended()
            return ok(
                {
                    "runId": run_id,
                    "status": "queued",
                    "createdAt": (await manager.describe(run_id))["createdAt"],
                }
            )
        try:
            return await inbox.follow_or_ask(run_id, lambda: following(run_id, ctx))
        finally:
            asker.call_ended()

    async def get_task_run(
        args: dict[str, Any], ctx: Context
    ) -> CallToolResult | InputRequiredResult:
        run_id = args["runId"]
        if ctx.request_state is not None:  # the answers to the questions it asked (2026-07-28)
            await state.inbox.deliver(manager, ctx)
        elif modern(ctx):
            questions = state.inbox.runs.get(run_id)
            if questions is not None and questions.may_answer(
                ctx, state.trust(ctx), state.caller(ctx)
            ):
                required = state.inbox.input_required(run_id)
                if required is not None:
                    return required
        return ok(
            fit(
                await manager.describe(run_id, include_steps=args.get("includeSteps", False)),
                inline,
            )
        )

    async def list_task_runs(args: dict[str, Any], ctx: Context) -> CallToolResult:
        return ok(
            await manager.list(
                args.get("status"),
                args.get("templateId"),
                args.get("limit", 20),
                args.get("offset", 0),
            )
        )

    async def cancel_task_run(args: dict[str, Any], ctx: Context) -> CallToolResult:
        return ok(await manager.cancel(args["runId"], args.get("force", False)))

    async def resume_task_run(args: dict[str, Any], ctx: Context) -> CallToolResult:
        return ok(await manager.resume(args["runId"], state.trust(ctx), state.caller(ctx)))

    async def get_artifact(args: dict[str, Any], ctx: Context) -> CallToolResult:
        limit = args.get("limit", inline * 3 // 4)
        chunk = await manager.artifacts.read(args["artifactId"], args.get("offset", 0), limit)
        return ok(
            {
                "artifactId": args["artifactId"],
                "mimeType": chunk.meta["mime_type"],
                "size": chunk.meta["size"],
                "data": base64.b64encode(chunk.data).decode(),
                "offset": chunk.offset,
                "bytesReturned": len(chunk.data),
                "complete": chunk.complete,
            }
        )

    return [
        ToolSpec(
            "get_runtime_profile",
            "The runtime's version, your trust level (local or remote), the limits and the browser.",
            params({}),
            schemas.RUNTIME_PROFILE,
            get_runtime_profile,
        ),
        ToolSpec(
            "list_task_templates",
            "Every installed template: what it does, its inputs and outputs schemas, trust levels, limits, partial-success rule, highest capability level and the providers (other MCP servers) it calls.",
            params({}),
            schemas.LIST_TEMPLATES,
            list_task_templates,
        ),
        ToolSpec(
            "run_task_template",
            "Run a template. mode sync answers the finished run (with progress notifications); async answers {runId, status: queued} at once (then poll get_task_run every 2 s); auto lets the template decide.",
            params(
                {
                    "templateId": ID,
                    "templateVersion": {
                        "type": "string",
                        "description": "Exact (1.2.3) or a range (^1.2); default the newest.",
                    },
                    "sessionId": {
                        "type": "string",
                        "description": "Run in this session (never closed by the run).",
                    },
                    "profileId": {
                        **schemas.PROFILE_ID,
                        "description": "Seed the run's own session from this login profile.",
                    },
                    "inputs": {
                        "type": "object",
                        "description": "Checked against the template's inputsSchema.",
                    },
                    "options": params(
                        {
                            "timeoutMs": {
                                "type": "integer",
                                "minimum": 1,
                                "maximum": schemas.MAX_MS,
                            },
                            "mode": {"enum": ["sync", "async", "auto"]},
                            "trace": {
                                "enum": ["off", "on-failure", "on"],
                                "description": "Keep a Playwright trace (trace.zip) of the run: never, when it fails (default for local callers), always.",
                            },
                        }
                    ),
                },
                ["templateId"],
            ),
            schemas.RUN_OR_QUEUED,
            run_task_template,
        ),
        ToolSpec(
            "get_task_run",
            "A run's status, progress, result, error and artifacts (includeSteps: every step execution).",
            params({"runId": ID, "includeSteps": {"type": "boolean"}}, ["runId"]),
            schemas.RUN,
            get_task_run,
        ),
        ToolSpec(
            "list_task_runs",
            "Runs of every taskplate process on this machine, newest first.",
            params(
                {
                    "status": {"enum": [str(s) for s in RunStatus]},
                    "templateId": {"type": "string"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                    "offset": {"type": "integer", "minimum": 0, "maximum": schemas.MAX_OFFSET},
                }
            ),
            schemas.LIST_RUNS,
            list_task_runs,
        ),
        ToolSpec(
            "cancel_task_run",
            "Cancel a run of any process: running steps finish, pending ones are skipped, results kept. force also aborts the steps in flight.",
            params({"runId": ID, "force": {"type": "boolean"}}, ["runId"]),
            schemas.CANCEL,
            cancel_task_run,
        ),
        ToolSpec(
            "resume_task_run",
            "Go on with a run in waiting_for_human (a hand_over step) once the person is done; remote callers resume only runs they started.",
            params({"runId": ID}, ["runId"]),
            schemas.RESUME,
            resume_task_run,
        ),
        ToolSpec(
            "get_artifact",
            "A chunk of an artifact as base64; read on from offset + bytesReturned until complete.",
            params(
                {
                    "artifactId": ID,
                    "offset": {"type": "integer", "minimum": 0, "maximum": schemas.MAX_OFFSET},
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": inline,
                        "description": "At most maxArtifactInlineBytes.",
                    },
                },
                ["artifactId"],
            ),
            schemas.ARTIFACT_CHUNK,
            get_artifact,
        ),
    ]
