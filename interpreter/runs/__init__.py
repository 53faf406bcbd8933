"""The runs of a process: the run manager (`_manager`) and the runs it holds (`_held`), a run's
inputs and limits, its queue, liveness and claims, its execution from the queue to its end, its
settlement, and the views of runs that callers read.
"""

from ._capacity import DEFAULT_QUEUED, Capacity, Share
from ._drain import DRAIN_S, RELEASED, RESUMED
from ._execution import internal
from ._inputs import Limits, check_inputs, check_timeout, new_run_id, secret_names
from ._manager import RunManager
from ._views import RunReads, iso

__all__ = [
    "DEFAULT_QUEUED",
    "DRAIN_S",
    "RELEASED",
    "RESUMED",
    "Capacity",
    "Limits",
    "RunManager",
    "RunReads",
    "Share",
    "check_inputs",
    "check_timeout",
    "internal",
    "iso",
    "new_run_id",
    "secret_names",
]
