"""The runtime's own work on a page, kept out of Playwright's trace.

Playwright's tracing records every API call on a page as an action, with a DOM snapshot before
and after it (and marks the screencast busy for half a second). The runtime's own calls (the
smart wait's polls, reading a page's content, title and metadata, checking where a navigation
landed, clearing a reused tab) were four in five of a batch page's traced calls and most of
tracing's cost, and they buried the run's real actions in the trace. `untraced(call)` runs
`call` with every Playwright call in it sent as an *internal* call: it runs as always, but the
trace records no action and takes no snapshot for it. The network log, console, screencast and
the actions around it are recorded as always.

Relies on Playwright 1.65's Python client (`PLAYWRIGHT`), private parts, checked by
tests/browser/test_untraced.py, which fails loudly if an upgrade changes them:
- `playwright._impl.utils.zones.current_zone()`: the zone of the running task (a ContextVar);
  a channel call made while the zone holds an `apiZone` joins it instead of opening its own
  (`ChannelOwner._wrap_api_call`);
- `playwright._impl.channel_owner.ApiZone(api_name, frames, title, internal)`: a call joining a
  zone whose `internal` is true is sent with `metadata.internal`; the driver's trace recorder
  skips such calls (`createBeforeActionTraceEvent` answers null: no action, no snapshot).
This is how Playwright keeps its own helper calls out of traces (its `@internal` methods). If
those parts are gone, `untraced` runs the call as it is: traced, slower, never broken.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

PLAYWRIGHT = "1.65"  # the client version whose zones this relies on


@functools.cache
def zone_parts() -> tuple[Any, Any] | None:
    """Playwright's `ApiZone` and `current_zone`, imported at the first page call (so that
    `dsl validate`, which loads the actions, never loads Playwright); None when they are gone."""
    try:
        from playwright._impl.channel_owner import ApiZone
        from playwright._impl.utils.zones import current_zone
    except ImportError:  # pragma: no cover - another Playwright: calls are traced as they are
        import logging  # here only: dsl validate loads this module and needs no logging

        logging.getLogger("taskplate.browser").warning(
            "Playwright's internal call zones (as of %s) are gone: traces record every page call",
            PLAYWRIGHT,
        )
        return None
    return ApiZone, current_zone


async def untraced(call: Callable[[], Awaitable[T]]) -> T:
    """`await call()`, each Playwright call in it internal: not a trace action, no snapshot.

    The zone is the running task's (and its children's) only: other tasks' calls meanwhile
    are traced as always."""
    parts = zone_parts()
    if parts is None:
        return await call()
    api_zone, current_zone = parts
    zone = current_zone().with_(
        "apiZone", api_zone(api_name="taskplate", frames=[], title=None, internal=True)
    )
    result: T = await zone.run_async(call)
    return result
