"""Runs templates: the run manager and its state machine, the sliding-window executor,
retries, timeouts, cancellation, trust checks, the run store (SQLite, or PostgreSQL
shared by many servers) and the artifact store.
"""

from taskplate.browser import data_home

from ._admission import MAX_URL_BYTES, admit
from ._artifacts import ArtifactStore, Chunk, RunArtifacts
from ._case_answers import RecordingSampler, RecordingTools, ReplaySampler, ReplayTools
from ._case_files import save_case, stored_inputs
from ._case_making import first_case, replayed
from ._case_runs import (
    CaseResult,
    Recorded,
    checked_template,
    preflight,
    recorded_by,
    run_case,
    run_template,
)
from ._confirm import Answer, Asker, CannotAsk, ConfirmPolicy
from ._expectations import expectations_from
from ._library import SHIPPED, TemplateLibrary, matches
from ._principal import LOCAL, OPERATOR, Principal
from ._recording import Saved, marked, save_recorded, typed_secret, user_templates
from ._repair import Repair, suggest_repair
from ._repair_kept import brittle_warnings, keep_elements, recording_reader
from ._run_execution import internal
from ._run_inputs import Limits, check_inputs, check_timeout, new_run_id, secret_names
from ._run_views import RunReads, iso
from ._runs import RunManager
from ._step_records import Progress, StepRecord
from ._store import STORE_ENV, RunRow, Store, open_store
from ._store_sqlite import RunStore
from ._tracing import TraceMode

__all__ = [
    "LOCAL",
    "MAX_URL_BYTES",
    "OPERATOR",
    "SHIPPED",
    "STORE_ENV",
    "Answer",
    "ArtifactStore",
    "Asker",
    "CannotAsk",
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
    "recorded_by",
    "recording_reader",
    "replayed",
    "run_case",
    "run_template",
    "save_case",
    "save_recorded",
    "secret_names",
    "stored_inputs",
    "suggest_repair",
    "typed_secret",
    "user_templates",
]
