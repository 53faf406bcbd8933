"""Smart waiting: a page is stable when the network has been quiet and the DOM unchanged for
`quiet_ms`, bounded by `timeout_ms`. Watches the page; never changes what it shows.
"""

from __future__ import annotations

import time

import anyio

from ._errors import crashed, is_crash
from ._session import Tab

_OBSERVE = """() => {
  if (!window.__taskplateMutations) {
    window.__taskplateMutations = { last: performance.now() };
    const note = () => { window.__taskplateMutations.last = performance.now(); };
    new MutationObserver(note).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  return performance.now() - window.__taskplateMutations.last;
}"""
POLL_S = 0.05


async def wait_for_stable(
    tab: Tab, timeout_ms: int = 10_000, quiet_ms: int = 500
) -> tuple[bool, int]:
    """(stable, waited ms): True once quiet, False when the time ran out first."""
    start = time.monotonic()
    deadline = start + timeout_ms / 1000
    while True:
        try:
            since_mutation_ms = await tab.page.evaluate(_OBSERVE)
        except Exception as exc:
            if is_crash(exc) or tab.crashed:
                raise crashed(str(exc).splitlines()[0]) from None
            since_mutation_ms = 0  # the page is navigating: not stable yet
        now = time.monotonic()
        network_quiet = tab.inflight == 0 and (now - tab.last_network) * 1000 >= quiet_ms
        if network_quiet and since_mutation_ms >= quiet_ms:
            return True, int((now - start) * 1000)
        if now >= deadline:
            return False, int((now - start) * 1000)
        await anyio.sleep(POLL_S)
