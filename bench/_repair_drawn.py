"""Pages whose lists a script draws, for the repair benchmarks: the page's `main` is empty at
load and filled 200 ms later (`late`), or filled and then its lists' items (the children of the
boxes that hold `li` or a table body's rows) added again one at a time, 80 ms apart, in their
order (`drip`), as shops and dashboards draw them.

The same trees and changes as the static pages (`_repair_changes`); only the drawing differs.
"""

from __future__ import annotations

import json
import re

from _repair_pages import SITES

# name: (the static site it draws, whether its items come one at a time)
DRAWN = {
    "listing_late": ("listing", False),
    "listing_drip": ("listing", True),
    "table_drip": ("table", True),
}
for _name, (_base, _) in DRAWN.items():
    SITES[_name] = (
        SITES[_base][0],
        SITES[_base][1].replace(f"template: bench_{_base}\n", f"template: bench_{_name}\n"),
    )

_MAIN = re.compile(r"(<main[^>]*>)(.*)(</main>)", re.S)
_DRAW = """<script>
setTimeout(() => {
  const main = document.querySelector("main");
  main.innerHTML = INNER;
  if (!DRIP) return;
  // every child of a list's box, in its order: an item retagged or unwrapped by a change is
  // still drawn in its place, as the site's own script would draw it
  const boxes = new Set([...main.querySelectorAll("li, tbody > tr")].map(el => el.parentNode));
  const items = [...boxes].flatMap(box => [...box.children].map(el => [el, box]));
  for (const [el] of items) el.remove();
  let i = 0;
  const next = () => {
    if (i >= items.length) return;
    const [el, parent] = items[i++];
    parent.appendChild(el);
    setTimeout(next, 80);
  };
  next();
}, 200);
</script>"""


def drawn(site: str, html: str) -> str:
    """The page as `site` draws it: its static HTML for a static site."""
    if site not in DRAWN:
        return html
    found = _MAIN.search(html)
    if found is None:
        return html
    script = _DRAW.replace("INNER", json.dumps(found.group(2))).replace(
        "DRIP", "true" if DRAWN[site][1] else "false"
    )
    emptied = html[: found.start(2)] + html[found.end(2) :]
    return emptied + script
