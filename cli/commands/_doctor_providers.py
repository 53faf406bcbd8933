"""The providers part of `dsl doctor`: configuration warnings, lock files, and each
provider started once to see that it answers. Changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio

from taskplate.interpreter import TemplateLibrary

from .providers import connect_all


def providers_report(lib: TemplateLibrary, line: Callable[[bool, str], None]) -> None:
    """Lines for the configuration and every provider an enabled template uses (started
    once to see it answer); the others are only named."""
    config = lib.configuration
    for path in config.files:
        line(True, f"configuration {path}")
    for warning in config.warnings:
        line(False, warning)
    used = {n: p for n, p in config.providers.items() if n in lib.needed}
    listings, failures = anyio.run(connect_all, used) if used else ({}, {})
    locks = lib.actions.locks if lib.actions is not None else None
    for name, provider in sorted(config.providers.items()):
        where = " ".join(provider.command) if provider.command else provider.url
        if name not in used:
            line(
                True,
                f"provider {name} ({provider.transport}: {where}) is not used by an enabled template; not started",
            )
        elif name in listings:
            listing = listings[name]
            line(
                True,
                f"provider {name} ({provider.transport}: {where}) answers: "
                f"{listing.server_name} {listing.server_version}, {len(listing.tools)} tools",
            )
        else:
            line(
                False,
                f"provider {name} ({provider.transport}: {where}): {failures.get(name)}; its tools are absent",
            )
        if name not in used:
            continue
        if locks is not None and name in locks.missing:
            line(False, f"provider {name}: {locks.missing[name]}")
        elif locks is not None and name in locks.stale:
            line(False, locks.stale[name])
    disabled = sorted(config.disabled)
    if disabled:
        line(True, f"templates disabled by configuration: {', '.join(disabled)}")
