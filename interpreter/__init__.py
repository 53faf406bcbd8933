"""Runs templates: the run manager and its state machine, the sliding-window executor,
retries, timeouts, cancellation, trust checks, the SQLite run store and the artifact store.
"""

from taskplate.browser import data_home

from ._admission import MAX_URL_BYTES, admit
from ._artifacts import ArtifactStore, Chunk
from ._confirm import Answer, Asker, CannotAsk, ConfirmPolicy
from ._executor import Progress, StepRecord
from ._library import SHIPPED, TemplateLibrary, matches
from ._recording import Saved, marked, save_recorded, typed_secret, user_templates
from ._runs import Limits, RunManager, check_inputs, new_run_id
from ._store import RunStore
from ._tracing import TraceMode

__all__ = [
    "MAX_URL_BYTES",
    "SHIPPED",
    "Answer",
    "ArtifactStore",
    "Asker",
    "CannotAsk",
    "Chunk",
    "ConfirmPolicy",
    "Limits",
    "Progress",
    "RunManager",
    "RunStore",
    "Saved",
    "StepRecord",
    "TemplateLibrary",
    "TraceMode",
    "admit",
    "check_inputs",
    "data_home",
    "marked",
    "matches",
    "new_run_id",
    "save_recorded",
    "typed_secret",
    "user_templates",
]
