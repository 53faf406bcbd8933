"""The Playwright runtime: browser launch and relaunch, sessions and tabs, the URL policy,
profiles and their snapshots. Knows nothing of templates; errors come out as TaskplateError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._capture import Capture, capture_page, element_html, page_state
    from ._cleanup import cleanup
    from ._element_probe import check_selectors, matched_element, matched_reads, page_elements
    from ._endpoints import read_loads
    from ._errors import crashed, is_crash, navigation_failed, translate
    from ._har import (
        MASK,
        MAX_RECORDING_BYTES,
        HarRecording,
        HarReplay,
        RecordedAnswers,
        masked_har,
        read_har,
        response_body,
        write_har,
    )
    from ._headed import HeadedWindow, can_show_window
    from ._home import data_home
    from ._login import login
    from ._policy import Resolver, UrlPolicy, redirect_elsewhere, system_resolver
    from ._profiles import ProfileStore, Snapshot
    from ._runtime import BrowserConfig, BrowserRuntime, find_chromium
    from ._session import MAX_TABS_PER_PROCESS, MAX_TABS_PER_SESSION, Session, Sessions, Tab
    from ._untraced import untraced
    from ._wait import wait_for_stable

# Public names, loaded on first use: a command that needs only a few pays only for those.
_LAZY: dict[str, tuple[str, str]] = {
    "element_html": ("._capture", "element_html"),
    "Capture": ("._capture", "Capture"),
    "capture_page": ("._capture", "capture_page"),
    "page_state": ("._capture", "page_state"),
    "cleanup": ("._cleanup", "cleanup"),
    "check_selectors": ("._element_probe", "check_selectors"),
    "matched_element": ("._element_probe", "matched_element"),
    "matched_reads": ("._element_probe", "matched_reads"),
    "page_elements": ("._element_probe", "page_elements"),
    "read_loads": ("._endpoints", "read_loads"),
    "crashed": ("._errors", "crashed"),
    "is_crash": ("._errors", "is_crash"),
    "navigation_failed": ("._errors", "navigation_failed"),
    "translate": ("._errors", "translate"),
    "MASK": ("._har", "MASK"),
    "MAX_RECORDING_BYTES": ("._har", "MAX_RECORDING_BYTES"),
    "HarRecording": ("._har", "HarRecording"),
    "HarReplay": ("._har", "HarReplay"),
    "masked_har": ("._har", "masked_har"),
    "read_har": ("._har", "read_har"),
    "RecordedAnswers": ("._har", "RecordedAnswers"),
    "response_body": ("._har", "response_body"),
    "write_har": ("._har", "write_har"),
    "HeadedWindow": ("._headed", "HeadedWindow"),
    "can_show_window": ("._headed", "can_show_window"),
    "data_home": ("._home", "data_home"),
    "login": ("._login", "login"),
    "Resolver": ("._policy", "Resolver"),
    "UrlPolicy": ("._policy", "UrlPolicy"),
    "system_resolver": ("._policy", "system_resolver"),
    "redirect_elsewhere": ("._policy", "redirect_elsewhere"),
    "ProfileStore": ("._profiles", "ProfileStore"),
    "Snapshot": ("._profiles", "Snapshot"),
    "BrowserConfig": ("._runtime", "BrowserConfig"),
    "BrowserRuntime": ("._runtime", "BrowserRuntime"),
    "find_chromium": ("._runtime", "find_chromium"),
    "MAX_TABS_PER_PROCESS": ("._session", "MAX_TABS_PER_PROCESS"),
    "MAX_TABS_PER_SESSION": ("._session", "MAX_TABS_PER_SESSION"),
    "Session": ("._session", "Session"),
    "Sessions": ("._session", "Sessions"),
    "Tab": ("._session", "Tab"),
    "untraced": ("._untraced", "untraced"),
    "wait_for_stable": ("._wait", "wait_for_stable"),
}

__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "MASK",
    "MAX_RECORDING_BYTES",
    "MAX_TABS_PER_PROCESS",
    "MAX_TABS_PER_SESSION",
    "BrowserConfig",
    "BrowserRuntime",
    "Capture",
    "HarRecording",
    "HarReplay",
    "HeadedWindow",
    "ProfileStore",
    "RecordedAnswers",
    "Resolver",
    "Session",
    "Sessions",
    "Snapshot",
    "Tab",
    "UrlPolicy",
    "can_show_window",
    "capture_page",
    "check_selectors",
    "cleanup",
    "crashed",
    "data_home",
    "element_html",
    "find_chromium",
    "is_crash",
    "login",
    "masked_har",
    "matched_element",
    "matched_reads",
    "navigation_failed",
    "page_elements",
    "page_state",
    "read_har",
    "read_loads",
    "redirect_elsewhere",
    "response_body",
    "system_resolver",
    "translate",
    "untraced",
    "wait_for_stable",
    "write_har",
]
