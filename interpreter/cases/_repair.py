"""Repair suggestions for a case that fails live because a selector stopped matching, or matches
another element now (a look-alike, a field's attribute renamed, a list grown or shrunk: `dsl
test --live --suggest`): the element each literal selector matched when the recording replays
is compared with the live page, the most alike live element's most stable selector (and, for
an attribute read, the attribute holding the recorded value) is put in its place, and the case
is run live again with it; the change is a diff of the template's source. A selector that still
names the element most like the recorded one keeps it.

Edits text at the selectors' places only (dsl's `with_selectors`); writes no file.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taskplate.browser import (
    check_selectors,
    matched_element,
    matched_reads,
    page_elements,
    read_har,
    reads_of_each,
)
from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import (
    Case,
    SelectorSpan,
    Step,
    Template,
    check_source,
    selector_spans,
    with_selectors,
)

from ..heal import (
    Candidate,
    Seen,
    attr_reading,
    brittle,
    excluding,
    learned_list,
    ranked,
    regrown,
    selector_of,
    selectors_for,
)
from ._expectations import broken, in_recorded_order, same_items
from ._repair_why import reads_reordered, why_no_repair, why_reordered
from ._running import RECORDED_BY, run_once

if TYPE_CHECKING:
    from taskplate.stdlib import ActionContext

    from ..runs import RunManager

WAIT_MS = 3_000  # offline, how long a step's element may take to appear before it acts
ELEMENTS_TRIED = 5  # live elements most like the recorded one whose selectors are checked
LIVE_RUNS = 5  # live runs, at most: reading the pages, then checking each change
ELEMENTS = "elements"  # where a recording keeps the fingerprints (log._taskplate.elements)
# Actions that read their elements where they stand, as they end (extract once its lists have
# stopped growing): their fingerprints are taken after them. The others act on their element
# (a click, a fill) and may take the page away: theirs are taken before, waited for as they wait.
READ_AFTER = frozenset({"extract", "get_page_content", "read_page", "screenshot", "snapshot"})


Place = tuple[str, tuple[str, ...]]  # a selector: its step, and where in the step's `with`
Key = tuple[Place, int | None]  # a selector, in a loop's item


class PageReader:
    """A run's probe: reads the template's literal selectors on its pages where each step reads
    them (`read_now`). Reading the recording (`recorded` None): the fingerprints; live, once a
    step failed, or after a reading step, with candidates for each selector that matched in the
    recording and matches nothing now."""

    def __init__(
        self,
        spans: list[SelectorSpan],
        recorded: dict[Key, Seen] | None = None,
        *,
        advise: bool = False,
    ):
        self.spans = spans
        self.recorded = recorded
        self.advise = advise  # `dsl record`: a stabler selector for each brittle one
        self.seen: dict[Key, Seen] = {}

    async def __call__(
        self, moment: str, step: Step, item: int | None, args: Any, ctx: ActionContext
    ) -> None:
        offline = self.recorded is None
        spans = [s for s in self.spans if s.step_id == step.id]
        if not read_now(moment, step.action, offline) or not spans or not isinstance(args, dict):
            return
        try:
            page = await ctx.page()
            for span in spans:
                if (_place(span), item) not in self.seen:
                    await self._read(page, span, item, args, offline and moment == "before")
        except Exception:  # a probe never changes the run; what it missed is not suggested
            return

    async def _read(
        self, page: Any, span: SelectorSpan, item: int | None, args: dict[str, Any], wait: bool
    ) -> None:
        selector, root, field_ = selector_of(args, span.path)
        if selector is None:
            return
        count, element = await matched_element(page, selector, root, WAIT_MS if wait else 0)
        attr = field_.get("attr") if isinstance(field_, dict) else None
        read = (element["attrs"].get(attr) if attr else element["text"]) if element else None
        many = isinstance(field_, dict) and field_.get("all") is True
        left = bare = None
        if many and count:  # a list is read whole: every match, in order
            read = json.dumps(await matched_reads(page, selector, root, attr))
            if self.recorded is None and count > 1:  # what the list rules heal by (`regrown`)
                left, bare = await learned_list(page, selector, root)
        seen = Seen(count, element, read, many, left=left, bare=bare)
        key = (_place(span), item)
        was = (self.recorded or {}).get(key)
        if self.recorded is not None and was is not None and seen.strayed(was):
            # a list that lost items or gained look-alikes is read as it was first, as runs
            # heal it; then the elements most like the recorded one
            whole = await regrown(page, args, span.path, was, reordered=True) if was.many else None
            seen.candidates = [(whole[0], None)] if isinstance(whole, tuple) else []
            seen.candidates += await _candidates(page, root, was, selector, attr)
        if self.advise and element is not None and brittle(selector):
            seen.stabler = await _stabler(page, root, element, count)
        self.seen[key] = seen


def read_now(moment: str, action: str | None, fingerprints: bool) -> bool:
    """Whether a step's selectors are read at `moment` ("before", "after" or "failed"): for
    the fingerprints (recording, or a run that succeeded), where the step reads its element; to
    compare with them (live), where a step failed, or after a reading step."""
    after = action in READ_AFTER
    if fingerprints:
        return moment in ("after", "failed") if after else moment == "before"
    return moment == "failed" or (moment == "after" and after)


def _place(span: SelectorSpan) -> Place:
    return span.step_id, span.path


async def _candidates(
    page: Any, root: str | None, was: Seen, selector: str, attr: str | None
) -> list[Candidate]:
    """What may name the live elements most like the recorded one: selectors that match that
    element first, and it alone or as many as the recorded selector matched (exactly as many,
    for a field that reads every match), each with the attribute that holds the recorded value
    when the field read one. None when `selector` names the most alike element still."""
    assert was.element is not None
    elements = await page_elements(page, root)
    found: list[Candidate] = []
    for rank, (_, index) in enumerate(ranked(was.element, elements)[:ELEMENTS_TRIED]):
        element = elements[index]
        reading = attr_reading(element, attr, was.element["attrs"].get(attr or ""))
        if reading is False:
            continue  # no attribute of it holds the recorded value
        reads = reading if isinstance(reading, str) else None
        selectors = [selector, *selectors_for(element)]
        if rank == 0:  # kept off the look-alikes the selector matches now
            texts = set(json.loads(was.read or "[]")) if was.many else {was.element["text"]}
            strays = [e for e in elements if _alike_stray(e, element, was.element, texts)]
            selectors += excluding([selector, *selectors[1:3]], element, strays)
            selectors.sort(key=lambda s: ":nth-of-type" in s)  # a place last: the least stable
        checks = await check_selectors(page, root, index, selectors)
        fit = [
            s
            for s, (n, first) in zip(selectors, checks, strict=True)
            if first and (n == was.count if was.many else n in (1, was.count))
        ]
        if rank == 0 and selector in fit and reads is None and not was.many:
            return []  # the selector names the recorded element still: kept (a list: checked whole)
        found += [(s, reads) for s in fit if s != selector or reads]
    found = list(dict.fromkeys(found))
    return await _lists_first(page, root, was, attr, found) if was.many else found


async def _lists_first(
    page: Any, root: str | None, was: Seen, attr: str | None, found: list[Candidate]
) -> list[Candidate]:
    """A list field's candidates, those that read the recorded list now first, then those
    that read its items in another order, then the rest: each costs a live run to check."""
    recorded = json.loads(was.read or "[]")
    plain = [c for c in found if c[1] is None]
    reads = await reads_of_each(page, [c[0] for c in plain], root, attr)
    rank = {
        c: 0 if got == recorded else 1 if same_items(got, recorded) else 2
        for c, got in zip(plain, reads, strict=True)
        if got is not None
    }
    return sorted(found, key=lambda c: rank.get(c, 2))


async def _stabler(page: Any, root: str | None, element: dict[str, Any], count: int) -> str | None:
    """The most stable selector, by repair's ranking, that names `element` first and as many
    elements as the brittle one does (it alone when that named one)."""
    elements = await page_elements(page, root)
    index = next((i for i, e in enumerate(elements) if e == element), None)
    if index is None:
        return None
    selectors = [s for s in selectors_for(element) if not brittle(s)]
    checks = await check_selectors(page, root, index, selectors)
    return next(
        (s for s, (n, first) in zip(selectors, checks, strict=True) if first and n == count),
        None,
    )


def _alike_stray(
    e: dict[str, Any], best: dict[str, Any], recorded: dict[str, Any], texts: set[str]
) -> bool:
    """Whether `e` is a look-alike of the recorded element: its tag (or the live element's,
    when the site retagged it) and a class (any, when the recorded element had none: a table's
    caption), not a text the field read."""
    return (
        e is not best
        and e["tag"] in (recorded["tag"], best["tag"])
        and (not recorded["classes"] or bool(set(e["classes"]) & set(recorded["classes"])))
        and e["text"] not in texts
    )


def recorded_elements(recording: Path) -> dict[Key, Seen] | None:
    """The fingerprints the case's recording keeps, or None when it keeps none."""
    try:
        made = read_har(recording)["log"].get(RECORDED_BY, {})
    except Exception:  # an unreadable recording: the replay says why
        return None
    kept = made.get(ELEMENTS) if isinstance(made, dict) else None
    if not isinstance(kept, list):
        return None
    try:
        return {((k["step"], tuple(k["path"])), k["item"]): Seen.from_json(k) for k in kept}
    except (KeyError, TypeError):  # not as `dsl record` keeps them: read on a replay
        return None


@dataclass
class Repair:
    """A checked change of a template's selectors: the source before and after."""

    case: Case
    before: str
    after: str
    changes: dict[SelectorSpan, str]
    live_runs: int = 0  # live runs it took, the last one checking it
    # the lists (JSON pointers in the output) that read every recorded item with it, in the
    # page's new order: the site reordered them, and the case passes once recorded again
    reordered: tuple[str, ...] = ()

    @property
    def diff(self) -> str:
        name = self.case.template.name
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                f"a/{name}",
                f"b/{name}",
            )
        )


def _no_repair(case: Case, problem: str, hint: str) -> TaskplateError:
    return TaskplateError(ErrorCode.ELEMENT_NOT_FOUND, f"{case.id}: {problem}", hint)


async def suggest_repair(runs: RunManager, case: Case, template: Template) -> Repair:
    """A change of the template's selectors (and attributes read) with which the case passes
    live, found by reading the recording's pages and the live ones; ELEMENT_NOT_FOUND when
    there is none.

    A run stops at its first step that fails, so the selectors after it are read on a later
    run: each live run reads the pages with the changes so far, and the next takes, for each
    selector found lost, the next of its candidates."""
    before = case.template.read_text(encoding="utf-8")
    spans = {_place(s): s for s in selector_spans(before)}
    attrs = {
        (s.step_id, s.path[:-1]): s
        for s in selector_spans(before, attrs=True)
        if s.path[-1:] == ("attr",)
    }
    if not spans:
        raise _no_repair(
            case, "the template has no selector written as a literal", "Fix it by hand."
        )
    recorded = PageReader(list(spans.values()))
    kept = recorded_elements(case.recording) or {}
    if not kept or any(seen.element is None for seen in kept.values()):
        # a recording made before `dsl record` kept them, or read before a step's element was
        # there (an older `dsl record` read a list a script draws before extract waited for it)
        await run_once(runs, case, template, live=False, probe=recorded)
    recorded.seen |= {key: seen for key, seen in kept.items() if seen.element is not None}
    changes: dict[Place, Candidate] = {}
    tried: dict[Place, list[Candidate]] = {}
    current = template

    def edits() -> dict[SelectorSpan, str]:
        out = {spans[p]: c[0] for p, c in changes.items() if c[0] != spans[p].value}
        out.update({attrs[p]: c[1] for p, c in changes.items() if c[1] and p in attrs})
        return out

    reordered: Repair | None = None  # a change with which only the site's new order differs
    for done in range(1, LIVE_RUNS + 1):
        live = PageReader(list(spans.values()), recorded.seen)
        answer = await run_once(runs, case, current, live=True, probe=live)
        if changes and not broken(case.expect, answer):
            return Repair(case, before, with_selectors(before, edits()), edits(), done)
        if changes and reordered is None and (lists := _only_reordered(case, answer)):
            reordered = Repair(case, before, with_selectors(before, edits()), edits(), done, lists)
        lost = _lost(live.seen, recorded.seen)
        if not lost and not changes:
            problem, hint = why_no_repair(spans, live.seen, recorded.seen, answer)
            raise _no_repair(case, problem, hint)
        if not changes and (why := why_reordered(spans, lost, live.seen, recorded.seen)):
            raise _no_repair(case, *why)
        # a list reading its recorded items in another order is kept: no selector undoes that
        lost = {
            p: k for p, k in lost.items() if not reads_reordered(live.seen[k], recorded.seen[k])
        }
        untried = {
            p: [
                c
                for c in live.seen[k].candidates
                if c not in tried.get(p, []) and (c[1] is None or p in attrs)
            ]
            for p, k in lost.items()
        }
        if not any(untried.values()):
            if not tried:
                where = ", ".join(f"{spans[p].value!r} (line {spans[p].line})" for p in lost)
                raise _no_repair(
                    case,
                    f"no element of the live page is like the one {where} matched in the recording",
                    "Fix the selector by hand (`snapshot` lists a page's elements).",
                )
            break
        for place, found in untried.items():
            if found:
                changes[place] = found[0]
                tried.setdefault(place, []).append(found[0])
        patched = check_source(
            with_selectors(before, edits()), str(case.template), runs.wiring.catalog
        )
        if patched.template is None:
            break
        current = patched.template
    if reordered is not None:  # no change made the case pass as recorded: the site reordered
        return reordered
    said = ", ".join(
        f"{c[0]!r}" + (f" (attr {c[1]})" if c[1] else "") for found in tried.values() for c in found
    )
    raise _no_repair(
        case,
        f"the selectors most like the recorded elements ({said}) do not make the case pass live",
        "Fix the selector by hand, or record the case again if the site changed on purpose.",
    )


def _only_reordered(case: Case, answer: dict[str, Any]) -> tuple[str, ...]:
    """The lists of the output (JSON pointers) that read the recorded items in another order,
    when the case would pass with them in the recorded order; empty otherwise."""
    want = case.expect.get("output") or {}
    recorded = want.get("equals", want.get("subset"))
    if recorded is None:
        return ()
    result, lists = in_recorded_order(recorded, answer.get("result"))
    if not lists or broken(case.expect, {**answer, "result": result}):
        return ()
    return tuple(lists)


def _lost(live: dict[Key, Seen], recorded: dict[Key, Seen]) -> dict[Place, Key]:
    """The selectors that lost the element they matched in the recording (they match nothing
    now, or another element is what they read), each with the first item where they did."""
    lost: dict[Place, Key] = {}
    for key, seen in live.items():
        was = recorded.get(key)
        if was is None or key[0] in lost or not seen.strayed(was):
            continue
        if seen.count == 0 or seen.candidates:
            lost[key[0]] = key
    return lost
