"""What a run knows of each host it reads over HTTP: its robots.txt rules, its slots and
delay, and how its pages read (over HTTP or only in the browser). State only: no requests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anyio


@dataclass
class HostReading:
    """How one host's pages read in this run, learned by `read_page` (engine auto): 'http' once
    its first pages read the same over HTTP as in the browser, 'browser' once one did not."""

    engine: str | None = None
    why: str = ""
    agreed: int = 0  # pages read both ways that agreed
    trying: int = 0  # pages being read both ways now
    changed: anyio.Event = field(default_factory=anyio.Event)

    def settle(self) -> None:
        """A page read both ways ended: whoever waits for the verdict looks again."""
        changed, self.changed = self.changed, anyio.Event()
        changed.set()


@dataclass
class Host:
    """One host's politeness state: its robots rules, its slots and when it may be asked again;
    and how its pages read (`HostReading`)."""

    slots: anyio.CapacityLimiter
    robots: Any = None  # protego.Protego, or None when there is no robots.txt
    robots_read: anyio.Event | None = None
    next_at: float = 0.0
    delay: float = 0.0
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    reading: HostReading = field(default_factory=HostReading)
