"""What a run opens on first use: its browser session (asked of the run manager's factory once,
closed by the manager) and its HTTP client (closed here), both under the run's URL policy. Knows
no step.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio

from taskplate.browser import Network, Session, UrlPolicy

if TYPE_CHECKING:
    from taskplate.stdlib import CookieSource, WebClient, WebConfig


@dataclass
class RunResources:
    session_factory: Callable[[], Awaitable[Session]]
    web_config: WebConfig | None = None
    policy: UrlPolicy = field(default_factory=UrlPolicy)  # where the HTTP client may connect
    cookies: CookieSource | None = None  # what the HTTP client starts from (the run's profile)
    network: Network | None = None  # the run's proxy, identity and host pace (its session's too)
    opened: Session | None = None  # the session, once a step asked for it
    _web: WebClient | None = None
    _opening: anyio.Lock = field(default_factory=anyio.Lock)

    async def session(self) -> Session:
        """The run's session, opened once: items whose tabs open lazily ask for it at once."""
        async with self._opening:
            if self.opened is None:
                self.opened = await self.session_factory()
        return self.opened

    def web(self) -> WebClient:
        """The run's HTTP client (robots.txt, per-host limits, the run's cookies), made on first
        use."""
        if self._web is None:
            from taskplate.stdlib import WebClient

            self._web = WebClient(self.web_config, self.policy, self.cookies, self.network)
        return self._web

    async def aclose(self) -> None:
        """Closes what the run opened itself (its HTTP client; tabs close per item)."""
        if self._web is not None:
            web, self._web = self._web, None
            await web.aclose()
