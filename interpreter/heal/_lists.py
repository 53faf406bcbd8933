"""A list that changed while its selector still matches: the run that learned it matched every
element at its items' place in the box holding them (`left` 0) and no look-alike; now elements
at that place are left out (an item's class renamed or removed, an item retagged, unwrapped
between two items, or before or after every item keeping the items' classes), none of them set
apart by a class of its own, or a look-alike marked by a class of its own stands beside a match
in one item, and the list without the look-alikes and with the lost items is of one shape, no
longer than it was and in the learned order; or it reads some of its learned items and nothing
else while the others stand in the box holding it, in the learned order (a card retagged and
wrapped). Then the most stable selector that matches exactly that list heals it: in a run
(`Healer`), and first among `dsl test --suggest`'s candidates (cases' `PageReader`).

Anything less clear heals nothing (a wrong value is worse than a failure). Reads pages only.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from taskplate.browser import (
    ListShape,
    list_shape,
    matched_element,
    matched_reads,
    reads_of_each,
)

from ._fingerprints import Seen, selector_of
from ._match import anchor_of, selectors_for

_IDENT = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*")  # a class a selector can name as it is


async def learned_list(page: Any, selector: str, root: str | None) -> tuple[int | None, int | None]:
    """For a list being learned, its `Seen` counts: how many elements at its items' place it
    leaves out (`left`) and how many of its items hold no match (`bare`); None, None when it is
    not a list of one shape without strays (then it is never healed this way)."""
    shape = await list_shape(page, selector, root)
    if shape is None or not shape.uniform or shape.strays:
        return None, None
    return shape.left, shape.bare


async def regrown(
    page: Any, args: dict[str, Any], path: tuple[str, ...], was: Seen, reordered: bool = False
) -> tuple[str, dict[str, Any]] | str | None:
    """The selector (and the first element it matches) that reads the list as it was again:
    without the look-alikes put beside its matches, with the items it lost; why not, when it
    changed so but the change cannot be told apart; None when it did not change so. With
    `reordered` (`dsl test --suggest`, which says so), the items it lost may come back in the
    page's new order; a run keeps the learned order (a list the site reordered is its content
    changing)."""
    if not was.many or was.left != 0 or was.element is None:
        return None
    selector, root, field_ = selector_of(args, path)
    if selector is None:
        return None
    attr = field_.get("attr") if isinstance(field_, dict) else None
    shape = await list_shape(page, selector, root, attr=attr)
    if shape is None:
        return None
    if shape.odd and not shape.uniform and not shape.strays:
        inserted = await _without_inserted(page, selector, root, attr, shape, was)
        if inserted is not None:
            return inserted
    if not (shape.left or shape.apart or shape.strays):
        if not shape.uniform:
            return _set_apart(shape)
        regained = await _regained(
            page, selector, root, attr, shape.box, shape.reads, was, reordered
        )
        return regained or _bare(shape, was)
    offs = _offs(shape, was) if shape.apart else ("",)
    if why := _refused(shape, was, offs, reordered):
        return why
    _, element = await matched_element(page, selector, root)
    if element is None:
        return None
    candidates = tuple(c + off for c in _candidates(element, shape.box, selector) for off in offs)
    if shape.strays:
        marks = [(c, inside) for c, inside in shape.marks if _IDENT.fullmatch(c)]
        candidates = (
            tuple(
                f"{s}:not(.{c} *)" if inside else f"{s}:not(.{c})"
                for s in (selector, *candidates[:6])
                for c, inside in dict.fromkeys(marks)
            )
            + candidates
        )
    checked = await list_shape(page, selector, root, candidates)
    if checked is None:
        return None
    fit = [c for c, exact in zip(candidates, checked.exact, strict=True) if exact]
    if not fit:
        return "no selector reads the list as it was"
    reads = tuple(await matched_reads(page, fit[0], root, attr))
    learned = _learned(was) or []
    if shape.apart and list(reads) != learned and not (reordered and _same(reads, learned)):
        return "no selector reads the list as it was"  # kept off look-alikes, the rest must
    # read the learned list itself; one still short of it may have more to take back
    regained = await _regained(page, fit[0], root, attr, shape.box, reads, was, reordered)
    return regained or (fit[0], element)


def _refused(
    shape: ListShape, was: Seen, offs: tuple[str, ...], reordered: bool = False
) -> str | None:
    """Why a list that lost items at its items' place cannot be read whole again: of several
    kinds, set apart items it cannot keep off (`offs` empty), longer than learned, or out of
    the learned order unless `reordered` may be read (None when it can be tried)."""
    if not shape.uniform:
        return "items left out, and the items it matches are of several kinds"
    if not offs or shape.core + shape.left > was.count:
        return "items left out that may not belong to the list (set apart, or more than before)"
    if not reordered and not in_order(shape.reads, was):
        return "the list's items are in another order than when it was learned"
    return None


def _offs(shape: ListShape, was: Seen) -> tuple[str, ...]:
    """For a list whose elements at the items' place include some set apart by a class (theirs
    or a box's) that read nothing the list read when learned (look-alikes put among its items):
    the `:not()` that may keep them off; none when they may be the list's own."""
    before = _learned(was)
    if not before or set(shape.aside_reads) & set(before) or None in shape.aside_reads:
        return ()
    marks = [c for c in shape.aside_marks if _IDENT.fullmatch(c)]
    return tuple(off for c in marks for off in (f":not(.{c})", f":not(.{c} *)"))


async def _without_inserted(
    page: Any, selector: str, root: str | None, attr: str | None, shape: ListShape, was: Seen
) -> tuple[str, dict[str, Any]] | None:
    """The selector that keeps off what was inserted among a list's learned items: matches set
    apart by a class of their own or of a box around them (`odd`: an ad among the cards, a
    promoted copy of the list), reading none of what the list read when learned, while the
    others read exactly the learned list, in its order, or do once the items they lost at the
    items' place are back (an item's class removed beside the ad). An item the list held, now
    marked (a card sold out), belongs to it: then, or when the rest changed otherwise too,
    nothing is healed."""
    before = _learned(was)
    if not before or "," in selector:
        return None
    extra = Counter(shape.reads) - Counter(before)
    if not extra or set(extra) & set(before):
        return None
    for mark in (c for c in shape.odd if _IDENT.fullmatch(c)):
        for off in (f":not(.{mark})", f":not(.{mark} *)"):
            kept = await list_shape(page, selector + off, root, attr=attr)
            if kept is None or kept.strays:
                continue
            if kept.left:  # the rest lost items too: read with them, the mark kept off
                found = await _lost_back(page, selector, root, attr, kept, was, off)
            elif list(kept.reads) == before:
                _, element = await matched_element(page, selector + off, root)
                found = (selector + off, element) if element is not None else None
            else:
                continue
            if found is not None:
                return found
    return None


async def _lost_back(
    page: Any,
    selector: str,
    root: str | None,
    attr: str | None,
    kept: ListShape,
    was: Seen,
    off: str,
) -> tuple[str, dict[str, Any]] | None:
    """For a list kept off its inserted matches by `off` that lost items at its items' place:
    the most stable selector, kept off them too, that reads exactly the learned list again."""
    if _refused(kept, was, (off,)):
        return None
    _, element = await matched_element(page, selector + off, root)
    if element is None:
        return None
    candidates = tuple(c + off for c in _candidates(element, kept.box, selector))
    checked = await list_shape(page, selector + off, root, candidates)
    before = _learned(was)
    for candidate, exact in zip(candidates, checked.exact if checked else (), strict=False):
        if exact and await matched_reads(page, candidate, root, attr) == before:
            return candidate, element
    return None


async def _regained(
    page: Any,
    selector: str,
    root: str | None,
    attr: str | None,
    box: dict[str, Any],
    reads: tuple[str | None, ...],
    was: Seen,
    reordered: bool = False,
) -> tuple[str, dict[str, Any]] | str | None:
    """For a list that reads some of its learned items and nothing else: when the items it
    lost still stand in the box holding it (a card retagged and wrapped, a card unwrapped into
    the box), the most stable selector under the box that reads exactly the learned list, or
    else, with `reordered`, every learned item in another order (the site reordered them too);
    why not, when they stand elsewhere on the page (a card's title moved out of the list:
    whether it still belongs to it cannot be told). A list whose lost items are gone from the
    page is the site's content changing: None."""
    before = _learned(was)
    some = _within(reads, before or []) or (reordered and Counter(reads) <= Counter(before))
    if not before or len(reads) >= len(before) or not some:
        return None
    _, element = await matched_element(page, selector, root)
    if element is None:
        return None
    names, anchor = _own_names(element), anchor_of(box)
    inside = [f"{anchor} {name}" for name in names] if anchor else []
    read = await reads_of_each(page, [*inside, *names], root, attr)
    pairs = list(zip(inside, read, strict=False))
    exact = [c for c, got in pairs if got == before]
    whole = [c for c, got in pairs if reordered and got and _same(got, before)]
    if exact or whole:
        return (exact or whole)[0], element
    lost = Counter(before) - Counter(reads)
    if any(got and not lost - Counter(got) for got in read):
        return (
            f"{lost.total()} of the {len(before)} items it read when learned stand elsewhere "
            "on the page, outside its items; read without them"
        )
    return None


def _same(reads: Sequence[str | None], before: list[str | None]) -> bool:
    """Whether `reads` are the items of `before`, all of them and no other, in any order."""
    return Counter(reads) == Counter(before)


def _within(reads: tuple[str | None, ...], before: list[str | None]) -> bool:
    """Whether `reads` are some of `before`, in its order, and nothing else."""
    known = iter(before)
    return all(any(r == b for b in known) for r in reads)


def _learned(was: Seen) -> list[str | None] | None:
    """What a list read when learned, in its order (empty when not kept; None when unreadable)."""
    try:
        before = json.loads(was.read or "[]")
    except ValueError:
        return None
    return before if isinstance(before, list) else None


def _set_apart(shape: ListShape) -> str | None:
    """Why a list learned of one kind (`was.left` 0), now matching items set apart by a class
    of their own (an ad, a promotion, or an item the site marks), is read as the page shows it:
    whether they are the list's cannot be told, so the run says so."""
    if not shape.odd:
        return None
    marks = ", ".join(f".{c}" for c in shape.odd)
    return (
        f"{shape.odd_items} of its {shape.core} matches set apart by a class the others lack "
        f"({marks}); keep them off with :not() if not the list's"
    )


def _bare(shape: ListShape, was: Seen) -> str | None:
    """Why a list learned with a match in each of its items, now with items holding none (a
    card whose field was moved out, or whose text no element holds alone), is read as the page
    shows it: a shorter list, beside which another list of the same items no longer lines up."""
    if was.bare != 0 or not shape.bare:
        return None
    holds = "holds" if shape.bare == 1 else "hold"
    return (
        f"{shape.bare} of its {shape.core + shape.bare} items ({shape.bare_kind}) {holds} no "
        "match; read without them"
    )


def _candidates(element: dict[str, Any], box: dict[str, Any], selector: str) -> tuple[str, ...]:
    """Selectors that may match the list whole: under the box holding it (by its id, data
    attribute or classes) the items' own names and classes, then the element's selectors
    (`selectors_for`), places last."""
    own = _own_names(element)
    anchor = anchor_of(box)
    under = [f"{anchor} {name}" for name in own] if anchor else []
    rest = selectors_for(element)
    ranked = [*under, *(s for s in rest if ":nth" not in s), *(s for s in rest if ":nth" in s)]
    return tuple(s for s in dict.fromkeys(ranked) if s != selector)


def _own_names(element: dict[str, Any]) -> list[str]:
    """The selectors naming an element by itself: its tag, classes and attributes."""
    own = selectors_for({**element, "parent": None, "ancestors": []})
    return list(
        dict.fromkeys([*own, *(f".{c}" for c in element["classes"] if _IDENT.fullmatch(c))])
    )


async def uniform(
    page: Any, args: dict[str, Any], path: tuple[str, ...], selector: str, was: Seen
) -> bool:
    """Whether a list's relocated selector matches elements of one shape (a row's cells, told
    apart by their classes, are not a list of names) without strays, in the order of the
    items it read when learned."""
    _, root, field_ = selector_of(args, path)
    attr = field_.get("attr") if isinstance(field_, dict) else None
    shape = await list_shape(page, selector, root, attr=attr)
    return shape is None or (shape.uniform and not shape.strays and in_order(shape.reads, was))


def in_order(reads: tuple[str | None, ...], was: Seen) -> bool:
    """Whether the items a list reads now that it read when learned come in the learned order:
    a list the page reordered is the site's content changing, where its lost items go unknown."""
    before = _learned(was)
    return before is not None and _within(tuple(r for r in reads if r in before), before)
