"""The `snapshot` action: the page's interactive elements, indexed with refs agents can click.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._elements import REF_ATTRIBUTE
from .._schemas import BOOLEAN, INTEGER, MAX_INDEX, STRING, args, css_selector, result
from .get_page_content import WAIT_FOR_STABLE, settle

if TYPE_CHECKING:
    from .._context import ActionContext

_GRACE_S = 5

# The most elements one snapshot lists (refs are given to these only); past it the answer's
# warnings say so. A bound on what the page builds and holds, far past what an agent pages through.
MAX_ELEMENTS = 100_000
DEFAULT_TIMEOUT_MS = 30_000

# One evaluate, in three passes so the page lays out once: the interactive elements in document
# order (an open shadow root's before its host), then everything read of each (its box, style,
# text, label), then the refs written. Reading a box after writing an attribute forces a fresh
# layout, element by element: quadratic (60,000 elements took 292 s). The deadline is checked
# as it goes, so a huge page stops the script itself; only the page of elements asked for
# (offset, maxChars of JSON) crosses, as one JSON text.
_COLLECT = """([scope, attr, offset, maxChars, maxElements, timeoutMs]) => {
  const INTERACTIVE = 'a[href], button, input, select, textarea, summary, [role=button], [role=link], [role=checkbox], [role=tab], [role=menuitem], [onclick], [contenteditable=""], [contenteditable=true], [tabindex]:not([tabindex="-1"])';
  const deadline = performance.now() + timeoutMs;
  const late = (i) => i % 256 === 0 && performance.now() > deadline;
  window.__taskplateRef = window.__taskplateRef || 0;
  const root = scope ? document.querySelector(scope) : document;
  if (!root) return null;
  const candidates = [];
  const gather = (node) => {
    for (const el of node.querySelectorAll('*')) {
      if (el.shadowRoot) gather(el.shadowRoot);
      if (el.matches(INTERACTIVE)) candidates.push(el);
    }
  };
  gather(root);
  const labelText = (label) => {
    const copy = label.cloneNode(true);
    copy.querySelectorAll('select, textarea, input, button').forEach((n) => n.remove());
    return copy.textContent.trim().replace(/\\s+/g, ' ');
  };
  const implicitRole = (el, tag) => {
    if (tag === 'a') return 'link';
    if (tag === 'select') return 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'input') return ({checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button', file: 'button', range: 'slider'})[el.type] || 'textbox';
    return tag === 'summary' ? 'button' : (tag === 'button' ? 'button' : 'generic');
  };
  const listed = [], items = [];
  let capped = false;
  for (let i = 0; i < candidates.length; i++) {
    if (late(i)) return JSON.stringify({timedOut: true, listed: items.length});
    const el = candidates[i];
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if ((box.width === 0 && box.height === 0 && el.type !== 'file') || style.visibility === 'hidden' || style.display === 'none') continue;
    if (items.length === maxElements) { capped = true; break; }
    const tag = el.tagName.toLowerCase();
    const control = tag === 'input' || tag === 'select' || tag === 'textarea';
    const text = control ? '' : (el.innerText || '').trim().replace(/\\s+/g, ' ');
    const label = el.labels && el.labels.length ? labelText(el.labels[0]) : '';
    const name = el.getAttribute('aria-label') || label || text || el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('alt') || el.getAttribute('name') || el.id || '';
    const item = {ref: el.getAttribute(attr), tag, role: el.getAttribute('role') || implicitRole(el, tag), name: name.slice(0, 100)};
    if (el.type && tag === 'input') item.type = el.type;
    if ((tag === 'input' || tag === 'textarea' || tag === 'select') && el.type !== 'password') item.value = String(el.value).slice(0, 100);
    if (el.type === 'checkbox' || el.type === 'radio') item.checked = el.checked;
    if (tag === 'a') item.href = el.href;
    if (el.disabled) item.disabled = true;
    listed.push(el);
    items.push(item);
  }
  for (let i = 0; i < items.length; i++) {
    if (!items[i].ref) { items[i].ref = 'e' + (++window.__taskplateRef); listed[i].setAttribute(attr, items[i].ref); }
  }
  const elements = [];
  let size = 0, next = null;
  for (let i = offset; i < items.length; i++) {
    size += JSON.stringify(items[i]).length + 1;
    if (size > maxChars && elements.length) { next = i; break; }
    elements.push(items[i]);
  }
  return JSON.stringify({elements, total: items.length, nextOffset: next, capped});
}"""


def _timed_out(timeout_ms: int, listed: int) -> TaskplateError:
    return TaskplateError(
        ErrorCode.EXECUTION_ERROR,
        f"the snapshot did not finish within {timeout_ms} ms ({listed:,} elements read)",
        "Give a selector to snapshot part of the page, or raise timeoutMs.",
        {"timeoutMs": timeout_ms},
    )


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    tab = await ctx.tab()
    warnings = await settle(tab, args)  # right after navigate: once the page has settled
    failed = await tab.error_page() if warnings or tab.may_show_error_page() else None
    if failed is not None:
        raise failed
    timeout_ms = args.get("timeoutMs", DEFAULT_TIMEOUT_MS)
    given = [
        args.get("selector"),
        REF_ATTRIBUTE,
        args.get("offset", 0),
        args.get("maxBytes", 50_000),
    ]
    try:
        # the page stops itself at the deadline; this is for a script held in one long call
        with anyio.fail_after(timeout_ms / 1000 + _GRACE_S):
            text = await page.evaluate(_COLLECT, [*given, MAX_ELEMENTS, timeout_ms])
    except TimeoutError:
        raise _timed_out(timeout_ms, 0) from None
    except Exception as exc:
        raise translate(
            exc, doing="taking a snapshot", timeout_code=ErrorCode.EXECUTION_ERROR
        ) from None
    if text is None:
        raise TaskplateError(
            ErrorCode.ELEMENT_NOT_FOUND,
            f'selector "{args["selector"]}" matches no element',
            "Check the selector.",
        )
    taken = json.loads(text)
    if taken.get("timedOut"):
        raise _timed_out(timeout_ms, taken["listed"])
    if taken["capped"]:
        warnings.append(
            f"the snapshot lists the first {MAX_ELEMENTS:,} interactive elements of the page, "
            "its most; give a selector to see the others"
        )
    answer = {
        "url": page.url,
        "title": await page.title(),
        "elements": taken["elements"],
        "total": taken["total"],
        "truncated": taken["nextOffset"] is not None,
        "nextOffset": taken["nextOffset"],
    }
    return answer | ({"warnings": warnings} if warnings else {})


ACTION = ActionSpec(
    name="snapshot",
    level=Level.L0,
    summary="Interactive elements with stable refs for click/fill.",
    args_schema=args(
        {
            "selector": css_selector("Only inside this element.", "query"),
            "maxBytes": {
                "type": "integer",
                "minimum": 1_000,
                "maximum": 1_000_000,
                "default": 50_000,
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_INDEX,
                "default": 0,
            },
            "timeoutMs": {
                "type": "integer",
                "minimum": 1,
                "maximum": 300_000,
                "default": DEFAULT_TIMEOUT_MS,
            },
            "waitForStable": WAIT_FOR_STABLE,
        }
    ),
    result_schema=result(
        {
            "url": STRING,
            "title": STRING,
            "elements": {"type": "array", "items": {"type": "object"}},
            "total": INTEGER,
            "truncated": BOOLEAN,
            "nextOffset": {"type": ["integer", "null"]},
        }
    ),
    pure=True,
    run=run,
)
