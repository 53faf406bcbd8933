"""Test cases of templates: a case recorded from a run (`_making`), its files (`_files`), its
model and tool answers recorded and replayed (`_answers`), and a case run (`_running`); a
finished run checked against its case (`_expectations`) and repairs suggested for selectors
that stopped matching (`_repair`, `_repair_kept`, over `interpreter/heal/`).
"""

from ._answers import RecordingSampler, RecordingTools, ReplaySampler, ReplayTools
from ._expectations import expectations_from
from ._files import save_case, stored_inputs
from ._making import first_case, replayed
from ._repair import Repair, suggest_repair
from ._repair_apply import (
    Applied,
    Patch,
    apply_in_scratch,
    apply_repair,
    apply_run_repair,
    patch_of_run,
)
from ._repair_kept import (
    brittle_warnings,
    keep_elements,
    recording_reader,
    unmatched_warnings,
)
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
    "Applied",
    "CaseResult",
    "Patch",
    "Recorded",
    "RecordingSampler",
    "RecordingTools",
    "Repair",
    "ReplaySampler",
    "ReplayTools",
    "apply_in_scratch",
    "apply_repair",
    "apply_run_repair",
    "brittle_warnings",
    "checked_template",
    "expectations_from",
    "first_case",
    "keep_elements",
    "patch_of_run",
    "preflight",
    "recorded_by",
    "recording_reader",
    "replayed",
    "run_case",
    "run_once",
    "run_template",
    "save_case",
    "stored_inputs",
    "suggest_repair",
    "unmatched_warnings",
]
