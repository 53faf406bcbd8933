"""The `snapshot` action: the page's interactive elements, indexed with refs agents can click.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec
from taskplate.stdlib._elements import REF_ATTRIBUTE
from taskplate.stdlib.get_page_content import WAIT_FOR_STABLE, settle

from ._schemas import BOOLEAN, INTEGER, MAX_INDEX, STRING, args, css_selector, result

if TYPE_CHECKING:
    from taskplate.stdlib._context import ActionContext

_COLLECT = """([scope, attr]) => {
  const INTERACTIVE = 'a[href], button, input, select, textarea, summary, [role=button], [role=link], [role=checkbox], [role=tab], [role=menuitem], [onclick], [contenteditable=""], [contenteditable=true], [tabindex]:not([tabindex="-1"])';
  window.__taskplateRef = window.__taskplateRef || 0;
  const root = scope ? document.querySelector(scope) : document;
  if (!root) return null;
  const out = [];
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
  const visit = (node) => {
    for (const el of node.querySelectorAll('*')) {
      if (el.shadowRoot) visit(el.shadowRoot);
      if (!el.matches(INTERACTIVE)) continue;
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if ((box.width === 0 && box.height === 0 && el.type !== 'file') || style.visibility === 'hidden' || style.display === 'none') continue;
      let ref = el.getAttribute(attr);
      if (!ref) { ref = 'e' + (++window.__taskplateRef); el.setAttribute(attr, ref); }
      const tag = el.tagName.toLowerCase();
      const control = tag === 'input' || tag === 'select' || tag === 'textarea';
      const text = control ? '' : (el.innerText || '').trim().replace(/\\s+/g, ' ');
      const label = el.labels && el.labels.length ? labelText(el.labels[0]) : '';
      const name = el.getAttribute('aria-label') || label || text || el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('alt') || el.getAttribute('name') || el.id || '';
      const item = {ref, tag, role: el.getAttribute('role') || implicitRole(el, tag), name: name.slice(0, 100)};
      if (el.type && tag === 'input') item.type = el.type;
      if ((tag === 'input' || tag === 'textarea' || tag === 'select') && el.type !== 'password') item.value = String(el.value).slice(0, 100);
      if (el.type === 'checkbox' || el.type === 'radio') item.checked = el.checked;
      if (tag === 'a') item.href = el.href;
      if (el.disabled) item.disabled = true;
      out.push(item);
    }
  };
  visit(root);
  return out;
}"""


def page_of(
    elements: list[dict[str, Any]], offset: int, max_bytes: int
) -> tuple[list[dict[str, Any]], int | None]:
    """Elements from offset while their JSON fits in max_bytes, and the next offset if any."""
    chosen: list[dict[str, Any]] = []
    size = 0
    for index in range(offset, len(elements)):
        size += len(json.dumps(elements[index], ensure_ascii=False)) + 1
        if size > max_bytes and chosen:
            return chosen, index
        chosen.append(elements[index])
    return chosen, None


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    tab = await ctx.tab()
    warnings = await settle(tab, args)  # right after navigate: once the page has settled
    failed = await tab.error_page() if warnings or tab.may_show_error_page() else None
    if failed is not None:
        raise failed
    try:
        elements = await page.evaluate(_COLLECT, [args.get("selector"), REF_ATTRIBUTE])
    except Exception as exc:
        raise translate(
            exc, doing="taking a snapshot", timeout_code=ErrorCode.EXECUTION_ERROR
        ) from None
    if elements is None:
        raise TaskplateError(
            ErrorCode.ELEMENT_NOT_FOUND,
            f'selector "{args["selector"]}" matches no element',
            "Check the selector.",
        )
    offset = args.get("offset", 0)
    chosen, next_offset = page_of(elements, offset, args.get("maxBytes", 50_000))
    answer = {
        "url": page.url,
        "title": await page.title(),
        "elements": chosen,
        "total": len(elements),
        "truncated": next_offset is not None,
        "nextOffset": next_offset,
    }
    return answer | ({"warnings": warnings} if warnings else {})


ACTION = ActionSpec(
    name="snapshot",
    level=Level.L0,
    summary="Interactive elements with stable refs for click/fill, paged by maxBytes.",
    args_schema=args(
        {
            "selector": css_selector("only inside this element.", "query"),
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
                "description": "First element index.",
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
