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

WARNINGS = "warnings"  # what `dsl record` warned of, kept in the recording (log._taskplate)


def recording_reader(template: Path) -> PageReader:
    """A probe that reads the template's literal selectors as the case is recorded, with a
    stabler selector for each brittle one."""
    return PageReader(selector_spans(template.read_text(encoding="utf-8")), advise=True)


def keep_elements(har: dict[str, Any], reader: PageReader) -> dict[str, Any]:
    """The recording (marked by `recorded_by`) keeping the fingerprints the reader read: each
    selector's, in each loop item; and the warnings of the selectors that matched nothing."""
    unmatched = unmatched_warnings(reader)
    if unmatched:
        har["log"][RECORDED_BY][WARNINGS] = unmatched
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


def unmatched_warnings(reader: PageReader) -> list[str]:
    """For each selector that matched nothing where its step read it, in every item it was read
    in, as the case was recorded: the recording keeps no fingerprint of it, so a repair cannot
    look for its element. A record's field is named once, by the record's own selector when
    that matched nothing."""
    lines = {(s.step_id, s.path): s for s in reader.spans}
    matched = {place for (place, _), seen in reader.seen.items() if seen.count}
    said: list[str] = []
    empty: list[tuple[str, tuple[str, ...]]] = []
    for place in dict.fromkeys(place for place, _ in reader.seen):
        span = lines.get(place)
        if span is None or place in matched:
            continue
        empty.append(place)
        if any(place[0] == e[0] and place[1][: len(e[1])] == e[1] for e in empty[:-1]):
            continue  # a field of a record that matched nothing
        said.append(
            f"line {span.line}: the selector {span.value!r} of step {span.step_id} matched "
            "nothing where the step read it, so the recording keeps no fingerprint of its "
            "element and a repair cannot look for it; check the selector against the page"
        )
    return said
