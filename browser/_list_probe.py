"""A list a selector reads, as a page shows it: the elements it matches, the box that holds them
all, the look-alikes among them (set apart by a class of their own beside another match in one
item), and the elements at the items' place it does not match (an item that lost a class, was
retagged or unwrapped), told apart from items set apart by a class of their own; and which
candidate selectors match exactly the list without the first and with the second.

Reads pages only, never acts on them; knows no template.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playwright.async_api import Page

_LIST = """([root, selector, candidates, attr]) => {
  const base = root ? document.querySelector(root) : document;
  if (!base) return null;
  let matched;
  try { matched = [...base.querySelectorAll(selector)]; } catch { return null; }
  if (matched.length < 2) return null;
  const classes = (el) => [...el.classList].sort().join('.');
  const kind = (el) => el.tagName.toLowerCase() + '.' + classes(el);
  const up = (el, stop) => {
    const out = [];
    for (let a = el.parentElement; a && a !== stop; a = a.parentElement) out.push(a);
    return out;
  };
  let common = up(matched[0], null);
  for (const el of matched.slice(1)) {
    const mine = new Set(up(el, null));
    common = common.filter(a => mine.has(a));
  }
  const box = common[0];
  if (!box) return null;
  const item = (el) => { const chain = up(el, box); return chain.length ? chain[chain.length - 1] : el; };
  const byItem = new Map();
  for (const el of matched) byItem.set(item(el), [...(byItem.get(item(el)) || []), el]);
  const singles = matched.filter(el => byItem.get(item(el)).length === 1);
  const ref = singles.length ? singles : matched;
  const known = new Set([...ref, ...ref.flatMap(el => up(el, box))].flatMap(n => [...n.classList]));
  const shared = [...known].filter(c => ref.every(el => el.classList.contains(c)));
  const boxShared = [...known].filter(c => ref.every(el => up(el, box).some(b => b.classList.contains(c))));
  const owns = (n) => [...n.classList].filter(c => !known.has(c));
  // set apart: it, or a box around it, keeps the classes the items share and adds one of its own
  const apart = (el) => (owns(el).length > 0 && shared.every(c => el.classList.contains(c)))
    || (up(el, box).some(b => owns(b).length > 0)
        && boxShared.every(c => up(el, box).some(b => b.classList.contains(c))));
  // a stray: a match set apart in an item that holds another match (a look-alike beside it)
  const strays = new Set(singles.length ? matched.filter(el => byItem.get(item(el)).length > 1 && apart(el)) : []);
  const core = matched.filter(el => !strays.has(el));
  const clean = [...byItem.values()].every(els => els.filter(el => !strays.has(el)).length === 1);
  // inside an item, its place among its siblings (a row's first cell); an item itself, none
  const nth = (el) => el.parentElement === box ? 0
    : [...el.parentElement.children].filter(c => c.tagName === el.tagName && !strays.has(c)).indexOf(el);
  // a box between the item and the match that holds the match alone (a wrapper put around it)
  // is no part of its shape
  const wraps = (b, el) => b !== item(el) && b.children.length === 1;
  const shape = (el) => [kind(el), ...up(el, box).filter(b => !wraps(b, el)).map(kind)].join(' ');
  const first = core[0], last = core[core.length - 1];
  // of one shape: the same tags and classes, and, for elements no class names, the same place
  const placeOf = (el) => first.classList.length > 0 || nth(el) === nth(first);
  const uniform = clean && core.every(el => shape(el) === shape(first) && placeOf(el));
  // the classes at most half the matches carry (theirs or their boxes'): what sets some apart
  const carried = core.map(el => new Set([el, ...up(el, box)].flatMap(n => [...n.classList])));
  const odd = [...new Set(carried.flatMap(c => [...c]))]
    .filter(c => 2 * carried.filter(k => k.has(c)).length <= core.length);
  const oddItems = carried.filter(k => odd.some(c => k.has(c))).length;
  // left out at the items' place: the same tag (or the same classes), the same place among its
  // siblings, as deep in the box; shallower (unwrapped) between two of the items, or before the
  // first or after the last when it keeps the items' own classes (the caller checks the order)
  const depth = up(first, box).length;
  const after = (a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  const named = (el) => first.classList.length > 0 && classes(el) === classes(first);
  const placed = (el) => up(el, box).length === depth
    || (up(el, box).length < depth && ((after(first, el) && after(el, last)) || named(el)));
  const one = new Set(matched);
  // of the items' kind: the same classes, or the same tag with no class another element of
  // the box has (a class lost or renamed; not another column's)
  const alone = (el) => [...el.classList].every(c => box.getElementsByClassName(c).length === 1);
  const others = [...box.querySelectorAll('*')].filter(el => !one.has(el)
    && ((el.classList.length > 0 && classes(el) === classes(first))
        || (el.tagName === first.tagName && alone(el)))
    && nth(el) === nth(first) && placed(el));
  const kept = others.filter(el => !apart(el));
  const aside = others.filter(el => apart(el));
  // items of the list's kind (a box's child holding a match) that hold none of its elements: a
  // card that lost the field read, read without it
  const kinds = new Set(core.filter(el => item(el) !== el).map(el => kind(item(el))));
  const holders = new Set([...matched, ...others].map(item));
  const bare = [...box.children].filter(c => kinds.has(kind(c)) && !holders.has(c));
  const wanted = new Set([...core, ...kept]);
  const exact = candidates.map(c => {
    let found;
    try { found = [...base.querySelectorAll(c)]; } catch { return false; }
    return found.length === wanted.size && found.every(el => wanted.has(el));
  });
  const norm = (el) => (el.innerText ?? el.textContent ?? '').trim().replace(/\\s+/g, ' ').slice(0, 200);
  const reads = [...wanted].sort((a, b) => after(a, b) ? -1 : 1).map(el => attr ? el.getAttribute(attr) : norm(el));
  const asideMarks = [...new Set(aside.flatMap(el => [el, ...up(el, box)].flatMap(owns)))];
  const marks = [];
  for (const el of strays) {
    for (const c of owns(el)) marks.push([c, false]);
    for (const b of up(el, item(el).parentElement)) if (b !== el) for (const c of owns(b)) marks.push([c, true]);
  }
  const brief = {tag: box.tagName.toLowerCase(), id: box.id || null, classes: [...box.classList], data: {}};
  for (const a of box.attributes) if (a.name.startsWith('data-') && a.value.length <= 80) brief.data[a.name] = a.value;
  return {count: matched.length, core: core.length, strays: strays.size, marks, uniform,
    left: kept.length, apart: others.length - kept.length, exact, reads, box: brief,
    odd: odd.slice(0, 5), oddItems, bare: bare.length, bareKind: bare.length ? kind(bare[0]) : null,
    asideReads: aside.map(el => attr ? el.getAttribute(attr) : norm(el)), asideMarks: asideMarks.slice(0, 5)};
}"""


@dataclass(frozen=True)
class ListShape:
    """What a selector's list is on a page: how many it matches; its strays (a match set apart
    by a class of its own, in an item that holds another match: a look-alike beside it) and the
    classes that mark them (`marks`: a class, and whether it is a box's around the stray); how
    many it matches besides them (`core`), and whether those are all of one shape (the same tags
    and classes, theirs and their boxes' up to the box holding them all, a box holding a match
    alone inside an item left out; for elements no class names, the same place among their
    siblings); how many elements at the items' place it leaves out (the same classes, or the
    same tag and no class another element of the box has; the same place among their siblings,
    as deep in the box, or shallower between two items or, with the items' own classes, before
    or after them: an item that lost or renamed a class, retagged, unwrapped), and how many more
    that are set apart (they, or a box around them, keep the classes the items share and add
    one of their own: an ad); for each candidate selector whether it matches exactly the
    core with those left out; the classes that set some of the core apart (`odd`); and the
    box's items of the list's kind that hold no match (`bare`: a card that lost the field)."""

    count: int
    core: int
    strays: int
    marks: tuple[tuple[str, bool], ...]
    uniform: bool
    left: int
    apart: int
    exact: tuple[bool, ...]
    reads: tuple[str | None, ...]  # what the core with those left out reads, in the page's order
    box: dict[str, Any]  # the box holding them all: its tag, id, classes and data attributes
    odd: tuple[str, ...] = ()  # classes at most half the core's matches carry (or their boxes)
    odd_items: int = 0  # the core's matches that carry one
    bare: int = 0  # the box's items of the list's kind (tag and classes) holding no match
    bare_kind: str | None = None  # the first of them, as `tag.class.class`
    aside_reads: tuple[str | None, ...] = ()  # what those set apart at the items' place read
    aside_marks: tuple[str, ...] = ()  # the classes that set them apart (theirs, their boxes')


async def list_shape(
    page: Page,
    selector: str,
    root: str | None = None,
    candidates: tuple[str, ...] = (),
    attr: str | None = None,
) -> ListShape | None:
    """The list `selector` matches (under `root`'s first match), its reads `attr`'s values (or
    texts); None when it matches fewer than two elements or cannot be read."""
    found: dict[str, Any] | None = await page.evaluate(
        _LIST, [root, selector, list(candidates), attr]
    )
    if found is None:
        return None
    return ListShape(
        int(found["count"]),
        int(found["core"]),
        int(found["strays"]),
        tuple((str(c), bool(inside)) for c, inside in found["marks"]),
        bool(found["uniform"]),
        int(found["left"]),
        int(found["apart"]),
        tuple(bool(x) for x in found["exact"]),
        tuple(found["reads"]),
        found["box"],
        tuple(str(c) for c in found["odd"]),
        int(found["oddItems"]),
        int(found["bare"]),
        found["bareKind"],
        tuple(found["asideReads"]),
        tuple(str(c) for c in found["asideMarks"]),
    )
