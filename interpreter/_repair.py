"""Repair suggestions for a case that fails live because a selector stopped matching (`dsl test
--live --suggest`): the element each literal selector matched when the recording replays is
compared with the live page, the most alike live element's most stable selector is put in its
place, and the case is run live again with it; the change is a diff of the template's source.

Edits text at the selectors' places only (dsl's `with_selectors`); writes no file.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from taskplate.browser import check_selectors, matched_element, page_elements
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

from ._case_runs import run_once
from ._expectations import broken
from ._repair_match import ranked, selectors_for

if TYPE_CHECKING:
    from taskplate.stdlib import ActionContext

    from ._runs import RunManager

WAIT_MS = 3_000  # offline, how long a step's element may take to appear before it acts
ELEMENTS_TRIED = 5  # live elements most like the recorded one whose selectors are checked
LIVE_RUNS = 5  # live runs, at most: reading the pages, then checking each change


@dataclass
class Seen:
    """What a selector matched on a page: how many, the first one, and live, when it matched
    nothing, the selectors that name the element most like the recorded one."""

    count: int
    element: dict[str, Any] | None
    candidates: list[str] = field(default_factory=list)


Place = tuple[str, tuple[str, ...]]  # a selector: its step, and where in the step's `with`
Key = tuple[Place, int | None]  # a selector, in a loop's item


class PageReader:
    """A run's probe: reads the template's literal selectors on its pages. Reading the recording
    (`recorded` None), before each step acts; live, once a step failed, or after an `extract`
    (which reads the page as it is), with candidates for each selector that matched in the
    recording and matches nothing now."""

    def __init__(self, spans: list[SelectorSpan], recorded: dict[Key, Seen] | None = None):
        self.spans = spans
        self.recorded = recorded
        self.seen: dict[Key, Seen] = {}

    async def __call__(
        self, moment: str, step: Step, item: int | None, args: Any, ctx: ActionContext
    ) -> None:
        offline = self.recorded is None
        wanted = (
            moment == "before"
            if offline
            else moment == "failed" or (moment == "after" and step.action == "extract")
        )
        spans = [s for s in self.spans if s.step_id == step.id]
        if not wanted or not spans or not isinstance(args, dict):
            return
        try:
            page = await ctx.page()
            for span in spans:
                if (_place(span), item) not in self.seen:
                    await self._read(page, span, item, args, offline and step.action != "extract")
        except Exception:  # a probe never changes the run; what it missed is not suggested
            return

    async def _read(
        self, page: Any, span: SelectorSpan, item: int | None, args: dict[str, Any], wait: bool
    ) -> None:
        selector, root = _selector_of(args, span.path)
        if selector is None:
            return
        count, element = await matched_element(page, selector, root, WAIT_MS if wait else 0)
        seen = Seen(count, element)
        key = (_place(span), item)
        was = (self.recorded or {}).get(key)
        if self.recorded is not None and count == 0 and was is not None and was.element:
            seen.candidates = await _candidates(page, root, was)
        self.seen[key] = seen


def _place(span: SelectorSpan) -> Place:
    return span.step_id, span.path


def _selector_of(args: dict[str, Any], path: tuple[str, ...]) -> tuple[str | None, str | None]:
    """The selector at `path` of a step's arguments as rendered, and the root it is under."""
    if path[0] in ("selector", "root"):
        value = args.get(path[0])
        return (value if isinstance(value, str) else None), None
    fields = args.get("fields")
    field_ = fields.get(path[1]) if isinstance(fields, dict) else None
    selector = field_.get("selector") if isinstance(field_, dict) else field_
    root = args.get("root")
    return (selector if isinstance(selector, str) else None), (
        root if isinstance(root, str) else None
    )


async def _candidates(page: Any, root: str | None, was: Seen) -> list[str]:
    """Selectors naming the live elements most like the recorded one: each matches that
    element first, and it alone or as many as the recorded selector matched."""
    assert was.element is not None
    elements = await page_elements(page, root)
    found: list[str] = []
    for _, index in ranked(was.element, elements)[:ELEMENTS_TRIED]:
        selectors = selectors_for(elements[index])
        checks = await check_selectors(page, root, index, selectors)
        found += [
            s
            for s, (n, first) in zip(selectors, checks, strict=True)
            if first and n in (1, was.count)
        ]
    return list(dict.fromkeys(found))


@dataclass
class Repair:
    """A checked change of a template's selectors: the source before and after."""

    case: Case
    before: str
    after: str
    changes: dict[SelectorSpan, str]
    live_runs: int = 0  # live runs it took, the last one checking it

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
    """A change of the template's selectors with which the case passes live, found by reading
    the recording's pages and the live ones; ELEMENT_NOT_FOUND when there is none.

    A run stops at its first step that fails, so the selectors after it are read on a later
    run: each live run reads the pages with the changes so far, and the next takes, for each
    selector found lost, the next of its candidates."""
    before = case.template.read_text(encoding="utf-8")
    spans = {_place(s): s for s in selector_spans(before)}
    if not spans:
        raise _no_repair(
            case, "the template has no selector written as a literal", "Fix it by hand."
        )
    recorded = PageReader(list(spans.values()))
    await run_once(runs, case, template, live=False, probe=recorded)
    changes: dict[Place, str] = {}
    tried: dict[Place, list[str]] = {}
    current = template
    for done in range(1, LIVE_RUNS + 1):
        live = PageReader(list(spans.values()), recorded.seen)
        answer = await run_once(runs, case, current, live=True, probe=live)
        if changes and not broken(case.expect, answer):
            after = with_selectors(before, {spans[p]: v for p, v in changes.items()})
            return Repair(case, before, after, {spans[p]: v for p, v in changes.items()}, done)
        lost = _lost(live.seen, recorded.seen)
        if not lost and not changes:
            raise _no_repair(
                case,
                "no selector that matched in the recording matches nothing live: the case "
                "fails for another reason",
                "Read the drift above; record the case again if the site changed on purpose.",
            )
        untried = {
            p: [c for c in live.seen[k].candidates if c not in tried.get(p, [])]
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
        after = with_selectors(before, {spans[p]: v for p, v in changes.items()})
        patched = check_source(after, str(case.template), runs.wiring.catalog).template
        if patched is None:
            break
        current = patched
    said = ", ".join(f"{v!r}" for found in tried.values() for v in found)
    raise _no_repair(
        case,
        f"the selectors most like the recorded elements ({said}) do not make the case pass live",
        "Fix the selector by hand, or record the case again if the site changed on purpose.",
    )


def _lost(live: dict[Key, Seen], recorded: dict[Key, Seen]) -> dict[Place, Key]:
    """The selectors that matched an element in the recording and match nothing live, each
    with the first item where they do not."""
    lost: dict[Place, Key] = {}
    for key, seen in live.items():
        was = recorded.get(key)
        if seen.count == 0 and was is not None and was.element and key[0] not in lost:
            lost[key[0]] = key
    return lost
