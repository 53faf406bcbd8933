"""Where a template's selector's element went: the live elements most like its fingerprint, the
most stable selector naming the most alike one, and whether it is clearly the one (its likeness
beats every element that selector does not name by MARGIN) or the candidates are ambiguous.

Reads pages only (browser's element probe); decides nothing about the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from taskplate.browser import check_selectors, matched_indexes, page_elements

from ._fingerprints import Seen, attr_reading, selector_of
from ._match import excluding, ranked, selectors_for

# A relocated element is taken when its likeness (_match.likeness: text counts 4, tag 2, a
# naming attribute 1.5, classes up to 1.5, …) beats every alike element its new selector does
# not name by at least this much: a look-alike as alike as it leaves the selector unhealed.
MARGIN = 2.0
ELEMENTS_TRIED = 3  # the live elements most like the fingerprint whose selectors are checked


@dataclass(frozen=True)
class Option:
    """One candidate: the selector naming a live element, the attribute its field reads
    instead (None: the same), its likeness, the best likeness of an alike element it does not
    name, and the element described (for a model asked to choose)."""

    selector: str
    attr: str | None
    score: float
    rival: float
    element: dict[str, Any]

    @property
    def clear(self) -> bool:
        return self.score - self.rival >= MARGIN

    @property
    def confidence(self) -> float:
        """How far ahead of the next alike element it is, 0 to 1."""
        return round(max(0.0, min(1.0, (self.score - self.rival) / self.score)), 2)


def _fits(count: int, was: Seen) -> bool:
    """Whether a selector matching `count` elements reads as the learned one did: one element
    for one, several for a list (a live list grows and shrinks)."""
    return count == 1 if was.count == 1 and not was.many else count > 1 or was.count == 1


async def relocate(
    page: Any, args: dict[str, Any], path: tuple[str, ...], was: Seen
) -> list[Option]:
    """The candidates for the selector at `path` of a step's arguments, most alike first."""
    selector, root, field_ = selector_of(args, path)
    if selector is None or was.element is None:
        return []
    attr = field_.get("attr") if isinstance(field_, dict) else None
    elements = await page_elements(page, root)
    scored = ranked(was.element, elements)
    options: list[Option] = []
    # a field reading an attribute: an element holding the value read in none of its attributes
    # can give the field nothing, so it is no candidate and no rival
    learned = was.element["attrs"].get(attr or "")
    for rank, (score, index) in enumerate(scored[:ELEMENTS_TRIED]):
        element = elements[index]
        reading = attr_reading(element, attr, learned)
        if reading is False:
            continue  # no attribute of it holds what the field read
        selectors = [s for s in selectors_for(element) if s != selector]
        # kept off look-alikes: another text, the same tag and a class, and a mark of their own
        strays = [
            i
            for i, e in enumerate(elements)
            if rank == 0 and _look_alike(e, element, was.element) and _marked(e, element)
        ]
        if strays:
            kept_off = excluding([selector, *selectors[:2]], element, [elements[i] for i in strays])
            selectors = [*selectors, *kept_off]
            selectors.sort(key=lambda s: ":nth-of-type" in s)  # a place: the least stable
        checks = await check_selectors(page, root, index, selectors)
        fit = [
            s for s, (n, first) in zip(selectors, checks, strict=True) if first and _fits(n, was)
        ]
        chosen, named = None, set[int]()
        for candidate in fit:  # the most stable that names no marked look-alike
            named = set(await matched_indexes(page, root, candidate))
            if not named & set(strays):
                chosen = candidate
                break
        if chosen is None:
            continue
        rival = max(
            (
                s
                for s, i in scored
                if i not in named
                and not _same_read(elements[i], element, attr)
                and attr_reading(elements[i], attr, learned) is not False
            ),
            default=0.0,
        )
        reads = reading if isinstance(reading, str) else None
        options.append(Option(chosen, reads, score, rival, element))
    return options


def _look_alike(e: dict[str, Any], best: dict[str, Any], learned: dict[str, Any]) -> bool:
    return (
        e is not best
        and e["tag"] == learned["tag"]
        and bool(set(e["classes"]) & set(learned["classes"]))
        and e["text"] != learned["text"]
    )


def _marked(e: dict[str, Any], best: dict[str, Any]) -> bool:
    """Whether a look-alike has a class, or its box has one, that the element and its boxes
    have not (`promo`): another item of a list has none."""
    boxes = [best.get("parent"), *(best.get("ancestors") or [])]
    mine = set(best["classes"]) | {c for b in boxes if b for c in b["classes"]}
    theirs = [e.get("parent"), *(e.get("ancestors") or [])]
    return bool((set(e["classes"]) | {c for b in theirs if b for c in b["classes"]}) - mine)


def _same_read(e: dict[str, Any], best: dict[str, Any], attr: str | None) -> bool:
    """Whether `e` is a box around the element (its parent or an ancestor) whose text is the
    element's: a wrapper put around it reads what it reads, no rival to it."""
    if attr is not None or e["text"] != best["text"]:
        return False
    boxes = [best.get("parent"), *(best.get("ancestors") or [])]
    return any(
        b and (e["tag"], e["id"], e["classes"]) == (b["tag"], b["id"], b["classes"]) for b in boxes
    )
