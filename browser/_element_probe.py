"""Elements read off a page for repairing a selector: what the element a selector matches looks
like (tag, text, role, attributes, its place among its siblings, its parent and ancestors, the
siblings beside it), every element of the page
described alike, and how many elements candidate selectors match.

Reads pages only, never acts on them; knows no template.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

_DESCRIBE = """
const IMPLICIT = {a: 'link', button: 'button', h1: 'heading', h2: 'heading', h3: 'heading',
  h4: 'heading', h5: 'heading', h6: 'heading', input: 'textbox', textarea: 'textbox',
  select: 'combobox', img: 'img', li: 'listitem', ul: 'list', ol: 'list', nav: 'navigation',
  main: 'main', table: 'table', form: 'form'};
const describe = (el) => {
  const attrs = Object.create(null);  // an attribute named __proto__ is kept as one
  for (const a of el.attributes) {
    if (a.name !== 'class' && a.name !== 'style' && a.value.length <= 200) attrs[a.name] = a.value;
  }
  const parent = el.parentElement;
  const same = parent ? Array.from(parent.children).filter(c => c.tagName === el.tagName) : [el];
  const tag = el.tagName.toLowerCase();
  return {tag, id: el.id || null, classes: Array.from(el.classList), attrs,
    role: el.getAttribute('role') || IMPLICIT[tag] || null,
    text: (el.innerText ?? el.textContent ?? '').trim().replace(/\\s+/g, ' ').slice(0, 200),
    nth: same.indexOf(el) + 1, siblings: same.length,
    parent: parent ? brief(parent) : null, ancestors: ancestors(el),
    before: near(el.previousElementSibling), after: near(el.nextElementSibling)};
};
const brief = (el) => {
  const data = {};
  for (const a of el.attributes) if (a.name.startsWith('data-') && a.value.length <= 80) data[a.name] = a.value;
  return {tag: el.tagName.toLowerCase(), id: el.id || null, classes: Array.from(el.classList), data};
};
const ancestors = (el) => {
  const out = [];
  for (let a = el.parentElement?.parentElement; a && a !== document.body && out.length < 4; a = a.parentElement) out.push(brief(a));
  return out;
};
const near = (el) => el ? {tag: el.tagName.toLowerCase(),
  text: (el.innerText ?? el.textContent ?? '').trim().replace(/\\s+/g, ' ').slice(0, 60)} : null;
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'LINK', 'META']);
const elements = (root) => {
  const base = root ? document.querySelector(root) : document.body;
  if (!base) return [null, []];
  return [base, Array.from(base.querySelectorAll('*')).filter(e => !SKIP.has(e.tagName)).slice(0, 3000)];
};
"""

_ONE = "(el) => {" + _DESCRIBE + "return describe(el); }"
_ALL = "(root) => {" + _DESCRIBE + "return elements(root)[1].map(describe); }"
_CHECK = (
    "([root, index, candidates]) => {"
    + _DESCRIBE
    + """
  const [base, all] = elements(root);
  const el = all[index];
  return candidates.map(c => {
    try { const m = base.querySelectorAll(c); return [m.length, m[0] === el]; }
    catch { return [0, false]; }
  });
}"""
)
_INDEXES = (
    "([root, selector]) => {"
    + _DESCRIBE
    + """
  const [base, all] = elements(root);
  if (!base) return [];
  let matched;
  try { matched = new Set(base.querySelectorAll(selector)); } catch { return []; }
  return all.flatMap((el, i) => matched.has(el) ? [i] : []);
}"""
)
_STILL = """(checks) => checks.map(([root, selector, tag, text, shape]) => {
  const base = root ? document.querySelector(root) : document;
  if (!base) return null;
  const norm = (el) => (el.innerText ?? el.textContent ?? '').trim().replace(/\\s+/g, ' ').slice(0, 200);
  const kind = (el) => [...el.classList].sort().join('.');
  let same;
  try { same = [...base.querySelectorAll(tag)].filter(el => norm(el) === text); } catch { return null; }
  if (!same.length && shape[0]) {  // retagged: the one element of its classes and text
    same = [...base.querySelectorAll('*')].filter(el => kind(el) === shape[0] && norm(el) === text);
  }
  if (same.length !== 1) return null;
  let first;
  try { first = base.querySelector(selector); } catch { return null; }
  if (first === same[0]) return true;
  const boxes = [];
  for (let a = first?.parentElement; a && a !== document.body && boxes.length < shape.length - 1; a = a.parentElement) boxes.push(kind(a));
  const alike = first && first.tagName.toLowerCase() === tag
    && [kind(first), ...boxes].join(' ') === shape.join(' ');
  return alike ? null : false;
})"""


async def matched_element(
    page: Page, selector: str, root: str | None = None, wait_ms: int = 0
) -> tuple[int, dict[str, Any] | None]:
    """How many elements `selector` matches (under the first match of `root`), and the first
    one described; waited for up to `wait_ms` first."""
    base = page.locator(root).first if root else page
    found = base.locator(selector)
    if wait_ms:
        try:
            await found.first.wait_for(state="attached", timeout=wait_ms)
        except Exception:
            return 0, None
    count = await found.count()
    if not count:
        return 0, None
    described: dict[str, Any] = await found.first.evaluate(_ONE)
    return count, described


# What a matched element reads: `attr`'s value, or its text as `describe` gives it.
_READ = """(el, attr) => attr ? el.getAttribute(attr)
  : (el.innerText ?? el.textContent ?? '').trim().replace(/\\s+/g, ' ').slice(0, 200)"""


async def matched_reads(
    page: Page, selector: str, root: str | None = None, attr: str | None = None
) -> list[str | None]:
    """What each element `selector` matches (under `root`'s first match) reads: `attr`'s
    value, or its text as `describe` gives it."""
    base = page.locator(root).first if root else page
    reads: list[str | None] = await base.locator(selector).evaluate_all(
        f"(els, attr) => els.map(el => ({_READ})(el, attr))", attr
    )
    return reads


_EACH_READS = (
    """(base, [selectors, attr]) => {
  const read = el => ("""
    + _READ
    + """)(el, attr);
  return selectors.map(s => {
    try { return Array.from((base ?? document).querySelectorAll(s), read); }
    catch (e) { return null; }
  });
}"""
)


async def reads_of_each(
    page: Page, selectors: list[str], root: str | None = None, attr: str | None = None
) -> list[list[str | None] | None]:
    """What each CSS selector of `selectors` reads, as `matched_reads` does, in one call to the
    page (None for a selector the page cannot parse)."""
    reads: list[list[str | None] | None]
    if root is None:
        call = f"([s, a]) => ({_EACH_READS})(null, [s, a])"
        reads = await page.evaluate(call, [selectors, attr])
    else:
        reads = await page.locator(root).first.evaluate(_EACH_READS, [selectors, attr])
    return reads


async def page_elements(page: Page, root: str | None = None) -> list[dict[str, Any]]:
    """Every element of the page (under `root`'s first match), described, in document order."""
    found: list[dict[str, Any]] = await page.evaluate(_ALL, root)
    return found


async def check_selectors(
    page: Page, root: str | None, index: int, candidates: list[str]
) -> list[tuple[int, bool]]:
    """For each candidate: how many elements it matches, and whether its first is the element
    at `index` of `page_elements`."""
    checked = await page.evaluate(_CHECK, [root, index, candidates])
    return [(int(n), bool(first)) for n, first in checked]


async def matched_indexes(page: Page, root: str | None, selector: str) -> list[int]:
    """Which elements of `page_elements` (under `root`'s first match) `selector` matches."""
    found: list[int] = await page.evaluate(_INDEXES, [root, selector])
    return found


async def names_the_same(
    page: Page, checks: list[tuple[str | None, str, str, str, list[str]]]
) -> list[bool | None]:
    """For each (root, selector, tag, text, shape): whether the one element of that tag and
    text (under `root`'s first match; when none has that tag, of its classes and text: the
    element retagged) is still the selector's first match; None when it cannot be told: no
    element, or several, have that tag and text, or the first match is of the same
    shape (its tag, and the classes of it and of its boxes, `shape`: the same kind of element
    in the same place with other content, the page's content changed, not its markup)."""
    found: list[bool | None] = await page.evaluate(_STILL, checks)
    return found
