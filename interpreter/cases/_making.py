"""Making a test case of a recording: the case replayed once offline as `dsl test` will run it
(`replayed`, which `dsl record` uses to keep only what replays the same), and the first case
of a template saved from a recorded browser session (`first_case`, save_template's).

A replay runs in a run manager of its own, with a data home of its own that goes with it: the
caller's manager may be running other work, and its runs are never replayed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from taskplate.browser import HarRecording, masked_har, write_har
from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import Case, case_file_of, now_iso
from taskplate.stdlib import REGISTRY

from .._library import TemplateLibrary
from ..runs import Limits, RunManager, secret_names
from ._expectations import expectations_from
from ._files import save_case, secret_reference
from ._running import recorded_by, run_case

FIRST = "first"  # the name of a saved template's first case


async def replayed(
    path: Path, case: dict[str, Any], library: TemplateLibrary, limits: Limits | None = None
) -> dict[str, Any]:
    """The case (as a case file holds it) run once offline from its recording; its answer."""
    replay = Case(
        file=case_file_of(path),
        line=1,
        template=path.resolve(),
        name=case["name"],
        inputs=case["inputs"],
        recording=(path.parent / case["recording"]).resolve(),
        clock=case["clock"],
        expect={},
    )
    library.offline = True  # every provider call answered from the recording: none starts
    with tempfile.TemporaryDirectory(prefix="taskplate-replay-") as home:
        runs = RunManager(Path(home), library, limits=limits)
        async with runs.running():
            result = await run_case(runs, replay, live=False)
    if result.error:
        raise TaskplateError(
            ErrorCode.EXECUTION_ERROR,
            f"the recording of {path.stem}/{case['name']} does not replay: {result.error}",
            "Report it: a recording taskplate made should replay.",
        )
    return result.answer


async def first_case(path: Path, recording: HarRecording, secrets: list[str]) -> Path:
    """The first case of the template at `path`, saved from a session whose every context was
    recorded into `recording` (each closed: each wrote its HAR): the recording written beside
    the template with `secrets` masked, the case's expectations those of its replay (no
    template run went before it to compare with: the session's calls were tools, one by one).
    A session calls the built-in browser actions only: its template is checked and replayed
    with those. Returns the case file."""
    library = TemplateLibrary(REGISTRY).load([])
    template = library.add_file(path)
    if template is None:
        problems = "; ".join(d.message for d in library.rejected.get(str(path), []))
        raise TaskplateError(
            ErrorCode.EXECUTION_ERROR,
            f"{path}: the saved template does not check: {problems or 'it cannot be read'}",
            "Report it: a template taskplate saved should check.",
        )
    target = path.parent / f"{path.stem}.recordings" / f"{FIRST}.har"
    write_har(masked_har(recorded_by(recording.merged(), path, FIRST, [], []), secrets), target)
    case: dict[str, Any] = {
        "name": FIRST,
        # the session's values are the inputs' defaults; a secret has none: its variable
        "inputs": {k: secret_reference(k) for k in secret_names(template.inputs_schema)},
        "recording": str(target.relative_to(path.parent)),
        "clock": now_iso(),
        "expect": {},
    }
    answer = await replayed(path, case, library)
    case["expect"] = expectations_from(answer, answer)
    return save_case(path, case)
