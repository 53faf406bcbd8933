"""Why a case that fails live gets no repair, said as it is: a selector that matched nothing when
recorded (so no fingerprint to look for its element by), elements the site changed, or a
failure that is not a selector's.

Pure: reads what the probes saw and the live run's answer; runs nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from taskplate.dsl import SelectorSpan

from ._expectations import same_items

Place = tuple[str, tuple[str, ...]]  # a selector: its step, and where in the step's `with`
Key = tuple[Place, int | None]  # a selector, in a loop's item


class Reading(Protocol):
    """What a probe saw of a selector (_repair.py's Seen)."""

    count: int
    element: dict[str, Any] | None
    read: str | None
    many: bool

    def strayed(self, was: Any) -> bool: ...


def why_no_repair(
    spans: Mapping[Place, SelectorSpan],
    live: Mapping[Key, Reading],
    recorded: Mapping[Key, Reading],
    answer: dict[str, Any],
) -> tuple[str, str]:
    """The problem and the hint, when no selector the live run read lost an element it matched
    in the recording."""

    def named(places: list[Place]) -> str:
        said = [f"{spans[p].value!r} (line {spans[p].line})" for p in dict.fromkeys(places)]
        return f"selector{'s' * (len(said) > 1)} {', '.join(said)}"

    blind = [
        key[0]
        for key, seen in live.items()
        if seen.count == 0 and key[0] in spans and _unprinted(recorded.get(key))
    ]
    if blind:
        return (
            f"the {named(blind)} found nothing live, and the recording keeps no element "
            "matched by it (it matched nothing as the case was recorded): there is no "
            "fingerprint to look for the element by",
            "Fix the selector by hand (`snapshot` lists a page's elements); `dsl record` warns "
            "of a selector that matches nothing, so record the case again once it matches.",
        )
    moved = [
        key[0]
        for key, seen in live.items()
        if key in recorded and key[0] in spans and seen.strayed(recorded[key])
    ]
    if len(set(moved)) == 1:
        return (
            f"the {named(moved)} names the element most like the recorded one, which reads "
            "another value now: the site changed it",
            "Read the drift above; record the case again if the site changed on purpose.",
        )
    if moved:
        return (
            f"the {named(moved)} name the elements most like the recorded ones, which read "
            "other values now: the site changed them",
            "Read the drift above; record the case again if the site changed on purpose.",
        )
    error = answer.get("error") or {}
    if error:
        return (
            "every selector the live run read names the element it matched in the recording; "
            f"the run failed otherwise: {error.get('errorCode')}: {error.get('error')}",
            "Read the failure above: it is not a selector's to repair.",
        )
    return (
        "every selector the live run read names the element it matched in the recording and "
        "reads what it read then: the output differs for another reason",
        "Read the diff above; record the case again if the site changed on purpose.",
    )


def why_reordered(
    spans: Mapping[Place, SelectorSpan],
    lost: Mapping[Place, Key],
    live: Mapping[Key, Reading],
    recorded: Mapping[Key, Reading],
) -> tuple[str, str] | None:
    """The problem and the hint when every selector that lost its element is a list reading
    the items it recorded, all of them and no other, in another order: the site reordered it,
    which no selector undoes (None otherwise)."""
    if not lost or not all(reads_reordered(live[k], recorded[k]) for k in lost.values()):
        return None
    said = [f"{spans[p].value!r} (line {spans[p].line})" for p in lost]
    return (
        f"the list{'s' * (len(said) > 1)} {', '.join(said)} read{'s' * (len(said) == 1)} the "
        "items recorded, in another order: the site reordered them, which no selector undoes",
        "Record the case again if the new order is the site's (`dsl record`).",
    )


def reads_reordered(seen: Reading, was: Reading) -> bool:
    """Whether a list reads the items it recorded, all of them and no other, in another order."""
    try:
        now, before = json.loads(seen.read or "null"), json.loads(was.read or "null")
    except ValueError:
        return False
    if not (seen.many and was.many and isinstance(now, list) and isinstance(before, list)):
        return False
    return now != before and same_items(now, before)


def _unprinted(was: Reading | None) -> bool:
    """Whether the recording keeps no element for a selector (it matched nothing, or was not
    read) to look for by its fingerprint."""
    return was is None or was.element is None
