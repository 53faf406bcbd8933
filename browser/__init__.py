"""The Playwright runtime: browser launch and relaunch, sessions and tabs, the URL policy,
profiles and their snapshots. Knows nothing of templates; errors come out as TaskplateError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._capture import SHRUNK, Capture, capture_page, element_html, page_state, screenshot
    from ._cleanup import cleanup
    from ._element_probe import (
        check_selectors,
        matched_element,
        matched_indexes,
        matched_reads,
        names_the_same,
        page_elements,
        reads_of_each,
    )
    from ._endpoints import pid_alive, read_loads
    from ._errors import crashed, is_crash, navigation_failed, net_error, too_large, translate
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
    from ._list_probe import ListShape, list_shape
    from ._login import login
    from ._own_profiles import OwnProfiles, sweep
    from ._profiles import ProfileStore, Snapshot
    from ._runtime import BrowserConfig, BrowserRuntime, find_chromium
    from ._session import Session
    from ._sessions import MAX_TABS_PER_PROCESS, MAX_TABS_PER_SESSION, Sessions
    from ._steady import STATE, Steady, wait_for_steady
    from ._tab import Tab
    from ._untraced import untraced
    from ._wait import wait_for_stable
    from .traffic import (
        HostThrottle,
        Identity,
        Network,
        Proxy,
        Resolver,
        UrlPolicy,
        as_read,
        host_of,
        joined,
        mask_credentials,
        proxy_from_env,
        redirect_elsewhere,
        system_resolver,
        through_proxy,
        url_host,
    )

# Public names: the TYPE_CHECKING imports above, loaded on first use: a command that needs only a
# few pays only for those.
__getattr__ = lazy_names(__name__, globals())


__all__ = [
    "MASK",
    "MAX_RECORDING_BYTES",
    "MAX_TABS_PER_PROCESS",
    "MAX_TABS_PER_SESSION",
    "SHRUNK",
    "STATE",
    "BrowserConfig",
    "BrowserRuntime",
    "Capture",
    "HarRecording",
    "HarReplay",
    "HeadedWindow",
    "HostThrottle",
    "Identity",
    "ListShape",
    "Network",
    "OwnProfiles",
    "ProfileStore",
    "Proxy",
    "RecordedAnswers",
    "Resolver",
    "Session",
    "Sessions",
    "Snapshot",
    "Steady",
    "Tab",
    "UrlPolicy",
    "as_read",
    "can_show_window",
    "capture_page",
    "check_selectors",
    "cleanup",
    "crashed",
    "data_home",
    "element_html",
    "find_chromium",
    "host_of",
    "is_crash",
    "joined",
    "list_shape",
    "login",
    "mask_credentials",
    "masked_har",
    "matched_element",
    "matched_indexes",
    "matched_reads",
    "names_the_same",
    "navigation_failed",
    "net_error",
    "page_elements",
    "page_state",
    "pid_alive",
    "proxy_from_env",
    "read_har",
    "read_loads",
    "reads_of_each",
    "redirect_elsewhere",
    "response_body",
    "screenshot",
    "sweep",
    "system_resolver",
    "through_proxy",
    "too_large",
    "translate",
    "untraced",
    "url_host",
    "wait_for_stable",
    "wait_for_steady",
    "write_har",
]
