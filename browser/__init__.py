"""The Playwright runtime: browser launch and relaunch, sessions and tabs, the URL policy.

Knows nothing of templates; errors come out as the contract's TaskplateError.
"""

from ._errors import crashed, is_crash, translate
from ._home import data_home
from ._policy import UrlPolicy, system_resolver
from ._profiles import ProfileStore, Snapshot
from ._runtime import BrowserConfig, BrowserRuntime, find_chromium
from ._session import MAX_TABS_PER_PROCESS, MAX_TABS_PER_SESSION, Session, Sessions, Tab
from ._wait import wait_for_stable

__all__ = [
    "MAX_TABS_PER_PROCESS",
    "MAX_TABS_PER_SESSION",
    "BrowserConfig",
    "BrowserRuntime",
    "ProfileStore",
    "Session",
    "Sessions",
    "Snapshot",
    "Tab",
    "UrlPolicy",
    "crashed",
    "data_home",
    "find_chromium",
    "is_crash",
    "system_resolver",
    "translate",
    "wait_for_stable",
]
