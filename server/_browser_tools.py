"""Tool-level browser tools (SPEC §8): named sessions and tabs, the page actions, `scrape` and
`run_steps`. They call the same action functions as template steps, under the caller's trust.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import anyio
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ImageContent, InputRequiredResult

from taskplate.browser import Session
from taskplate.contract import ErrorCode, Level, TaskplateError, TrustLevel, valid_text
from taskplate.dsl import CheckResult, check_source, format_text
from taskplate.interpreter import RunArtifacts, iso, marked, save_recorded, typed_secret
from taskplate.stdlib import REGISTRY, ActionContext, run_action

from . import _schemas as schemas
from ._follow import follow
from ._input_required import channels_for
from ._results import ok
from ._state import ServerState
from ._tools import ToolSpec, params

PAGE_ACTIONS = (
    "navigate",
    "wait_for_stable",
    "get_page_info",
    "get_page_content",
    "create_tab",
    "close_tab",
    "snapshot",
    "click",
    "fill",
    "press",
    "select_option",
    "screenshot",
    "evaluate",
)
SESSION_ID = {"type": "string", "minLength": 1, "description": "From create_session."}
TAB_ID = {"type": "string", "description": "A tab of the session (default: its main tab)."}


def action_input_schema(name: str) -> dict[str, Any]:
    schema = copy.deepcopy(REGISTRY[name].args_schema)
    schema["properties"] = {
        "sessionId": SESSION_ID,
        **({} if name in ("create_tab", "close_tab") else {"tabId": TAB_ID}),
        **schema.get("properties", {}),
    }
    schema["required"] = ["sessionId", *schema.get("required", [])]
    return schema


def action_output_schema(name: str) -> dict[str, Any]:
    schema = copy.deepcopy(REGISTRY[name].result_schema)
    if name in ("get_page_content", "screenshot"):
        schema.setdefault("properties", {})["artifactId"] = {"type": "string"}
        schema["properties"]["inlined"] = {"type": "boolean"}
    if name == "evaluate":  # a value larger than an answer may be is an artifact
        schema["properties"].update(
            {
                "artifactId": {"type": "string"},
                "truncated": {"type": "boolean"},
                "bytes": {"type": "integer"},
            }
        )
    return schema


CHECKS_AT_ONCE = 2  # run_steps checks in worker threads at one time


def _checked_steps(args: dict[str, Any], trust: TrustLevel) -> tuple[str, CheckResult]:
    """run_steps' steps as a template's text, and what `dsl validate` says of it."""
    steps = copy.deepcopy(args["steps"])
    for index, step in enumerate(steps):
        if isinstance(step, dict):
            step.setdefault("id", f"step_{index + 1}")
            if not args.get("stopOnError", True):
                step.setdefault("onError", "continue")
    text = json.dumps(
        {"template": "run_steps", "version": "0.0.0", "trust": [str(trust)], "steps": steps},
        indent=1,
    )
    return text, check_source(text, "run_steps", REGISTRY)


class BrowserTools:
    def __init__(self, state: ServerState) -> None:
        self.state = state
        self.checks = anyio.CapacityLimiter(CHECKS_AT_ONCE)
        self.manager = state.manager
        self.inline = self.manager.limits.max_artifact_inline_bytes
        self.session_trust: dict[str, TrustLevel] = {}
        self.session_secrets: dict[str, list[str]] = {}  # values typed as secrets, per session

    # -- sessions -----------------------------------------------------------------------------
    async def open_session(self, trust: TrustLevel, profile_id: str | None) -> Session:
        session = await self.manager.open_session(
            trust, "master" if profile_id is None else profile_id
        )
        self.session_trust[session.id] = trust
        return session

    def session_for(self, session_id: str, trust: TrustLevel) -> Session:
        session = self.manager.sessions.get(session_id)
        if (
            trust is TrustLevel.REMOTE
            and self.session_trust.get(session_id, TrustLevel.LOCAL) is TrustLevel.LOCAL
        ):
            raise TaskplateError(
                ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
                f"session {session_id} was opened by a local caller; remote callers may not use it",
                "Open your own session with create_session.",
            )
        return session

    def describe(self, session: Session) -> dict[str, Any]:
        return {
            "sessionId": session.id,
            "profileId": session.profile_id,
            "tabs": len(session.tabs),
            "createdAt": iso(session.created_at) or "",
        }

    async def create_session(self, args: dict[str, Any], ctx: Context) -> CallToolResult:
        session = await self.open_session(self.state.trust(ctx), args.get("profileId"))
        self.state.owners[session.id] = self.state.caller(ctx)
        return ok(self.describe(session))

    async def close_session(self, args: dict[str, Any], ctx: Context) -> CallToolResult:
        self.session_for(args["sessionId"], self.state.trust(ctx))
        await self.manager.sessions.close(args["sessionId"])
        self.state.owners.pop(args["sessionId"], None)
        return ok({"closed": True})

    async def list_sessions(self, args: dict[str, Any], ctx: Context) -> CallToolResult:
        mine = self.state.caller(ctx)
        if mine is None:  # a stateless HTTP caller cannot be told from another
            return ok({"sessions": []})
        owned = [
            s
            for sid, s in self.manager.sessions.sessions.items()
            if self.state.owners.get(sid) == mine
        ]
        return ok({"sessions": [self.describe(s) for s in owned]})

    async def list_tabs(self, args: dict[str, Any], ctx: Context) -> CallToolResult:
        session = self.session_for(args["sessionId"], self.state.trust(ctx))
        tabs = []
        for tab in session.tabs.values():
            try:
                title = valid_text(await tab.page.title())  # a page's own text
            except Exception:  # a crashed page has no title
                title = ""
            tabs.append(
                {
                    "tabId": tab.id,
                    "url": tab.page.url,
                    "title": title,
                    "main": tab.id == session.main_tab,
                }
            )
        return ok({"tabs": tabs})

    # -- page actions ---------------------------------------------------------------------------
    def page_action(self, name: str) -> Any:
        spec = REGISTRY[name]

        async def handler(args: dict[str, Any], ctx: Context) -> CallToolResult:
            trust = self.state.trust(ctx)
            if not spec.level.allowed_for(trust):
                raise TaskplateError(
                    ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
                    f'"{name}" needs host access ({Level.L2}), which remote callers may not use',
                    "Connect over stdio (local trust) to use it.",
                )
            session = self.session_for(args["sessionId"], trust)
            own = spec.args_schema.get("properties", {})  # close_tab's tabId is its argument
            action_args = {
                k: v for k, v in args.items() if k in own or k not in ("sessionId", "tabId")
            }
            artifacts = RunArtifacts(self.manager.artifacts, f"session_{session.id}")
            action_ctx = ActionContext(
                session=session,
                tab_id=args.get("tabId"),
                trust=trust,
                artifacts=artifacts,
                profiles=self.manager.profiles,
            )
            result = await run_action(name, action_ctx, action_args)
            await self.keep_call(session, name, action_args, args.get("tabId"), result)
            return await self.small(name, result, artifacts)

        return handler

    async def keep_call(
        self,
        session: Session,
        name: str,
        args: dict[str, Any],
        tab_id: str | None,
        result: dict[str, Any],
    ) -> None:
        """A succeeded call, recorded in the run store under the session's id for
        save_template; a value typed as a secret is kept as a mark, never in clear."""
        secrets = self.session_secrets.setdefault(session.id, [])
        secret = typed_secret(name, args, result)
        if secret is not None and secret not in secrets:
            secrets.append(secret)
        await self.manager.store.record_call(
            session.id,
            None,
            step_id=None,
            item_index=None,
            action=name,
            tab=None if tab_id in (None, session.main_tab) else tab_id,
            args=marked(args, secrets),
            opened_tab=result.get("tabId") if name == "create_tab" else None,
        )

    async def small(
        self, name: str, result: dict[str, Any], artifacts: RunArtifacts
    ) -> CallToolResult:
        """Answers stay under maxArtifactInlineBytes; the rest is an artifact to read by reference."""
        if name == "screenshot":
            chunk = await self.manager.artifacts.read(result["artifactId"])
            if len(chunk.data) * 4 // 3 + 1000 < self.inline:
                image = ImageContent(
                    type="image", data=base64.b64encode(chunk.data).decode(), mime_type="image/png"
                )
                return ok({**result, "inlined": True}, image)
            return ok({**result, "inlined": False})
        if name == "get_page_content" and len(json.dumps(result)) > self.inline:
            artifact_id = await artifacts.save(
                f"content.{result['format']}", result["content"].encode(), "text/plain"
            )
            cut = (
                result["content"].encode()[: self.inline * 3 // 4].decode("utf-8", errors="ignore")
            )
            warnings = [
                *result.get("warnings", []),
                f"the content is longer than this answer may be; all of it is artifact {artifact_id}",
            ]
            return ok(
                {
                    **result,
                    "content": cut,
                    "bytes": len(cut.encode()),
                    "truncated": True,
                    "artifactId": artifact_id,
                    "warnings": warnings,
                }
            )
        if name == "evaluate":
            data = json.dumps(result["value"], ensure_ascii=False).encode()
            if len(data) + 200 > self.inline:
                artifact_id = await artifacts.save("value.json", data, "application/json")
                note = f"the value is {len(data)} bytes as JSON, more than an answer may be; it is artifact {artifact_id}"
                warnings = [*result.get("warnings", []), note]
                return ok(
                    {
                        "value": None,
                        "truncated": True,
                        "bytes": len(data),
                        "artifactId": artifact_id,
                        "warnings": warnings,
                    }
                )
        return ok(result)

    # -- scrape -------------------------------------------------------------------------------
    async def scrape(self, args: dict[str, Any], ctx: Context) -> CallToolResult:
        trust = self.state.trust(ctx)
        session = await self.open_session(trust, args.get("profileId"))
        action_ctx = ActionContext(
            session=session,
            trust=trust,
            artifacts=RunArtifacts(self.manager.artifacts, f"scrape_{session.id}"),
        )
        fmt = args.get("format", "markdown")
        try:
            page = await run_action("navigate", action_ctx, {"url": args["url"]})
            wait_ms = args.get("waitFor", 0)
            if wait_ms > 0:
                await run_action("wait", action_ctx, {"ms": wait_ms})
            else:
                await run_action(
                    "wait_for_stable", action_ctx, {"timeoutMs": 10_000, "quietMs": 500}
                )
            base = {
                "url": page["url"],
                "format": fmt,
                "title": page["title"],
                "status": page["status"],
            }
            if fmt in ("screenshot", "fullscreenshot"):
                shot = await run_action(
                    "screenshot", action_ctx, {"fullPage": fmt == "fullscreenshot"}
                )
                answer = await self.small("screenshot", shot, action_ctx.artifacts)  # type: ignore[arg-type]
                answer.structured_content = {**base, **(answer.structured_content or {})}
                return answer
            content = await run_action(
                "get_page_content",
                action_ctx,
                {"format": fmt, "onlyMainContent": args.get("onlyMainContent", True)},
            )
            answer = await self.small("get_page_content", content, action_ctx.artifacts)  # type: ignore[arg-type]
            merged = {**base, **(answer.structured_content or {})}
            return ok(merged)
        finally:
            await self.manager.sessions.close(session.id)

    # -- run_steps ----------------------------------------------------------------------------
    async def run_steps(
        self, args: dict[str, Any], ctx: Context
    ) -> CallToolResult | InputRequiredResult:
        inbox = self.state.inbox
        if ctx.request_state is not None:  # a later round (2026-07-28): answers, then on
            resumed = await inbox.deliver(self.manager, ctx)
            return await inbox.follow_or_ask(resumed, lambda: self._steps_answer(resumed, ctx))
        trust = self.state.trust(ctx)
        # Checking costs up to a second for the largest steps a caller may send: in a worker
        # thread (at most CHECKS_AT_ONCE), so that the server answers everyone meanwhile.
        text, checked = await anyio.to_thread.run_sync(
            _checked_steps, args, trust, limiter=self.checks
        )
        if not checked.ok or checked.template is None:
            problems = [d for d in checked.diagnostics if d.severity == "error"]
            code = (
                ErrorCode.TRUST_LEVEL_NOT_ALLOWED
                if any(d.rule == "trust" for d in problems)
                else ErrorCode.INVALID_PARAMETER
            )
            raise TaskplateError(
                code,
                "the steps are not valid: "
                + "; ".join(f"{d.pointer or '/'}: {d.message}" for d in problems[:5]),
                "Fix the steps (template syntax, docs/authoring.md).",
                {
                    "diagnostics": [d.to_json() for d in problems],
                    "text": [format_text(d, text) for d in problems[:3]],
                },
            )
        options = {"timeoutMs": args["timeoutMs"]} if "timeoutMs" in args else {}
        session_id = args.get("sessionId")
        if session_id:
            self.session_for(session_id, trust)
        caller = self.state.caller(ctx)
        asker, sampler, questions = channels_for(inbox, ctx, trust, caller)
        run_id = await self.manager.submit(
            "run_steps",
            {},
            template=checked.template,
            options=options,
            trust=trust,
            session_id=session_id,
            caller=caller,
            asker=asker,
            sampler=sampler,
        )
        if questions is not None:
            inbox.bind(self.manager, run_id, questions)
        return await inbox.follow_or_ask(run_id, lambda: self._steps_answer(run_id, ctx))

    async def _steps_answer(self, run_id: str, ctx: Context) -> CallToolResult:
        answer = await follow(self.manager, ctx, run_id, self.state.log_levels)
        described = await self.manager.describe(run_id, include_steps=True)
        out = {
            "runId": run_id,
            "status": answer["status"],
            "results": answer.get("result") or {},
            "steps": described.get("steps", []),
        }
        if answer.get("error"):
            out["error"] = answer["error"]
        return ok(out)

    # -- save_template ------------------------------------------------------------------------
    async def save_template(self, args: dict[str, Any], ctx: Context) -> CallToolResult:
        trust = self.state.trust(ctx)
        if trust is TrustLevel.REMOTE and not self.state.remote_save:
            raise TaskplateError(
                ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
                "remote callers may not save templates on this server",
                "Save over stdio (local trust), or ask the operator to serve with --allow-remote-save.",
            )
        source = await self.recording(args, trust)
        saved = await save_recorded(
            self.manager.store,
            self.manager.library,
            self.manager.home,
            source,
            args["name"],
            description=args.get("description"),
            overwrite=args.get("overwrite", False),
        )
        if self.state.published is not None:
            self.state.published(self.manager.library.get(saved.template_id, saved.version))
        return ok(saved.to_json())

    async def recording(self, args: dict[str, Any], trust: TrustLevel) -> str:
        """The run or session to save, if this caller may read it."""
        run_id, session_id = args.get("runId"), args.get("sessionId")
        if (run_id is None) == (session_id is None):
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                "give either runId or sessionId (not both)",
                "runId: a finished run_steps run; sessionId: a session of browser tool calls.",
            )
        if trust is TrustLevel.REMOTE:
            if session_id is not None and session_id not in self.session_trust:
                raise TaskplateError(
                    ErrorCode.SESSION_NOT_FOUND,
                    f"no session {session_id} was opened on this server",
                    "Save a session you opened here with create_session.",
                )
            opener = (
                self.session_trust[session_id]
                if session_id is not None
                else await self._run_trust(str(run_id))
            )
            if opener is TrustLevel.LOCAL:
                raise TaskplateError(
                    ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
                    f"{'session' if session_id else 'run'} {session_id or run_id} was made by a local caller; remote callers may save only their own",
                    "Save one of your own runs or sessions.",
                )
        return str(run_id or session_id)

    async def _run_trust(self, run_id: str) -> TrustLevel:
        row = await self.manager.store.run(run_id)
        if row is None:
            return TrustLevel.REMOTE  # save_recorded answers RUN_NOT_FOUND
        return TrustLevel(row.options.get("trust", "local"))

    # -- the list -------------------------------------------------------------------------------
    def specs(self) -> list[ToolSpec]:
        specs = [
            ToolSpec(
                "create_session",
                "Open a named browser session (isolated cookies and storage, up to 20 tabs), seeded from a login profile.",
                params({"profileId": schemas.PROFILE_ID}),
                schemas.SESSION,
                self.create_session,
            ),
            ToolSpec(
                "close_session",
                "Close a session and every tab it opened.",
                params({"sessionId": SESSION_ID}, ["sessionId"]),
                schemas.CLOSED,
                self.close_session,
            ),
            ToolSpec(
                "list_sessions",
                "The sessions you opened (over stateless HTTP, where callers cannot be told apart: none; keep your session ids).",
                params({}),
                schemas.SESSIONS,
                self.list_sessions,
            ),
            ToolSpec(
                "list_tabs",
                "The tabs of a session with their URLs and titles.",
                params({"sessionId": SESSION_ID}, ["sessionId"]),
                schemas.TABS,
                self.list_tabs,
            ),
        ]
        for name in PAGE_ACTIONS:
            spec = REGISTRY[name]
            description = spec.summary + (" Local callers only." if spec.level is Level.L2 else "")
            specs.append(
                ToolSpec(
                    name,
                    description,
                    action_input_schema(name),
                    action_output_schema(name),
                    self.page_action(name),
                )
            )
        specs.append(
            ToolSpec(
                "scrape",
                "One page in one call: open it in a fresh context seeded from a profile, wait (smart by default), and answer it as markdown, html, links, or a (full) screenshot.",
                params(
                    {
                        "url": {"type": "string", "minLength": 1},
                        "format": {
                            "enum": ["markdown", "html", "links", "screenshot", "fullscreenshot"]
                        },
                        "onlyMainContent": {"type": "boolean"},
                        "waitFor": {
                            "type": "integer",
                            "minimum": 0,
                            "maximum": 60_000,
                            "description": ">0: a fixed wait in ms; 0: wait until the page is stable.",
                        },
                        "profileId": schemas.PROFILE_ID,
                    },
                    ["url"],
                ),
                schemas.SCRAPE,
                self.scrape,
            )
        )
        specs.append(
            ToolSpec(
                "run_steps",
                "Run a list of steps (template syntax, validated like a template) in one call, under your trust level; answers every step's result.",
                params(
                    {
                        "steps": {"type": "array", "minItems": 1, "items": {"type": "object"}},
                        "sessionId": SESSION_ID,
                        "stopOnError": {"type": "boolean"},
                        "timeoutMs": {"type": "integer", "minimum": 1, "maximum": schemas.MAX_MS},
                    },
                    ["steps"],
                ),
                schemas.RUN_STEPS,
                self.run_steps,
            )
        )
        specs.append(
            ToolSpec(
                "save_template",
                "Keep what you did as a template: the steps of a finished run_steps run (runId) or the browser tools you called in a session (sessionId) become a template's steps, literal URLs and typed values its inputs (secrets password inputs). Saved in the user template folder and served at once.",
                params(
                    {
                        "name": {
                            "type": "string",
                            "minLength": 1,
                            "description": "The template id: lower-case letters, digits and _, starting with a letter.",
                        },
                        "runId": {"type": "string", "minLength": 1},
                        "sessionId": SESSION_ID,
                        "description": {"type": "string"},
                        "overwrite": {
                            "type": "boolean",
                            "description": "Replace a template you saved under this name.",
                        },
                    },
                    ["name"],
                ),
                schemas.SAVED_TEMPLATE,
                self.save_template,
            )
        )
        return specs
