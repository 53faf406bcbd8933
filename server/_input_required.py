"""Questions of a run on MCP 2026-07-28: the input-required flow (multi-round trips).

That protocol has no server-to-client requests. A run that needs its caller's model
(`llm_extract`) or user (`confirm`, `hand_over`) posts the question here and waits; the tool
call following the run (`run_task_template` sync, `run_steps`) answers an `InputRequiredResult`
carrying the questions (`sampling/createMessage`, `elicitation/create`) and a `requestState`
naming the run and the questions; the client calls the same tool again with the answers and
that state, and the call delivers them and follows the run on. An async run's questions are
answered the same way through `get_task_run`.

The `requestState` this module writes is plain JSON ({run, asked}); the SDK's
`RequestStateBoundary` (installed by `MCPServer`) seals it on the way out and verifies it on
the way in (AES-GCM, bound to the tool, its arguments, the caller's principal - not its token,
`_app.request_state_security` - and a TTL), so a handler
only ever reads state this server minted; a forged or expired one is refused by the SDK
("Invalid or expired requestState"). A state whose question is no longer open (answered,
timed out, another server process) gets INVALID_PARAMETER saying so.

The run goes on in the background while a question is out; every wait here is bounded.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, InputRequiredResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from taskplate.contract import ErrorCode, RunStatus, TaskplateError, TrustLevel
from taskplate.interpreter import Answer, CannotAsk, Principal, RunManager
from taskplate.stdlib import Sampled, SamplingRequest

from ._elicit import ElicitingAsker, asker_for
from ._sampling import SAMPLING_TIMEOUT_S, ClientSampler, answer_text, create_message
from ._task_asks import TaskAsks

# How long a confirmation or hand-over question stays out (the SDK's requestState lives 600 s).
ASK_TIMEOUT_S = 600.0
# After the first question of a round, how long to gather others asked at the same time
# (a batch's items ask together), so a client answers them in one round.
GATHER_S = 0.2
# How often a run waiting for an answer looks for a cancel request.
CANCEL_POLL_S = 0.25
# Answers no longer wanted are remembered per run, this many (a run asks few questions).
_CLOSED_KEPT = 256

# The answer to a confirmation carries no data: accept, decline and cancel say everything.
_NO_FIELDS: dict[str, Any] = {"type": "object", "properties": {}}


def modern(ctx: Context) -> bool:
    """True when this call speaks 2026-07-28 (or later): questions ride input_required results."""
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def _stale(run_id: str, key: str, why: str) -> TaskplateError:
    return TaskplateError(
        ErrorCode.INVALID_PARAMETER,
        f"requestState answers question {key} of run {run_id}, which {why}",
        "Do not resend an answer: call get_task_run for the run's state (it asks any question "
        "still open), or run the template again.",
        {"requestState": "stale", "runId": run_id, "question": key},
    )


@dataclass
class _Question:
    key: str
    request: types.CreateMessageRequest | types.ElicitRequest
    done: anyio.Event = field(default_factory=anyio.Event)
    response: Any = None


@dataclass
class RunQuestions:
    """One run's open questions to the caller that started it (over 2026-07-28)."""

    trust: TrustLevel
    owner: Principal  # the caller that started the run
    sampling: bool  # what the client declared when it started the run
    elicitation: bool
    open: dict[str, _Question] = field(default_factory=dict)
    closed: dict[str, str] = field(default_factory=dict)  # key -> why it is no longer open
    posted: anyio.Event = field(default_factory=anyio.Event)
    run_id: str | None = None  # set by Inbox.bind once the run has its id
    manager: RunManager | None = None

    async def _stop_if_canceled(self) -> None:
        """A run canceled while it waits for an answer stops now (nothing runs on a page
        meanwhile, as for a hand-over): its forced scope ends the wait."""
        if self.manager is None or self.run_id is None:
            return
        await self.manager.stop_if_canceled(self.run_id)

    async def ask(self, kind: str, request: Any, timeout_s: float) -> Any:
        """Post a question and wait (bounded) for the answer a later tool call delivers."""
        question = _Question(f"{kind}-{secrets.token_hex(6)}", request)
        self.open[question.key] = question
        posted, self.posted = self.posted, anyio.Event()
        posted.set()
        why = "was withdrawn (the run no longer needs it)"
        try:
            with anyio.fail_after(timeout_s):
                while not question.done.is_set():
                    with anyio.move_on_after(CANCEL_POLL_S):
                        await question.done.wait()
                    await self._stop_if_canceled()
            why = "was already answered"
            return question.response
        except TimeoutError:
            why = f"timed out after {timeout_s:g} s (the run went on without it)"
            raise
        finally:
            self.open.pop(question.key, None)
            self.closed[question.key] = why
            while len(self.closed) > _CLOSED_KEPT:
                self.closed.pop(next(iter(self.closed)))

    async def wait_open(self) -> None:
        while not self.open:
            await self.posted.wait()

    def may_answer(self, principal: Principal) -> bool:
        """The starting caller's questions go to it (or to an operator), never to others; a
        caller the transport cannot tell apart is asked none (it could be anyone)."""
        return principal.operator or (
            self.owner.name is not None and principal.sees(self.owner.name)
        )


class QuestionSampler:
    """The run's `Sampler` over 2026-07-28: the question waits for the next tool call."""

    def __init__(self, questions: RunQuestions, timeout_s: float = SAMPLING_TIMEOUT_S) -> None:
        self.questions = questions
        self.timeout_s = timeout_s

    def can_sample(self) -> bool:
        return self.questions.sampling

    async def sample(self, request: SamplingRequest) -> Sampled:
        if not self.questions.sampling:
            raise TaskplateError(
                ErrorCode.SAMPLING_UNSUPPORTED,
                "the MCP client did not declare the sampling capability (2026-07-28: in the "
                "request's _meta), so llm_extract cannot ask its model",
                "Use an MCP client that supports sampling (on 2026-07-28 it answers the "
                "sampling/createMessage input requests of an input_required result), name an "
                "endpoint in the [llm] table of the server's taskplate.toml, or read the page "
                "with `extract`.",
            )
        try:
            answer = await self.questions.ask("sampling", create_message(request), self.timeout_s)
        except TimeoutError:
            raise TaskplateError(
                ErrorCode.LLM_UNAVAILABLE,
                f"the MCP client did not answer the sampling request within {self.timeout_s:g} s "
                "(an input_required result of a tool call, or of get_task_run for an async run)",
                "Keep calling: a sync run's tool call asks again with the client's answers; "
                "for an async run poll get_task_run, which carries the question.",
            ) from None
        return answer_text(answer)


class QuestionAsker:
    """The run's `Asker` over 2026-07-28: elicitation as an input request of a tool call."""

    via = "elicitation"

    def __init__(self, questions: RunQuestions, timeout_s: float = ASK_TIMEOUT_S) -> None:
        self.questions = questions
        self.timeout_s = timeout_s

    def can_ask(self) -> bool:
        return self.questions.elicitation

    def call_ended(self, task_id: str | None = None) -> None:
        """Nothing to do: later questions wait for get_task_run."""

    async def ask(self, message: str) -> Answer:
        request = types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=message, requested_schema=_NO_FIELDS)
        )
        try:
            result = await self.questions.ask("elicitation", request, self.timeout_s)
        except TimeoutError:
            raise CannotAsk(f"the client did not answer within {self.timeout_s:g} s") from None
        return Answer(result.action)


@dataclass
class Inbox:
    """Every open question of this server's runs, by run id."""

    runs: dict[str, RunQuestions] = field(default_factory=dict)

    def open_for(self, ctx: Context, trust: TrustLevel, principal: Principal) -> RunQuestions:
        capabilities = ctx.client_capabilities
        return RunQuestions(
            trust,
            principal,
            sampling=capabilities is not None and capabilities.sampling is not None,
            elicitation=capabilities is not None and capabilities.elicitation is not None,
        )

    def bind(self, manager: RunManager, run_id: str, questions: RunQuestions) -> None:
        for gone in [r for r in self.runs if not manager.is_live(r)]:
            del self.runs[gone]  # runs that ended (their questions went with them)
        if manager.is_live(run_id):
            questions.run_id, questions.manager = run_id, manager
            self.runs[run_id] = questions

    async def deliver(self, manager: RunManager, ctx: Context) -> str:
        """A later round: the answers of `ctx.input_responses` to the questions its (SDK-verified)
        requestState names. Answers the run id; raises when a question is no longer open."""
        state = _read_state(ctx.request_state)
        run_id = state["run"]
        await self._deliver(manager, run_id, state["asked"], dict(ctx.input_responses or {}))
        return run_id

    async def answer(self, manager: RunManager, run_id: str, responses: dict[str, Any]) -> None:
        """tasks/update: the answers (JSON, by question key) to a run's open questions."""
        questions = self.runs.get(run_id)
        typed: dict[str, Any] = {}
        for key, raw in responses.items():
            question = questions.open.get(key) if questions is not None else None
            typed[key] = raw
            if question is not None:
                try:
                    typed[key] = _kind(question).model_validate(raw)
                except ValueError:
                    raise TaskplateError(
                        ErrorCode.INVALID_PARAMETER,
                        f"inputResponses.{key} is no answer to a {question.request.method} request",
                        f"Answer {question.request.method} with its own result type.",
                    ) from None
        await self._deliver(manager, run_id, list(responses), typed)

    async def _deliver(
        self, manager: RunManager, run_id: str, asked: list[str], responses: dict[str, Any]
    ) -> None:
        questions = self.runs.get(run_id)
        terminal = await _terminal(manager, run_id)
        answered: list[tuple[_Question, Any]] = []
        for key in asked:
            question = questions.open.get(key) if questions is not None else None
            response = responses.get(key)
            if response is None:
                continue  # an open question is asked again in the next round
            if question is None:
                why = questions.closed.get(key) if questions is not None else None
                if terminal or (why is not None and why.startswith("was withdrawn")):
                    continue  # nobody waits for it any more: the answer is dropped
                raise _stale(
                    run_id,
                    key,
                    why
                    or "this server process does not hold (it restarted, or another one runs it)",
                )
            kind = _kind(question)
            if not isinstance(response, kind):
                raise TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f"inputResponses.{key} answers a {question.request.method} request with "
                    f"a {type(response).__name__}",
                    f"Answer {question.request.method} with its own result type.",
                )
            answered.append((question, response))
        for question, response in answered:  # all checked first: none or all delivered
            assert questions is not None
            question.response = response
            question.done.set()
            questions.open.pop(question.key, None)  # never asked again, even before it wakes
            questions.closed[question.key] = "was already answered"

    def input_required(self, run_id: str) -> InputRequiredResult | None:
        questions = self.runs.get(run_id)
        if questions is None or not questions.open:
            return None
        asked = dict(questions.open)
        return InputRequiredResult(
            input_requests={key: q.request for key, q in asked.items()},
            request_state=json.dumps({"run": run_id, "asked": list(asked)}),
        )

    async def follow_or_ask(
        self,
        run_id: str,
        follow: Callable[[], Awaitable[CallToolResult]],
    ) -> CallToolResult | InputRequiredResult:
        """Follow the run to its end, unless it asks a question first: then answer the
        questions as an input_required result (the run goes on waiting for them)."""
        questions = self.runs.get(run_id)
        if questions is None:
            return await follow()
        while True:
            result: CallToolResult | None = None
            async with anyio.create_task_group() as tg:

                async def followed() -> None:
                    nonlocal result
                    result = await follow()
                    tg.cancel_scope.cancel()

                async def asked() -> None:
                    await questions.wait_open()
                    await anyio.sleep(GATHER_S)  # others asked at the same time join
                    tg.cancel_scope.cancel()

                tg.start_soon(followed)
                tg.start_soon(asked)
            if result is not None:
                return result
            required = self.input_required(run_id)
            if required is not None:
                return required


def _kind(question: _Question) -> type[types.CreateMessageResult] | type[types.ElicitResult]:
    if isinstance(question.request, types.CreateMessageRequest):
        return types.CreateMessageResult
    return types.ElicitResult


async def _terminal(manager: RunManager, run_id: str) -> bool:
    try:
        row = await manager.row(run_id)
    except TaskplateError as error:
        if error.code != ErrorCode.RUN_NOT_FOUND:
            raise
        return True
    return RunStatus(row.status).terminal


class _RequestState(TypedDict):
    run: str
    asked: list[str]


def _read_state(text: str | None) -> _RequestState:
    """The plaintext the SDK verified (this server minted it); still read defensively."""
    try:
        state = json.loads(text or "")
        if isinstance(state.get("run"), str) and isinstance(state.get("asked"), list):
            return {"run": state["run"], "asked": [str(k) for k in state["asked"]]}
    except (ValueError, AttributeError):
        pass
    raise TaskplateError(
        ErrorCode.INVALID_PARAMETER,
        "requestState does not name a run's questions",
        "Send back the requestState of this tool's own input_required result, unchanged.",
    )


def channels_for(
    inbox: Inbox,
    ctx: Context,
    trust: TrustLevel,
    principal: Principal,
    asks: TaskAsks | None = None,
) -> tuple[ElicitingAsker | QuestionAsker, ClientSampler | QuestionSampler, RunQuestions | None]:
    """The run's ways to its caller's user and model: server requests on the handshake
    protocols; on 2026-07-28 questions that ride input_required results (then `bind` them to
    the run once it has an id). `asks`: the run is a 2025-11-25 task, asking through it."""
    if not modern(ctx):
        return asker_for(ctx, asks), ClientSampler(ctx), None
    questions = inbox.open_for(ctx, trust, principal)
    return QuestionAsker(questions), QuestionSampler(questions), questions
