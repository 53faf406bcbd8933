"""What a run asked of others, kept with a case's recording: a language model's answers and
providers' tool answers. `dsl record` keeps each question (a model's prompt, a tool's action
and arguments) with its answer; `dsl test` answers the same questions from them, offline and
the same every time, whoever answered (the MCP client's sampling or an endpoint; the provider's
server, which then is neither started nor called).

Holds questions as the run asked them, secrets masked with the rest of the recording.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import ActionSpec
from taskplate.providers import ProviderCatalog
from taskplate.stdlib import Sampled, Sampler, SamplingRequest

Run = Callable[..., Awaitable[Any]]


class InOrder:
    """Recorded answers taken in the order recorded: each asking takes the first answer kept
    for the same question and not taken yet; None when none is left."""

    def __init__(
        self, kept: list[dict[str, Any]], question: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> None:
        self._left: dict[str, deque[dict[str, Any]]] = {}
        for recorded in kept:
            self._left.setdefault(_key(question(recorded)), deque()).append(recorded)

    def take(self, asked: dict[str, Any]) -> dict[str, Any] | None:
        left = self._left.get(_key(asked))
        return left.popleft() if left else None


def _key(question: dict[str, Any]) -> str:
    return json.dumps(question, sort_keys=True, ensure_ascii=False)


def _question(request: SamplingRequest) -> dict[str, Any]:
    return {
        "system": request.system,
        "messages": [{"role": m.role, "text": m.text} for m in request.messages],
    }


class RecordingSampler:
    """Asks the model the run chose and keeps every question with its answer, in the order
    asked: `RunWiring.models` is `recording.around`."""

    def __init__(self) -> None:
        self.model: Sampler | None = None
        self.answers: list[dict[str, Any]] = []

    def around(self, chosen: Sampler) -> Sampler:
        self.model = chosen
        return self

    async def sample(self, request: SamplingRequest) -> Sampled:
        assert self.model is not None, "around() gives the recorder its model"
        answer = await self.model.sample(request)
        kept = {"answer": answer.text, "via": answer.via, "model": answer.model}
        self.answers.append({**_question(request), **kept})
        return answer


class ReplaySampler:
    """Answers each question with the recorded answer to the same question (the same question
    asked again gets the next one recorded for it); a question never recorded fails."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self._answers = InOrder(answers, lambda r: {k: r.get(k) for k in ("system", "messages")})

    async def sample(self, request: SamplingRequest) -> Sampled:
        recorded = self._answers.take(_question(request))
        if recorded is not None:
            text, via, model = (str(recorded.get(k, "")) for k in ("answer", "via", "model"))
            return Sampled(text, via, model)
        raise TaskplateError(
            ErrorCode.LLM_UNAVAILABLE,
            "the recording holds no model answer for this question (the template or the page "
            "asks something it did not ask when the case was recorded)",
            "Record the case again with `dsl record`, or run it with --live.",
        )


def _call(action: Any, arguments: Any) -> dict[str, Any]:
    return {"action": action, "arguments": arguments}


def _as_json(args: dict[str, Any]) -> Any:
    """The arguments as the recording keeps them (a copy; a value JSON cannot hold, as text)."""
    return json.loads(json.dumps(args, default=str))


def _answered_by(catalog: Any, runner: Callable[[ActionSpec], Run | None]) -> Any:
    """The catalog with its providers' tools run by `runner`; without providers, itself."""
    return catalog.answered_by(runner) if isinstance(catalog, ProviderCatalog) else catalog


class RecordingTools:
    """Calls each provider tool the run calls and keeps the call (its action and arguments)
    with the answer, or the error with its code, in the order called: `RunWiring.tools` is
    `recording.around`. A call cut short (the step's timeout, the run canceled) is kept with
    neither."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def around(self, catalog: Any) -> Any:
        return _answered_by(catalog, self._kept)

    def _kept(self, spec: ActionSpec) -> Run | None:
        live = spec.run
        if live is None:  # not served: the run says so as it would unrecorded
            return None

        async def run(ctx: Any, args: dict[str, Any]) -> Any:
            call = _call(spec.name, _as_json(args))
            self.calls.append(call)
            try:
                call["answer"] = answer = await live(ctx, args)
            except TaskplateError as exc:
                call["error"] = exc.to_json()
                raise
            return answer

        return run


class ReplayTools:
    """Answers each provider call with what was recorded for the same action and arguments
    (the same call made again gets the next one recorded for it): the answer, or the error
    with its code; a call cut short when recorded waits to be cut short again. A call never
    recorded fails with PROVIDER_UNAVAILABLE. No provider is started or called."""

    def __init__(self, calls: list[dict[str, Any]]) -> None:
        self._calls = InOrder(calls, lambda c: _call(c.get("action"), c.get("arguments")))

    def around(self, catalog: Any) -> Any:
        return _answered_by(catalog, self._answering)

    def _answering(self, spec: ActionSpec) -> Run:
        async def run(ctx: Any, args: dict[str, Any]) -> Any:
            recorded = self._calls.take(_call(spec.name, _as_json(args)))
            if recorded is None:
                raise TaskplateError(
                    ErrorCode.PROVIDER_UNAVAILABLE,
                    f"the recording holds no answer for this call of {spec.name} (the template "
                    "or the page makes a call it did not make when the case was recorded)",
                    "Record the case again with `dsl record`, or run it with --live.",
                    {"provider": spec.provider},
                )
            if "answer" in recorded:
                return recorded["answer"]
            if "error" in recorded:
                raise _error(recorded["error"])
            await anyio.sleep_forever()  # cut short when recorded: the step's timeout ends it

        return run


def _error(kept: dict[str, Any]) -> TaskplateError:
    try:
        code = ErrorCode(str(kept.get("errorCode")))
    except ValueError:
        code = ErrorCode.PROVIDER_ERROR
    return TaskplateError(
        code,
        str(kept.get("error", "")),
        str(kept.get("recoverHint", "")),
        kept.get("details") if isinstance(kept.get("details"), dict) else None,
    )
