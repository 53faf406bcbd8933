"""`browser-identity`: a template's `browser` block names a device Playwright knows and a time
zone the system knows. Reads the template's `browser` only (its shape is template_schema's).
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity


def _on_graph(ctx: Context, report: Report) -> None:
    browser = ctx.template.browser
    device = browser.get("device")
    if isinstance(device, str):
        from .._devices import device_names

        names = device_names()
        if device not in names:
            near = [n for n in names if n.lower().startswith(device.lower()[:6])][:3]
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            report(
                f'browser.device "{device}" is not one of Playwright\'s devices{hint}',
                "/browser/device",
            )
    zone = browser.get("timezoneId")
    if isinstance(zone, str):
        import zoneinfo

        if zone not in zoneinfo.available_timezones():
            report(
                f'browser.timezoneId "{zone}" is not an IANA time zone (Europe/Berlin)',
                "/browser/timezoneId",
            )


RULE = Rule(
    "browser-identity",
    Severity.ERROR,
    "a `browser.device` that is not one of Playwright's devices, or a `browser.timezoneId` that "
    "is not an IANA time zone",
    on_graph=_on_graph,
)
