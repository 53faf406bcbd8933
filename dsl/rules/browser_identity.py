"""`browser-identity`: a template's `browser` block names a device Playwright knows, a time zone
the system knows and headers both engines send alike. Reads the template's `browser` only.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity


def _on_graph(ctx: Context, report: Report) -> None:
    from .._identity import identity_problems

    for problem in identity_problems(ctx.template.browser):
        report(problem["message"], "/browser" + problem["pointer"])


RULE = Rule(
    "browser-identity",
    Severity.ERROR,
    "a `browser.device` that is not one of Playwright's devices, a `browser.timezoneId` that "
    "is not an IANA time zone, or a `browser.extraHeaders` header only the browser may set "
    "(Host, Cookie, Connection, Proxy-*, Sec-*, …) or whose value is not printable ASCII",
    on_graph=_on_graph,
)
