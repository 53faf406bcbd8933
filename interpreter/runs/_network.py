"""A run's network settled before it starts: its proxy (the run's, the operator's, the
environment's), its browser identity (the template's, what the caller may set) and its cap on
Retry-After. Pure; no connection is made here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taskplate.browser import HostThrottle, Identity, Network, Proxy, proxy_from_env
from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.dsl import Template, listed, validator_for, violations


def operator_network(settings: Mapping[str, Any], profile: str | None = None) -> Network:
    """What every session and run starts from: the proxy of the profile it starts from
    (`[network.profiles.NAME]`), else the data home's `[network]` one, else the environment's
    HTTPS_PROXY/HTTP_PROXY and NO_PROXY."""
    own = settings.get("profiles", {}).get(profile or "", {}).get("proxy")
    proxy, where = (
        (own, f"[network.profiles.{profile}] proxy")
        if own
        else (settings.get("proxy"), "[network] proxy")
    )
    return Network(
        proxy=Proxy.parse(proxy, where, settings.get("no_proxy", ""))
        if proxy
        else proxy_from_env(),
        throttle=HostThrottle(float(settings.get("max_retry_after_s", 60))),
    )


def run_network(
    template: Template,
    options: dict[str, Any],
    trust: TrustLevel,
    settings: Mapping[str, Any],
    *,
    stored: bool = False,
    inputs: dict[str, Any] | None = None,
    profile_id: str | None = None,
) -> Network:
    """The run's network; `options` keeps its proxy masked (the run's row is stored).
    `stored`: options read back from a run's row, whose proxy is masked: a run taken over
    from another process goes through the operator's proxy."""
    base = operator_network(settings, _profile(template, inputs or {}, profile_id))
    proxy = base.proxy
    if options.get("proxy") is not None and not stored:
        proxy = _callers_proxy(options["proxy"], trust, settings)
        options["proxy"] = proxy.label
    throttle = base.throttle
    most = options.get("maxRetryAfterS")
    if most is not None:
        if isinstance(most, bool) or not isinstance(most, int | float) or most < 0:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                "options.maxRetryAfterS must be a number of seconds, 0 or more",
                "Give how long a Retry-After may hold a host back, e.g. 30.",
                {"field": "options.maxRetryAfterS"},
            )
        throttle = HostThrottle(min(float(most), throttle.max_retry_after_s))
    identity = _identity(template, options.get("browser"))
    return Network(proxy, identity, throttle)


def _profile(template: Template, inputs: dict[str, Any], profile_id: str | None) -> str | None:
    """The profile the run's session starts from; None when its expression fails now (the
    run then fails where it opens its session, saying why)."""
    from ._inputs import profile_for

    try:
        return profile_for(template, inputs, profile_id)
    except Exception:
        return None


def _callers_proxy(given: Any, trust: TrustLevel, settings: Mapping[str, Any]) -> Proxy:
    """The caller's options.proxy; a remote caller's must be one of `allow_proxies` (named by
    server: the operator's credentials for it are used when the caller gives none)."""
    if not isinstance(given, str):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            "options.proxy must be a proxy URL (scheme://[user:password@]host:port)",
            "Give it as a string, or leave it out for the operator's proxy.",
            {"field": "options.proxy"},
        )
    proxy = Proxy.parse(given, "options.proxy")
    if trust is TrustLevel.LOCAL:
        return proxy
    allowed = {
        p.server: p
        for p in (
            Proxy.parse(a, "[network] allow_proxies") for a in settings.get("allow_proxies", ())
        )
    }
    if proxy.server not in allowed:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"options.proxy {proxy.label} is not one of the proxies the operator allows remote "
            "callers",
            "Leave options.proxy out (the operator's proxy serves), or ask the operator to list "
            "this proxy in [network] allow_proxies of taskplate.toml.",
            {"field": "options.proxy", "allowed": sorted(allowed)},
        )
    return proxy if proxy.username else allowed[proxy.server]


def _identity(template: Template, given: Any) -> Identity:
    """The template's `browser` block, with what the caller's options.browser may set over it
    (the keys the template lists in `callerMaySet`; none when it lists none)."""
    mine = {k: v for k, v in template.browser.items() if k != "callerMaySet"}
    if given is None:
        return _with_device(mine)
    from taskplate.dsl import TEMPLATE_SCHEMA, identity_problems

    may = set(template.browser.get("callerMaySet", ()))
    if not isinstance(given, dict) or set(given) - may:
        refused = sorted(set(given) - may) if isinstance(given, dict) else []
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"options.browser may set only what template {template.id} lets callers set "
            f"({', '.join(sorted(may)) or 'nothing'})"
            + (f"; not {', '.join(refused)}" if refused else ""),
            "Leave those out, or ask the template's author to list them in browser.callerMaySet.",
            {"field": "options.browser", "callerMaySet": sorted(may)},
        )
    problems = violations(validator_for(TEMPLATE_SCHEMA["properties"]["browser"]), given)
    if problems:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"options.browser: {listed(problems)}",
            "Fix options.browser (docs/networks.md lists its keys).",
            {"field": "options.browser"},
        )
    # the same checks as the template's own block (`browser-identity`), before any page opens,
    # so both engines refuse alike what one of them would refuse or send as given
    problems = identity_problems(given, "options.browser")
    if problems:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            "; ".join(p["message"] for p in problems[:5]),
            "Fix options.browser: an IANA time zone (Europe/Berlin), a Playwright device, "
            "headers other than those the browser sets, printable ASCII values.",
            {"field": "options.browser", "pointers": [p["pointer"] for p in problems[:5]]},
        )
    return _with_device(mine | given)


def _with_device(browser: dict[str, Any]) -> Identity:
    from taskplate.dsl import device_descriptor

    device = browser.get("device")
    return Identity.from_json(browser, device_descriptor(device) if device else None)
