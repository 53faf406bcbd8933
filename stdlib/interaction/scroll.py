"""The `scroll` action: scroll the page (to load lazy content, until it stops growing) or bring
an element into view.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.contract import Level
from taskplate.dsl import ActionSpec

from .._elements import find
from .._schemas import INTEGER, TARGET_PROPS, args, result

if TYPE_CHECKING:
    from .._context import ActionContext

DEFAULT_QUIET_MS = 1_000

# One scroll and the wait after it, in one evaluate: it answers as soon as the page grows
# (its height or its number of elements; a MutationObserver, and a cheap poll for a height
# that grows without a mutation, such as an image loading), then gives it two frames to lay
# out what came; or after quietMs without growth. A page that did not move and is not at its
# end (or is no taller than the window) cannot scroll: that answers at once.
_SCROLL = """async ([by, top, quietMs]) => {
  const page = document.scrollingElement || document.documentElement;
  const size = () => [page.scrollHeight, document.getElementsByTagName('*').length];
  const [height, count] = size();
  const before = window.scrollY;
  if (by !== null) window.scrollBy(0, by); else window.scrollTo(0, top ? 0 : page.scrollHeight);
  const moved = window.scrollY !== before;
  const atEnd = window.scrollY + window.innerHeight >= page.scrollHeight - 1;
  const stuck = !top && !moved && (!atEnd || page.scrollHeight <= window.innerHeight);
  const grown = () => { const [h, n] = size(); return h !== height || n !== count; };
  if (!stuck && !top && !grown()) {
    await new Promise((resolve) => {
      const stop = () => { observer.disconnect(); clearInterval(poll); clearTimeout(timer); resolve(); };
      const check = () => { if (grown()) stop(); };
      const observer = new MutationObserver(check);
      observer.observe(document, {subtree: true, childList: true, characterData: true});
      const poll = setInterval(check, 50);
      const timer = setTimeout(stop, quietMs);
    });
  }
  // Two frames for the page to lay out what came, so that its observers see the new end.
  if (grown()) await new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); resolve(); }));
  });
  return {stuck, grew: grown(), y: window.scrollY, height: page.scrollHeight};
}"""


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    if args.keys() & {"selector", "xpath", "text", "ref"}:
        await (await find(page, args)).scroll_into_view_if_needed()
        position = await page.evaluate("[window.scrollY, document.documentElement.scrollHeight]")
        return {"scrollY": int(position[0]), "scrollHeight": int(position[1])}
    how = [args.get("by"), args.get("to") == "top", args.get("quietMs", DEFAULT_QUIET_MS)]
    stable = args.get("until") == "stable"
    scrolls, reason, warnings, last = 0, "times", [], {}
    for _ in range(args.get("times", 1)):
        last = await page.evaluate(_SCROLL, how)
        scrolls += 1
        if last["stuck"]:
            reason = "cannot_scroll"
            warnings.append(
                "the page cannot scroll (it is no taller than the window, or it does not move "
                "when scrolled: its content may scroll inside an element; scroll to an element "
                "in it instead)"
            )
            break
        if stable and not last["grew"]:
            reason = "stable"
            break
    out: dict[str, Any] = {
        "scrollY": int(last["y"]),
        "scrollHeight": int(last["height"]),
        "scrolls": scrolls,
        "reason": reason,
    }
    if warnings:
        out["warnings"] = warnings
    return out


ACTION = ActionSpec(
    name="scroll",
    level=Level.L0,
    summary="Scroll to the bottom/top, by a distance, or to an element; repeat for lazy pages, "
    "until they stop growing.",
    args_schema=args(
        {
            **TARGET_PROPS,
            "to": {"enum": ["top", "bottom"]},
            "by": {"type": "integer", "description": "Pixels down (negative: up)."},
            "times": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "default": 1,
                "description": "How many scrolls; with until: stable, the most.",
            },
            "until": {
                "enum": ["stable"],
                "description": "stable: stop once a scroll brings nothing new (the page's "
                "height and number of elements unchanged for quietMs).",
            },
            "quietMs": {
                "type": "integer",
                "minimum": 50,
                "maximum": 10_000,
                "default": DEFAULT_QUIET_MS,
                "description": "How long to wait after a scroll for the page to grow; the "
                "page's loads must come sooner.",
            },
        }
    ),
    result_schema=result(
        {
            "scrollY": INTEGER,
            "scrollHeight": INTEGER,
            "scrolls": {**INTEGER, "description": "How many scrolls were made."},
            "reason": {
                "enum": ["times", "stable", "cannot_scroll"],
                "description": "Why it stopped: all times made, nothing new came, or the page "
                "cannot scroll.",
            },
        },
        ["scrollY", "scrollHeight"],
    ),
    run=run,
)
