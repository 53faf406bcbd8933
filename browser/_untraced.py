"""The runtime's own work on a page, kept out of Playwright's trace.

Playwright's tracing records every API call on a page as an action, with a DOM snapshot (and a
screenshot) before and after it. The runtime's reads (the smart wait's polls, reading content,
title and metadata) were most of a traced page's calls and most of tracing's cost, and they
crowded the trace of what the run did to its pages. `untraced(call)` runs `call` as a
Playwright *internal* call: it still runs, but the driver records no action and takes no
snapshot for it (network and console are recorded as always).

Relies on Playwright 1.65's Python client (checked by tests/browser/test_untraced.py, which
fails loudly if an upgrade changes it):
- `playwright._impl.utils.zones`: the current zone, a ContextVar; a channel call made while the
  zone holds an `apiZone` uses that zone instead of opening its own (`ChannelOwner._wrap_api_call`);
- `playwright._impl.channel_owner.ApiZone(api_name, frames, title, internal)`: a call made in a zone
  whose `internal` is true is sent with `metadata.internal`, which the driver's trace recorder
  skips (`createBeforeActionTraceEvent` answers null, so no snapshot, screenshot or log).
This is the mechanism Playwright itself uses for its own helper calls (`@internal`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from playwright._impl.channel_owner import ApiZone
from playwright._impl.utils.zones import current_zone

T = TypeVar("T")

PLAYWRIGHT_VERSION = "1.65"  # the client whose zones this relies on


def _internal_zone() -> ApiZone:
    return ApiZone(api_name="taskplate", frames=[], title=None, internal=True)


async def untraced(call: Callable[[], Awaitable[T]]) -> T:
    """`await call()`, every Playwright call in it internal: not a trace action, no snapshots."""
    return await current_zone().with_("apiZone", _internal_zone()).run_async(call)
