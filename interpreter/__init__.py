"""Runs templates: the run manager and its state machine, the sliding-window executor,
retries, timeouts, cancellation, trust checks, the run store (SQLite, or PostgreSQL
shared by many servers) and the artifact store.
"""

from taskplate.browser import data_home

from ._admission import MAX_URL_BYTES, admit
from ._artifacts import ArtifactStore, Chunk, RunArtifacts
from ._confirm import Answer, Asker, CannotAsk, ConfirmPolicy
from ._expectations import expectations_from
from ._library import SHIPPED, TemplateLibrary, matches
from ._principal import LOCAL, OPERATOR, Principal, space_of
from ._recorded_templates import Saved, marked, save_recorded, typed_secret, user_templates
from ._repair import Repair, suggest_repair
from ._repair_kept import brittle_warnings, keep_elements, recording_reader
from ._step_log import Progress, StepRecord, progress_text, time_left
from ._tracing import TraceMode
from .cases import (
    CaseResult,
    Recorded,
    RecordingSampler,
    RecordingTools,
    ReplaySampler,
    ReplayTools,
    checked_template,
    first_case,
    preflight,
    recorded_by,
    replayed,
    run_case,
    run_template,
    save_case,
    stored_inputs,
)
from .runs import (
    DEFAULT_QUEUED,
    Capacity,
    Limits,
    RunManager,
    RunReads,
    Share,
    check_inputs,
    check_timeout,
    internal,
    iso,
    new_run_id,
    secret_names,
)
from .store import STORE_ENV, RunRow, RunStore, Store, open_store

__all__ = [
    "DEFAULT_QUEUED",
    "LOCAL",
    "MAX_URL_BYTES",
    "OPERATOR",
    "SHIPPED",
    "STORE_ENV",
    "Answer",
    "ArtifactStore",
    "Asker",
    "CannotAsk",
    "Capacity",
    "CaseResult",
    "Chunk",
    "ConfirmPolicy",
    "Limits",
    "Principal",
    "Progress",
    "Recorded",
    "RecordingSampler",
    "RecordingTools",
    "Repair",
    "ReplaySampler",
    "ReplayTools",
    "RunArtifacts",
    "RunManager",
    "RunReads",
    "RunRow",
    "RunStore",
    "Saved",
    "Share",
    "StepRecord",
    "Store",
    "TemplateLibrary",
    "TraceMode",
    "admit",
    "brittle_warnings",
    "check_inputs",
    "check_timeout",
    "checked_template",
    "data_home",
    "expectations_from",
    "first_case",
    "internal",
    "iso",
    "keep_elements",
    "marked",
    "matches",
    "new_run_id",
    "open_store",
    "preflight",
    "progress_text",
    "recorded_by",
    "recording_reader",
    "replayed",
    "run_case",
    "run_template",
    "save_case",
    "save_recorded",
    "secret_names",
    "space_of",
    "stored_inputs",
    "suggest_repair",
    "time_left",
    "typed_secret",
    "user_templates",
]
