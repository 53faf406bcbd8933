"""The contract's vocabulary: error codes, trust and capability levels, run and step states.

Names and values are exactly those of SPEC.md; every layer imports them from `taskplate.contract`.
"""

from __future__ import annotations

import enum
from typing import Any

from ._text import valid_text, valid_unicode


class ErrorCode(enum.StrEnum):
    INVALID_PARAMETER = "INVALID_PARAMETER"
    TEMPLATE_NOT_FOUND = "TEMPLATE_NOT_FOUND"
    TEMPLATE_VERSION_UNSUPPORTED = "TEMPLATE_VERSION_UNSUPPORTED"
    TRUST_LEVEL_NOT_ALLOWED = "TRUST_LEVEL_NOT_ALLOWED"
    URL_NOT_ALLOWED = "URL_NOT_ALLOWED"
    RUN_NOT_FOUND = "RUN_NOT_FOUND"
    RUN_QUEUE_FULL = "RUN_QUEUE_FULL"
    RUN_TIMEOUT = "RUN_TIMEOUT"
    RUN_INTERRUPTED = "RUN_INTERRUPTED"
    RUN_NOT_RESUMABLE = "RUN_NOT_RESUMABLE"  # its owner died; it cannot go on elsewhere (why)
    STEP_MAY_HAVE_TAKEN_EFFECT = "STEP_MAY_HAVE_TAKEN_EFFECT"  # an L1/L2 step in flight at a death
    STEP_EXECUTION_FAILED = "STEP_EXECUTION_FAILED"
    OUTPUT_SCHEMA_MISMATCH = "OUTPUT_SCHEMA_MISMATCH"
    ARTIFACT_NOT_FOUND = "ARTIFACT_NOT_FOUND"
    ARTIFACT_EXPIRED = "ARTIFACT_EXPIRED"
    SESSION_NOT_FOUND = "SESSION_NOT_FOUND"
    ELEMENT_NOT_FOUND = "ELEMENT_NOT_FOUND"
    NAVIGATION_TIMEOUT = "NAVIGATION_TIMEOUT"
    NAVIGATION_FAILED = "NAVIGATION_FAILED"
    PAGE_CRASHED = "PAGE_CRASHED"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    STEP_TIMEOUT = "STEP_TIMEOUT"
    ASSERTION_FAILED = "ASSERTION_FAILED"
    TEMPLATE_DISABLED = "TEMPLATE_DISABLED"
    PROVIDER_TIMEOUT = "PROVIDER_TIMEOUT"
    PROVIDER_UNAVAILABLE = "PROVIDER_UNAVAILABLE"
    PROVIDER_ERROR = "PROVIDER_ERROR"
    CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"
    CONFIRMATION_DECLINED = "CONFIRMATION_DECLINED"
    HUMAN_TIMEOUT = "HUMAN_TIMEOUT"
    HUMAN_DECLINED = "HUMAN_DECLINED"
    BROWSER_UNAVAILABLE = "BROWSER_UNAVAILABLE"
    BROWSER_DISCONNECTED = "BROWSER_DISCONNECTED"
    SAMPLING_UNSUPPORTED = "SAMPLING_UNSUPPORTED"
    LLM_UNAVAILABLE = "LLM_UNAVAILABLE"
    LLM_OUTPUT_INVALID = "LLM_OUTPUT_INVALID"
    TAB_IN_USE = "TAB_IN_USE"


# Codes a step may fail with, and so may name in `retry.on`.
STEP_ERROR_CODES = (
    ErrorCode.ELEMENT_NOT_FOUND,
    ErrorCode.NAVIGATION_TIMEOUT,
    ErrorCode.NAVIGATION_FAILED,
    ErrorCode.PAGE_CRASHED,
    ErrorCode.EXECUTION_ERROR,
    ErrorCode.URL_NOT_ALLOWED,
    ErrorCode.INVALID_PARAMETER,
    ErrorCode.SESSION_NOT_FOUND,
    ErrorCode.STEP_TIMEOUT,
    ErrorCode.ASSERTION_FAILED,
    ErrorCode.PROVIDER_TIMEOUT,
    ErrorCode.PROVIDER_UNAVAILABLE,
    ErrorCode.PROVIDER_ERROR,
    ErrorCode.CONFIRMATION_REQUIRED,
    ErrorCode.CONFIRMATION_DECLINED,
    ErrorCode.HUMAN_TIMEOUT,
    ErrorCode.HUMAN_DECLINED,
    ErrorCode.BROWSER_UNAVAILABLE,
    ErrorCode.BROWSER_DISCONNECTED,
    ErrorCode.SAMPLING_UNSUPPORTED,
    ErrorCode.LLM_UNAVAILABLE,
    ErrorCode.LLM_OUTPUT_INVALID,
    ErrorCode.TAB_IN_USE,
)


class TaskplateError(Exception):
    """Every error a user can see: a stable code, a message, what to do next, and details."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        recover_hint: str = "",
        details: dict[str, Any] | None = None,
    ) -> None:
        # made valid Unicode here: a message may quote a page or a provider (a lone surrogate)
        message = valid_text(message)
        super().__init__(message)
        self.code = code
        self.message = message
        self.recover_hint = valid_text(recover_hint)
        self.details = valid_unicode(details or {})

    def to_json(self) -> dict[str, Any]:
        return {
            "error": self.message,
            "errorCode": str(self.code),
            "recoverHint": self.recover_hint,
            "details": self.details,
        }


class TrustLevel(enum.StrEnum):
    LOCAL = "local"
    REMOTE = "remote"


class Level(enum.StrEnum):
    """An action's capability level: L0 read-only, L1 page side effects, L2 host access."""

    L0 = "L0"
    L1 = "L1"
    L2 = "L2"

    def allowed_for(self, trust: TrustLevel) -> bool:
        return trust is TrustLevel.LOCAL or self is not Level.L2


class RunStatus(enum.StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    WAITING_FOR_HUMAN = "waiting_for_human"  # a hand_over step waits for a person
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    PARTIAL_SUCCESS = "partial_success"
    CANCELED = "canceled"

    @property
    def terminal(self) -> bool:
        return self not in (RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.WAITING_FOR_HUMAN)


class StepStatus(enum.StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    WAITING_FOR_HUMAN = "waiting_for_human"  # a hand_over step waits for a person
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"
