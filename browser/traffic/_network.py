"""What one run's traffic goes through, for both engines: its proxy, the browser identity it
shows (user agent, locale, viewport…) and its per-host throttle. Values only; no connection.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, unquote

import ada_url

from taskplate.contract import ErrorCode, TaskplateError, field, lazy_dataclass

from ._throttle import HostThrottle
from ._url_host import host_of, url_host

# SOCKS is not one: httpx would need socksio for it, and Chromium takes no credentials for it.
PROXY_SCHEMES = ("http", "https")
DEFAULT_VIEWPORT = (1280, 720)
# `scheme://user:password@` in any text (an error, a log line): the password goes, up to the
# authority's last `@` (a password may hold a raw one).
_CREDENTIALS = re.compile(r"([a-z][a-z0-9+.-]*://[^/\s:@]*):[^\s/]*@", re.I)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PORT = re.compile(r":(\d{1,5})/?$")


def mask_credentials(text: str) -> str:
    """The text with every URL's password replaced by ***."""
    return _CREDENTIALS.sub(r"\1:***@", text)


def _shown(text: str) -> str:
    """A proxy URL as a refusal shows it: its whole userinfo masked (what precedes the text's
    last `@`, which a password with a raw `/` or `@` may run past), at most 200 characters."""
    scheme, sep, rest = text.partition("://")
    if "@" in rest:
        rest = "***@" + rest.rpartition("@")[2]
    elif "@" in scheme:
        scheme = "***@" + scheme.rpartition("@")[2]
    return (scheme + sep + rest)[:200]


def _port(text: str) -> int | None:
    """The port the proxy URL names (1 to 65535); None when it names none, or 0."""
    authority = re.split(r"[/?#\\]", text.partition("://")[2], maxsplit=1)[0]
    authority = authority.rpartition("@")[2]  # as the standard reads it: the last @ before /
    match = _PORT.search(authority)
    port = int(match[1]) if match else 0
    return port if 0 < port < 65536 else None


def _not_a_proxy(where: str, shown: str) -> TaskplateError:
    return TaskplateError(
        ErrorCode.INVALID_PARAMETER,
        f"{where} is not a proxy URL: {shown}",
        "Give it as scheme://[user:password@]host:port, the scheme http or https, the port 1 to"
        " 65535, and /, @ and : in the user or password percent-encoded (%2F, %40, %3A).",
        {"field": where},
    )


@lazy_dataclass(frozen=True)
class Proxy:
    """A proxy both engines send a run's requests through; its password never shown."""

    server: str  # scheme://host:port
    username: str = ""
    password: str = ""
    bypass: str = ""  # hosts that go direct, comma-separated (NO_PROXY's form)

    @staticmethod
    def parse(text: str, where: str, bypass: str = "") -> Proxy:
        """`http://user:pass@host:port` (http or https), its host read as browsers read hosts;
        INVALID_PARAMETER naming `where` (the setting it came from) when it is not one, which
        shows no part of its credentials and no control character."""
        if _CONTROL.search(text):
            raise _not_a_proxy(where, "it holds a control character (CR, LF, tab…)")
        text = text.strip()
        try:
            parsed = ada_url.URL(text)
        except ValueError:
            raise _not_a_proxy(where, _shown(text)) from None
        scheme, host = parsed.protocol.rstrip(":"), url_host(text) or ""
        port = _port(text)
        if scheme not in PROXY_SCHEMES or not host or parsed.pathname not in ("", "/"):
            raise _not_a_proxy(where, _shown(text))
        if port is None:
            raise _not_a_proxy(where, f"{_shown(text)} (no port, or not 1 to 65535)")
        host = f"[{host}]" if ":" in host else host
        return Proxy(
            f"{scheme}://{host}:{port}",
            unquote(parsed.username),
            unquote(parsed.password),
            bypass,
        )

    @property
    def label(self) -> str:
        """The proxy as errors, logs and run records show it: its password masked."""
        if not self.username:
            return self.server
        scheme, rest = self.server.split("://", 1)
        return f"{scheme}://{quote(self.username, safe='')}:***@{rest}"

    @property
    def url(self) -> str:
        """The proxy with its credentials, for httpx."""
        if not self.username:
            return self.server
        scheme, rest = self.server.split("://", 1)
        user, password = quote(self.username, safe=""), quote(self.password, safe="")
        return f"{scheme}://{user}:{password}@{rest}"

    def for_playwright(self) -> dict[str, str]:
        # Chromium sends loopback addresses around any proxy unless told otherwise.
        bypass = ",".join(b for b in (self.bypass, "<-loopback>") if b)
        options = {"server": self.server, "bypass": bypass}
        if self.username:
            options |= {"username": self.username, "password": self.password}
        return options

    def goes_direct(self, host: str) -> bool:
        """Whether `host` is one of the bypass list's (NO_PROXY's rules: a name, a .suffix),
        both read as browsers read hosts (`2130706433` is the entry 127.0.0.1)."""
        host = (host_of(host) or host.lower()).rstrip(".")
        for entry in (e.strip().lower() for e in self.bypass.split(",")):
            entry = entry.removeprefix("*").lstrip(".")
            entry = (host_of(entry) or entry).rstrip(".")
            if entry and (host == entry or host.endswith("." + entry)):
                return True
        return False


def proxy_from_env(env: Mapping[str, str] | None = None) -> Proxy | None:
    """HTTPS_PROXY, else HTTP_PROXY (either case), with NO_PROXY's hosts going direct."""
    env = os.environ if env is None else env
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        if env.get(name):
            bypass = env.get("NO_PROXY") or env.get("no_proxy") or ""
            return Proxy.parse(env[name], name, bypass)
    return None


@lazy_dataclass(frozen=True)
class Identity:
    """The browser a site sees: Playwright's context options for it, and the headers plain
    HTTP sends to look the same (User-Agent, Accept-Language, the extra headers)."""

    user_agent: str | None = None
    locale: str | None = None
    timezone_id: str | None = None
    viewport: tuple[int, int] | None = None
    device: str | None = None  # one of Playwright's device names (dsl's devices.json)
    # its descriptor (new_context's options), looked up by whoever names it: browser/ knows no
    # device list of its own
    device_options: tuple[tuple[str, Any], ...] = ()
    extra_headers: tuple[tuple[str, str], ...] = ()

    @staticmethod
    def from_json(
        data: Mapping[str, Any], device_options: Mapping[str, Any] | None = None
    ) -> Identity:
        """From a template's `browser` block (already checked against its schema), with the
        descriptor of the device it names."""
        viewport = data.get("viewport")
        return Identity(
            device_options=tuple(sorted((device_options or {}).items())),
            user_agent=data.get("userAgent"),
            locale=data.get("locale"),
            timezone_id=data.get("timezoneId"),
            viewport=(int(viewport["width"]), int(viewport["height"])) if viewport else None,
            device=data.get("device"),
            extra_headers=tuple(sorted((data.get("extraHeaders") or {}).items())),
        )

    def context_options(self) -> dict[str, Any]:
        """new_context's options: the device's descriptor, then what is set over it."""
        options = {k: v for k, v in self.device_options if k != "default_browser_type"}
        if self.viewport is not None:
            options["viewport"] = {"width": self.viewport[0], "height": self.viewport[1]}
        options.setdefault(
            "viewport", {"width": DEFAULT_VIEWPORT[0], "height": DEFAULT_VIEWPORT[1]}
        )
        if self.user_agent is not None:
            options["user_agent"] = self.user_agent
        if self.locale is not None:
            options["locale"] = self.locale
        if self.timezone_id is not None:
            options["timezone_id"] = self.timezone_id
        if self.extra_headers:
            options["extra_http_headers"] = dict(self.extra_headers)
        return options

    def http_headers(self) -> dict[str, str]:
        """What plain HTTP sends so that it reads as this browser (none: its own defaults)."""
        headers = dict(self.extra_headers)
        agent = self.context_options().get("user_agent")
        if agent:
            headers["User-Agent"] = agent
        if self.locale:
            headers["Accept-Language"] = accept_language(self.locale)
        return headers


def accept_language(locale: str) -> str:
    """The Accept-Language Chromium sends for a locale: `de-DE` -> `de-DE,de;q=0.9`."""
    language = locale.split("-", 1)[0]
    return locale if language == locale else f"{locale},{language};q=0.9"


@lazy_dataclass
class Network:
    """One run's network, shared by its browser session and its plain HTTP client."""

    proxy: Proxy | None = None
    identity: Identity = field(default_factory=Identity)
    throttle: HostThrottle = field(default_factory=HostThrottle)

    def context_options(self) -> dict[str, Any]:
        options = self.identity.context_options()
        if self.proxy is not None:
            options["proxy"] = self.proxy.for_playwright()
        return options

    def window_options(self) -> dict[str, Any]:
        """A person's headed window of the run (a hand-over): the same proxy, user agent,
        locale, time zone and headers, in a window of the person's own size."""
        kept = ("proxy", "user_agent", "locale", "timezone_id", "extra_http_headers")
        return {k: v for k, v in self.context_options().items() if k in kept}

    @property
    def secrets(self) -> list[str]:
        """What must never be shown of it (masked like a run's secret inputs): the proxy's
        password, and its Proxy-Authorization token (a request's headers in a trace show it)."""
        if self.proxy is None or not self.proxy.password:
            return []
        pair = f"{self.proxy.username}:{self.proxy.password}".encode()
        return [self.proxy.password, base64.b64encode(pair).decode("ascii")]

    def proxy_for(self, host: str) -> Proxy | None:
        """The proxy a request to `host` goes through (None: direct)."""
        if self.proxy is None or self.proxy.goes_direct(host):
            return None
        return self.proxy


def through_proxy(
    error: TaskplateError, proxy: Proxy | None, *, proxys: bool = False
) -> TaskplateError:
    """A page load's error as it reads when the proxy failed it (Chromium's ERR_PROXY_… and
    ERR_TUNNEL_…; `proxys`: the caller knows it was the proxy's): NAVIGATION_FAILED naming the
    proxy, its password masked."""
    message = mask_credentials(error.message)
    if proxy is None or not (proxys or re.search(r"PROXY|TUNNEL", message)):
        return error
    return TaskplateError(
        ErrorCode.NAVIGATION_FAILED,
        f"{message} (through the proxy {proxy.label})",
        "Check that the proxy is up and takes these credentials (the [network] proxy of "
        "taskplate.toml, HTTPS_PROXY or the run's options.proxy).",
        {**(error.details or {}), "proxy": proxy.label},
    )
