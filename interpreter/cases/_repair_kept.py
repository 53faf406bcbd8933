"""What a recording keeps for repair (`log._taskplate.elements`): the element each literal
selector matched as `dsl record` ran the case (its fingerprint: tag, text, attributes, classes,
place, parent, ancestors and neighbours; how many matched, what the field read), so that a
suggestion compares the live page with what was recorded without replaying it first. A recording
made before they were kept has none: repair reads them on an offline replay.

Reads and writes plain data only; what is read off the pages is _repair.py's PageReader's,
which reads the fingerprints back (`recorded_elements`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from taskplate.dsl import selector_spans

from ..heal import brittle
from ._repair import ELEMENTS, PageReader
from ._running import RECORDED_BY


def recording_reader(template: Path) -> PageReader:
    """A probe that reads the template's literal selectors as the case is recorded, with a
    stabler selector for each brittle one."""
    return PageReader(selector_spans(template.read_text(encoding="utf-8")), advise=True)


def keep_elements(har: dict[str, Any], reader: PageReader) -> dict[str, Any]:
    """The recording (marked by `recorded_by`) keeping the fingerprints the reader read: each
    selector's, in each loop item."""
    har["log"][RECORDED_BY][ELEMENTS] = [
        {"step": step, "path": list(path), "item": item, **seen.to_json()}
        for ((step, path), item), seen in reader.seen.items()
    ]
    return har


def brittle_warnings(reader: PageReader) -> list[str]:
    """For each brittle selector read as the case was recorded: why it is brittle, and the
    stabler selector that names its element, when one does."""
    lines = {(s.step_id, s.path): s for s in reader.spans}
    said: list[str] = []
    for (place, _), seen in reader.seen.items():
        span = lines.get(place)
        why = brittle(span.value) if span else None
        if span is None or why is None or any(span.value in line for line in said):
            continue
        better = f"; {seen.stabler!r} names the same element" if seen.stabler else ""
        said.append(
            f"line {span.line}: the selector {span.value!r} of step {span.step_id} names its "
            f"element by {why}, which a redesign changes{better}"
        )
    return said
