"""What an action gets to work with: the session and tab it runs in, the caller's trust and
URL policy, and where its artifacts go. Built by the interpreter or a tool call, never by actions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel

if TYPE_CHECKING:
    from playwright.async_api import Page

    from taskplate.browser import Session, Tab, UrlPolicy

    from ._sampling import Sampler
    from .web import WebClient


class ArtifactSink(Protocol):
    async def save(self, name: str, data: bytes, mime_type: str) -> str: ...


class HumanDesk(Protocol):
    """Where a run hands its page to a person (`hand_over`): the run's state and the caller's
    channel. The interpreter provides it; an action without one cannot hand over."""

    async def hand_over(
        self,
        reason: str,
        url: str,
        screenshot_artifact_id: str | None,
        done: Callable[[], Awaitable[bool]],
        timeout_ms: int,
        page: Any = None,
        condition: Callable[[Any], Callable[[], Awaitable[bool]]] | None = None,
    ) -> str:
        """Wait until `done()` holds or the person resumes the run: how it ended. With `page`
        and `condition` (the `done` check for any page) a local person may get a headed window
        of it, where `condition` is checked too and whose state is copied back into `page`.
        How it ended:
        ("condition" or "resumed"); HUMAN_TIMEOUT or HUMAN_DECLINED as a TaskplateError."""
        ...


class ProfilePublisher(Protocol):
    async def publish(self, session: Session, profile_id: str) -> dict[str, Any]: ...


@dataclass
class MemoryArtifacts:
    """Artifacts kept in memory: for tool calls without a run, and for tests."""

    items: dict[str, tuple[str, bytes, str]] = field(default_factory=dict)

    async def save(self, name: str, data: bytes, mime_type: str) -> str:
        artifact_id = f"art_{len(self.items) + 1}"
        self.items[artifact_id] = (name, data, mime_type)
        return artifact_id


@dataclass
class ActionContext:
    """What one action call works with (see the module's docstring)."""

    session: Session | None = None
    tab_id: str | None = None  # None: the session's main tab
    trust: TrustLevel = TrustLevel.LOCAL
    artifacts: ArtifactSink = field(default_factory=MemoryArtifacts)
    profiles: ProfilePublisher | None = None
    warnings: list[str] = field(default_factory=list)
    web: WebClient | None = None  # the run's HTTP client (None: an action call opens its own)
    url_policy: UrlPolicy | None = None  # the run's policy when no browser session is open yet
    human: HumanDesk | None = None  # the run's hand-over desk (None: no run, no person to ask)
    sampler: Sampler | None = None  # the run's language model (llm_extract); None: there is none
    secrets: Sequence[str] = ()  # the run's secret values, masked in what a model is sent
    # For an action that needs no browser but may choose one (read_page): the session and tab
    # it gets, opened on its first call. None: the context's own session and tab.
    browser: Callable[[], Awaitable[tuple[Session, str | None]]] | None = None
    # The run was asked to stop (a cooperative cancel): its item in flight ends with what it
    # has, skipping work that only checks it (read_page's comparison in the browser).
    stopping: Callable[[], bool] = lambda: False

    @property
    def policy(self) -> UrlPolicy:
        if self.session is not None:
            return self.session.policy
        if self.url_policy is not None:
            return self.url_policy
        from taskplate.browser import UrlPolicy  # socket and DNS: not for `dsl validate`

        return UrlPolicy(self.trust)

    def need_session(self) -> Session:
        if self.session is None:
            raise TaskplateError(
                ErrorCode.SESSION_NOT_FOUND,
                "this action needs a browser session",
                "Run it in a session.",
            )
        return self.session

    async def with_browser(self) -> ActionContext:
        """This context with a browser session and tab, opened now if it had none."""
        if self.browser is None:
            self.need_session()
            return self
        session, tab_id = await self.browser()
        return replace(self, session=session, tab_id=tab_id, browser=None)

    async def tab(self) -> Tab:
        session = self.need_session()
        if self.tab_id is None:
            return await session.main()
        await session.ensure_open()
        return session.tab(self.tab_id)

    async def page(self, *, replacing: bool = False, error_page_ok: bool = False) -> Page:
        """The tab's page; a recycled tab is blanked first unless the caller replaces the page.

        A page that ended on the browser's error page cannot be read: NAVIGATION_FAILED (unless
        the caller only reports where the tab is)."""
        tab = await self.tab()
        if tab.crashed:
            from taskplate.browser import crashed

            raise crashed("this tab crashed earlier; open a new tab")
        if not replacing:
            await tab.blank()
            check = not error_page_ok and tab.may_show_error_page()
            failed = await tab.error_page() if check else None
            if failed is not None:
                raise failed
        return tab.page

    async def check_url(self, url: str) -> None:
        why = await self.policy.refusal_async(url)
        if why:
            raise TaskplateError(
                ErrorCode.URL_NOT_ALLOWED,
                f"{url} is not allowed: {why}",
                "Use a public http(s) URL, or ask the operator to allow the host (allowHosts).",
                {"url": url},
            )

    async def save_artifact(self, name: str, data: bytes, mime_type: str) -> str:
        return await self.artifacts.save(name, data, mime_type)
