"""Confirmation before a step: the template's `confirm:` question, or an action that declares
it needs one (`requires_confirm`) for remote callers. Asks the caller's user through an `Asker`
(MCP elicitation, a terminal); decides alone only by the operator's `--confirm` setting."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.dsl import ActionSpec, Step


class ConfirmPolicy(enum.StrEnum):
    """What a local caller's confirmation is when its client cannot ask (`--confirm`)."""

    ASK = "ask"  # ask on the terminal (`dsl run`), else refused
    ALLOW = "allow"  # taken as given
    DENY = "deny"  # refused


class Answer(enum.StrEnum):
    ACCEPT = "accept"
    DECLINE = "decline"
    CANCEL = "cancel"


class CannotAsk(Exception):
    """The channel turned out not to reach a person (no back-channel, the client refused)."""


class Asker(Protocol):
    """The caller's way to its user: MCP elicitation, a terminal prompt."""

    via: str  # "elicitation", "terminal": recorded with every answer

    def can_ask(self) -> bool: ...

    async def ask(self, message: str) -> Answer:
        """The person's answer; CannotAsk when the channel cannot carry the question."""
        ...


@dataclass(frozen=True)
class Confirmation:
    """A confirmation's outcome: what the step does, and what the trace records."""

    asked: dict[str, Any]  # {question, answer, by}
    outcome: str  # run | skip | fail | cancel
    error: TaskplateError | None = None


def needs_confirmation(step: Step, spec: ActionSpec, trust: TrustLevel) -> bool:
    return step.confirm is not None or (spec.requires_confirm and trust is TrustLevel.REMOTE)


def default_question(spec: ActionSpec, args_text: str) -> str:
    who = "" if spec.provider == "builtin" else f" of {spec.provider}"
    return f'Allow "{spec.name}"{who} ({spec.level}, has side effects) with {args_text}?'


@dataclass
class Confirmer:
    """One run's confirmations: who is asked, and the operator's setting for local callers."""

    trust: TrustLevel
    asker: Asker | None = None  # the caller's channel (MCP elicitation)
    policy: ConfirmPolicy = ConfirmPolicy.ASK
    terminal: Asker | None = None  # `dsl run` on a terminal: asked under --confirm ask

    async def confirm(self, step: Step, spec: ActionSpec, question: str) -> Confirmation:
        answer, by = await self._answer(question)
        asked = {"question": question, "answer": answer, "by": by}
        if answer == Answer.ACCEPT:
            return Confirmation(asked, "run")
        if answer == Answer.CANCEL:
            return Confirmation(asked, "cancel")
        if answer == Answer.DECLINE:
            if step.on_decline == "skip":
                return Confirmation(asked, "skip")
            return Confirmation(
                asked,
                "fail",
                TaskplateError(
                    ErrorCode.CONFIRMATION_DECLINED,
                    f"step {step.label}: the user declined: {question}",
                    "Run it again when the user agrees, or let the step say onDecline: skip.",
                ),
            )
        return Confirmation(asked, "fail", self._refusal(step, spec, by))

    async def _answer(self, question: str) -> tuple[str, str]:
        for asker in (self.asker, self.terminal if self.policy is ConfirmPolicy.ASK else None):
            if asker is None or not asker.can_ask():
                continue
            if asker is self.terminal and self.trust is TrustLevel.REMOTE:
                continue  # the operator's terminal never answers for a remote caller
            try:
                return str(await asker.ask(question)), asker.via
            except CannotAsk:
                continue
        if self.trust is TrustLevel.REMOTE:
            return "refused", "nobody to ask"
        if self.policy is ConfirmPolicy.ALLOW:
            return str(Answer.ACCEPT), "--confirm allow"
        if self.policy is ConfirmPolicy.DENY:
            return "refused", "--confirm deny"
        return "refused", "nobody to ask"

    def _refusal(self, step: Step, spec: ActionSpec, by: str) -> TaskplateError:
        if by == "--confirm deny":
            why = "the operator refuses confirmations (--confirm deny)"
            hint = "Ask the operator, or run without --confirm deny."
        elif self.trust is TrustLevel.REMOTE:
            why = "the client cannot ask its user (it declared no elicitation capability)"
            hint = "Use a client that supports MCP elicitation (form mode), or run the template locally."
        else:
            why = "nobody can be asked (the client has no elicitation, no terminal)"
            hint = "Use a client with MCP elicitation, run dsl run on a terminal, or start with --confirm allow."
        return TaskplateError(
            ErrorCode.CONFIRMATION_REQUIRED,
            f"step {step.label} ({spec.name}) needs the user's confirmation, and {why}",
            hint,
            {"provider": spec.provider} if spec.provider != "builtin" else {},
        )
