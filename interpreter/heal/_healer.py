"""A run's healer: it learns the fingerprint of what each literal selector of the template
matched (a succeeded run keeps them, `learned`), and when a selector finds nothing, or an
extract field reads nothing, looks for the element by the fingerprint kept before: with `heal:
apply` the step runs again with the relocated element when one candidate is clearly best; with
`suggest` the change is only offered; either way as `repairs` and a unified diff of the template.

Reads pages and decides what to retry; never writes the template file or the store.
"""

from __future__ import annotations

import difflib
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from taskplate.browser import matched_element, matched_reads, names_the_same
from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import SelectorSpan, Step, selector_spans, with_selectors

from ._fingerprints import Seen, kept_without_secrets, selector_of, with_selector
from ._lists import learned_list, regrown, uniform
from ._relocate import MARGIN, Option, relocate
from ._tiebreak import choose

if TYPE_CHECKING:
    from taskplate.stdlib import ActionContext, Sampler

Place = tuple[str, tuple[str, ...]]  # a selector: its step, and where in the step's `with`
MODES = ("off", "suggest", "apply")  # narrowest first
_TYPED = ("value", "text", "values")  # the arguments a step types into a field


def narrowed(template_mode: str, asked: Any) -> str:
    """The heal mode of one run: the template's, or what its options ask when that is narrower
    (apply → suggest → off; a caller never widens it)."""
    mode = template_mode if template_mode in MODES else "suggest"
    if asked in MODES and MODES.index(asked) < MODES.index(mode):
        return str(asked)
    return mode


def place_key(place: Place) -> str:
    """A selector's place as the run store keys it."""
    return json.dumps([place[0], list(place[1])], separators=(",", ":"))


def place_of(key: str) -> Place:
    step, path = json.loads(key)
    return str(step), tuple(path)


@dataclass
class Found:
    """A relocation of one selector: where, from what, to what, and how sure."""

    span: SelectorSpan
    option: Option
    by: str  # "fingerprint"; "list": a list's lost items (`regrown`); "model": the model chose

    def as_repair(self) -> dict[str, Any]:
        out = {
            "stepId": self.span.step_id,
            "line": self.span.line,
            "old": self.span.value,
            "new": self.option.selector,
            "confidence": self.option.confidence if self.by != "model" else None,
        }
        if self.option.attr:
            out["attr"] = self.option.attr
        if self.by != "fingerprint":
            out["by"] = self.by
        return out


@dataclass
class Healer:
    """One run's: the template's source, its heal mode, the fingerprints a run kept before
    (by place), the run's secrets, and the model a template may ask to break a tie."""

    source: str
    name: str  # the template file's name, for the diff
    mode: str
    known: dict[Place, Seen]
    secrets: list[str]
    sampler: Sampler | None = None
    ask_model: bool = False
    learned: dict[Place, Seen] = field(default_factory=dict)
    found: dict[Place, Found] = field(default_factory=dict)  # suggested or applied
    applied: set[Place] = field(default_factory=set)
    unsure: list[str] = field(default_factory=list)  # why a selector was left unhealed
    doubts: dict[Place, str] = field(default_factory=dict)  # the same, not yet told a step
    seconds: float = 0.0  # spent looking for elements and asking the model
    typed: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.spans = {(s.step_id, s.path): s for s in selector_spans(self.source)}
        self.attrs = {
            (s.step_id, s.path[:-1]): s
            for s in selector_spans(self.source, attrs=True)
            if s.path[-1:] == ("attr",)
        }

    # -- what a step runs with ----------------------------------------------------------------
    def prepared(self, step: Step, args: Any) -> Any:
        """A step's arguments with the selectors this run healed already (a loop's next item
        is not searched again)."""
        for place in [p for p in self.applied if p[0] == step.id]:
            if isinstance(args, dict):
                chosen = self.found[place].option
                args = with_selector(args, place[1], chosen.selector, chosen.attr)
        return args

    async def succeeded(
        self, step: Step, item: int | None, args: Any, result: Any, ctx: ActionContext
    ) -> Any | None:
        """Learns what the step's selectors matched; when an extract field read nothing and
        its element is found, the arguments to run it again with (None: go on as it is)."""
        if step.id is None or not isinstance(args, dict):
            return None
        if step.action in ("type", "fill", "select_option", "press"):
            self.typed += [v for k in _TYPED for v in _strings(args.get(k))]
        places = [p for p in self.spans if p[0] == step.id]
        if not places:
            return None
        empty = _empty_fields(places, result) if step.action == "extract" else []
        try:
            page = await ctx.page()
            strayed = await self._strayed(page, args, places, empty) if empty != places else []
            # a list whose look-alike stands first is read as it was by `regrown` when it can be
            regrow = await self._thinned(page, args, [p for p in places if p not in empty])
            lost = empty + [p for p in strayed if p not in regrow]
            for place in places:
                if place not in self.learned and place not in lost and place not in regrow:
                    await self._learn(page, place, args)
        except Exception:  # learning never changes the run
            return None
        return await self._heal(step, args, ctx, lost, regrow) if lost or regrow else None

    async def failed(
        self, step: Step, args: Any, error: TaskplateError, ctx: ActionContext
    ) -> Any | None:
        """When the step found no element: the arguments to run it again with, its lost
        selectors relocated (None: it fails as it did)."""
        if error.code is not ErrorCode.ELEMENT_NOT_FOUND or not isinstance(args, dict):
            return None
        places = [p for p in self.spans if p[0] == step.id]
        return await self._heal(step, args, ctx, places, only_lost=True) if places else None

    def took(self, step: Step, again: Any, result: Any) -> bool:
        """Whether the step run again with healed selectors read what it missed; the repairs
        are kept when it did."""
        pending = [p for p in self.found if p[0] == step.id and p not in self.applied]
        if step.action == "extract" and _empty_fields(pending, result):
            return False  # what it missed still reads nothing
        self.applied |= set(pending)
        return True

    def at_once(self, step: Step, again: Any) -> Any:
        """The arguments a healed step runs again with: an extract reads the page as it is (it
        waited for it already), what it must find checked by `took`."""
        if step.action != "extract" or not isinstance(again, dict):
            return again
        quick = {k: v for k, v in again.items() if k not in ("required", "timeoutMs", "quietMs")}
        return {**quick, "optional": True}

    def warned(self, step: Step, result: Any) -> Any:
        """A succeeded step's result with why its selectors were left unhealed among its
        warnings: a list read as the page shows it may miss items or hold others, and a wrong
        value must not pass unsaid."""
        doubts = [self.doubts.pop(p) for p in list(self.doubts) if p[0] == step.id]
        if not doubts or not isinstance(result, dict):
            return result
        said = result.get("warnings")
        told = [f"not healed, read as shown: {why}" for why in doubts]
        return {**result, "warnings": [*(said if isinstance(said, list) else []), *told]}

    # -- what the run tells ------------------------------------------------------------------
    def repairs(self, applied: bool = True) -> list[dict[str, Any]]:
        return [f.as_repair() for p, f in self.found.items() if (p in self.applied) == applied]

    def diff(self, applied: bool = True) -> str:
        """The template with the relocated selectors, as a unified diff (empty without one)."""
        changes: dict[SelectorSpan, str] = {}
        for place, found in self.found.items():
            if (place in self.applied) != applied:
                continue
            changes[found.span] = found.option.selector
            if found.option.attr and place in self.attrs:
                changes[self.attrs[place]] = found.option.attr
        if not changes:
            return ""
        after = with_selectors(self.source, changes)
        return "".join(
            difflib.unified_diff(
                self.source.splitlines(keepends=True),
                after.splitlines(keepends=True),
                f"a/{self.name}",
                f"b/{self.name}",
            )
        )

    def kept(self) -> dict[str, dict[str, Any]]:
        """The fingerprints this run learned as the store keeps them: no secret, no value typed
        into a field (`kept_without_secrets`)."""
        out = {}
        for place, seen in self.learned.items():
            kept = kept_without_secrets(seen, [*self.secrets, *self.typed])
            if kept is not None:
                out[place_key(place)] = kept
        return out

    # -- reading pages -------------------------------------------------------------------------
    async def _strayed(
        self, page: Any, args: dict[str, Any], places: list[Place], empty: list[Place]
    ) -> list[Place]:
        """An extract's fields whose selector no longer names first the element it matched
        before, that element still on the page (the one of its tag and text), and names first
        an element of another kind (tag or classes): a look-alike put before it, the element
        itself renamed. Another item of the same kind first is the content's change: kept."""
        asked: list[tuple[Place, tuple[str | None, str, str, str, list[str]]]] = []
        for place in places:
            was = self.known.get(place)
            if was is None or was.element is None or place in empty or place in self.applied:
                continue
            selector, root, _ = selector_of(args, place[1])
            if selector is not None and was.element["text"]:
                element = was.element
                check = (root, selector, element["tag"], element["text"], _shape(element))
                asked.append((place, check))
        if not asked:
            return []
        named = await names_the_same(page, [check for _, check in asked])
        return [place for (place, _), same in zip(asked, named, strict=True) if same is False]

    async def _learn(self, page: Any, place: Place, args: dict[str, Any]) -> None:
        selector, root, field_ = selector_of(args, place[1])
        if selector is None:
            return
        count, element = await matched_element(page, selector, root)
        if element is None:
            return
        attr = field_.get("attr") if isinstance(field_, dict) else None
        many = isinstance(field_, dict) and field_.get("all") is True
        read = (element["attrs"].get(attr) if attr else element["text"]) if element else None
        left = bare = None
        if many:
            read = json.dumps(await matched_reads(page, selector, root, attr))
            if count > 1:
                left, bare = await learned_list(page, selector, root)
        self.learned[place] = Seen(count, element, read, many, left=left, bare=bare)

    async def _thinned(
        self, page: Any, args: dict[str, Any], places: list[Place]
    ) -> dict[Place, Found]:
        """The lists among `places` that lost items while their selector still matches some
        (`regrown`), each with the selector that reads it whole again."""
        started, out = time.monotonic(), {}
        for place in places:
            was = self.known.get(place)
            if was is None or not was.many or was.left != 0 or place in self.applied:
                continue
            got = await regrown(page, args, place[1], was)
            span = self.spans[place]
            if isinstance(got, str):
                self._unsure(place, got)
            elif got is not None:
                out[place] = Found(span, Option(got[0], None, MARGIN, 0.0, got[1]), "list")
        self.seconds += time.monotonic() - started
        return out

    async def _heal(
        self,
        step: Step,
        args: dict[str, Any],
        ctx: ActionContext,
        places: list[Place],
        regrow: dict[Place, Found] | None = None,
        only_lost: bool = False,
    ) -> dict[str, Any] | None:
        started = time.monotonic()
        try:
            page = await ctx.page()
            again, any_new = args, False
            for place, found in (regrow or {}).items():
                self.found[place] = found
                again = with_selector(again, place[1], found.option.selector)
                any_new = True
            for place in places:
                was = self.known.get(place)
                if was is None or was.element is None or place in self.applied:
                    continue
                if only_lost and await _still_matches(page, again, place):
                    continue
                chosen = await self._choose(page, again, place, was)
                if chosen is None:
                    continue
                self.found[place] = chosen
                chosen_option = chosen.option
                again = with_selector(again, place[1], chosen_option.selector, chosen_option.attr)
                any_new = True
        except Exception:  # a page that went away while read: nothing healed
            return None
        finally:
            self.seconds += time.monotonic() - started
        return again if any_new and self.mode == "apply" else None

    async def _choose(
        self, page: Any, args: dict[str, Any], place: Place, was: Seen
    ) -> Found | None:
        span = self.spans[place]
        options = await relocate(page, args, place[1], was)
        if not options:
            self._unsure(place, "no element like it")
            return None
        if options[0].clear and not (
            was.many and not await uniform(page, args, place[1], options[0].selector, was)
        ):
            return Found(span, options[0], "fingerprint")
        if self.ask_model and self.sampler is not None:
            picked = await choose(self.sampler, was, options, [*self.secrets, *self.typed])
            if picked is not None:
                return Found(span, picked, "model")
        said = ", ".join(repr(o.selector) for o in options[:3])
        self._unsure(place, f"ambiguous between {said}")
        return None

    def _unsure(self, place: Place, why: str) -> None:
        span = self.spans[place]
        self.doubts[place] = f"{span.value!r} (line {span.line}): {why}"
        self.unsure.append(self.doubts[place])


async def _still_matches(page: Any, args: dict[str, Any], place: Place) -> bool:
    selector, root, _ = selector_of(args, place[1])
    if selector is None:
        return True
    count, _ = await matched_element(page, selector, root)
    return count > 0


def _shape(element: dict[str, Any]) -> list[str]:
    """An element's kind as `names_the_same` compares it: its classes and its boxes', sorted,
    the element first then up to five boxes (its parent and ancestors, up to the body)."""
    boxes = [element.get("parent"), *(element.get("ancestors") or [])]
    kinds = [element["classes"], *(b["classes"] for b in boxes if b)]
    return [".".join(sorted(k)) for k in kinds]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    return [v for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


def _empty_fields(places: list[Place], result: Any) -> list[Place]:
    """The extract fields among `places` that read nothing (`missing`: a top-level field, or a
    records' field in none of the records)."""
    missing = result.get("missing") if isinstance(result, dict) else None
    if not isinstance(missing, list):
        return []
    named = {_field_path(m) for m in missing if isinstance(m, str)}
    return [p for p in places if p[1][:1] == ("fields",) and p[1] in named]


def _field_path(name: str) -> tuple[str, ...]:
    """`products[].price` as a selector's place in `with`: fields, products, fields, price."""
    out: tuple[str, ...] = ()
    for part in name.replace("[]", "").split("."):
        out += ("fields", part)
    return out
