"""A run's moves between servers on its page: "resumed on B after A stopped" and the items that
ran twice, from the run's events (`released`, `resumed`), as sentences and timeline marks.

Rendering only; no inline styles (the page's CSP forbids them).
"""

from __future__ import annotations

import time
from typing import Any

from taskplate.interpreter import RELEASED, RESUMED

from ._html import e


def server_name(owner: Any) -> str:
    """A server as people tell it apart: its host and process id (an owner is host:pid:tag)."""
    if not owner:
        return "another server"
    host, _, rest = str(owner).partition(":")
    return f"{host}:{rest.split(':')[0]}" if rest else host


def said(event: dict[str, Any]) -> str:
    """One event as a sentence."""
    where = server_name(event.get("server"))
    if event["kind"] == RELEASED:
        late = " (its grace ran out: items in flight run again)" if event.get("graceRanOut") else ""
        return (
            f"{where} stopped and handed the run over after {event.get('itemsDone', 0)} items{late}"
        )
    if event["kind"] == RESUMED:
        why = "stopped" if event.get("reason") == "stopped" else "died"
        again = sorted(event.get("repeated") or [])
        twice = (
            f"; item{'s' if len(again) > 1 else ''} {', '.join(map(str, again))} ran twice"
            if again
            else "; no item ran twice"
        )
        return f"resumed on {where} after {server_name(event.get('after'))} {why}{twice}"
    return f"{event['kind']} on {where}"


def moves(events: list[dict[str, Any]]) -> str:
    """The run's moves as a list under its timeline (nothing when it never moved)."""
    if not events:
        return ""
    lines = "".join(
        f"<li><time>{e(time.strftime('%H:%M:%S', time.localtime(ev['at'])))}</time> "
        f"{e(said(ev))}</li>"
        for ev in events
    )
    return f"<h3>Moves between servers</h3><ol class=moves>{lines}</ol>"


def move_marks(
    events: list[dict[str, Any]], t0: float, scale: float, label: int, height: int
) -> list[str]:
    """A line across the timeline at each move, saying it on hover."""
    marks = []
    for ev in events:
        x = label + max(0.0, ev["at"] - t0) * scale
        marks.append(
            f"<line class=move x1={x:.1f} x2={x:.1f} y1=0 y2={height}>"
            f"<title>{e(said(ev))}</title></line>"
        )
    return marks
