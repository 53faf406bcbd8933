"""Test cases of templates: a case recorded from a run (`_making`), its files (`_files`), its
model and tool answers recorded and replayed (`_answers`), and a case run (`_running`).
"""

from ._answers import RecordingSampler, RecordingTools, ReplaySampler, ReplayTools
from ._files import save_case, stored_inputs
from ._making import first_case, replayed
from ._running import (
    RECORDED_BY,
    CaseResult,
    Recorded,
    checked_template,
    preflight,
    recorded_by,
    run_case,
    run_once,
    run_template,
)

__all__ = [
    "RECORDED_BY",
    "CaseResult",
    "Recorded",
    "RecordingSampler",
    "RecordingTools",
    "ReplaySampler",
    "ReplayTools",
    "checked_template",
    "first_case",
    "preflight",
    "recorded_by",
    "replayed",
    "run_case",
    "run_once",
    "run_template",
    "save_case",
    "stored_inputs",
]
