"""A run's timeline: an SVG of its steps per tab over time, steps too narrow to point at
drawn as one bar, how many loop items were in flight at once, and the run's moves between
servers (`_moves`).

Rendering only; no inline styles (the page's CSP forbids them).
"""

from __future__ import annotations

from typing import Any

from ._html import e
from ._moves import move_marks, moves
from ._steps import anchor, ms, outer_item


def _lanes(steps: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    lanes: dict[str, list[dict[str, Any]]] = {}
    for step in steps:
        if step["t0"] is None:
            continue
        lanes.setdefault(step.get("tabId") or "no tab", []).append(step)
    return lanes


def most_at_once(steps: list[dict[str, Any]]) -> int:
    """The most loop items in flight at one moment: the sliding window's fill."""
    spans: dict[int, list[float]] = {}
    for s in steps:
        item = outer_item(s)  # an inner loop's rows run inside their outer item
        if item is None or s["t0"] is None:
            continue
        span = spans.setdefault(item, [s["t0"], s["t1"]])
        span[0], span[1] = min(span[0], s["t0"]), max(span[1], s["t1"])
    edges = sorted([(a, 1) for a, _ in spans.values()] + [(b, -1) for _, b in spans.values()])
    most = now = 0
    for _, delta in edges:
        now += delta
        most = max(most, now)
    return most


def timeline(steps: list[dict[str, Any]], link: str, events: list[dict[str, Any]]) -> str:
    """An SVG of the steps per tab over time (no inline styles: the page's CSP forbids them).
    Each bar names its step (its title, shown on hover); a failed one links to its failure,
    a click on an item's opens the item's steps (the script: a link per bar costs a large run's
    page a tenth of its load)."""
    lanes = _lanes(steps)
    if not lanes:
        return f"<h2>Timeline</h2><p>No steps yet.</p>{moves(events)}"
    t0 = min(s["t0"] for lane in lanes.values() for s in lane)
    span = max(max(s["t1"] for lane in lanes.values() for s in lane) - t0, 0.001)
    width, label, lane_h = 1000, 90, 24
    scale = (width - label) / span
    rows = []
    for number, (tab, lane) in enumerate(sorted(lanes.items())):
        y = number * lane_h
        rows.append(f"<text class=lane x=0 y={y + 16}>{e(tab)}</text>")
        groups = _pixels(sorted(lane, key=lambda s: s["t0"]), t0, scale, label)
        groups.sort(key=lambda g: g[0]["status"] == "failed")  # drawn last: on top, in reach
        for group in groups:
            s = group[0]
            x = label + (s["t0"] - t0) * scale
            w = max(2.0, (max(g["t1"] for g in group) - s["t0"]) * scale)
            item = "" if s["itemIndex"] is None else f" data-item={s['itemIndex']}"
            tip = _tip(s) if len(group) == 1 else _tips(group)
            bar = (
                f"<rect class='step {e(s['status'])}' x={x:.1f} y={y + 3} width={w:.1f} "
                f"height={lane_h - 6}{item}><title>{e(tip)}</title></rect>"
            )
            if s["itemIndex"] is not None and w >= 18 and len(group) == 1:  # the tab's item
                bar += f"<text class=item x={x + 3:.1f} y={y + 16}>{s['itemIndex']}</text>"
            if s["status"] == "failed":
                bar = f"<a href='#failure-{anchor(s)}'>{bar}</a>"
            rows.append(bar)
    height = len(lanes) * lane_h
    rows += move_marks(events, t0, scale, label, height)
    window = most_at_once(steps)
    lanes_text = f"{len(lanes)} lane{'s' if len(lanes) > 1 else ''}"
    note = (
        f"<p class=hint>{lanes_text}; up to {window} item{'s' if window > 1 else ''} in flight "
        "at once.</p>"
        if window
        else f"<p class=hint>{lanes_text}.</p>"
    )
    return (
        f"<h2>Timeline</h2>{note}<svg class=timeline viewBox='0 0 {width} {height}' "
        f"width={width} height={height} role=img aria-label='steps per tab over time'>"
        f"{''.join(rows)}</svg><p class=hint>{span:.2f} s from the first step to the last.</p>"
        f"{moves(events)}"
    )


def _pixels(
    lane: list[dict[str, Any]], t0: float, scale: float, label: int
) -> list[list[dict[str, Any]]]:
    """A lane's bars, where steps of the same outcome that would share a pixel share one bar
    (in a run of thousands of steps most are narrower than a pixel: no one could point at one,
    and each costs the page its share of a second). A failed step keeps its own bar."""
    groups: list[list[dict[str, Any]]] = []
    end = -1.0
    for s in lane:
        x = label + (s["t0"] - t0) * scale
        narrow = (s["t1"] - s["t0"]) * scale < 1
        last = groups[-1] if groups else None
        right = label + (s["t1"] - t0) * scale
        if (
            last is not None
            and narrow
            and s["status"] != "failed"
            and last[0]["status"] == s["status"]
            and x <= end + 1
            and (last[-1]["t1"] - last[-1]["t0"]) * scale < 1
        ):
            last.append(s)
            end = max(end, right)
        else:
            groups.append([s])
            end = right
    return groups


def _tips(group: list[dict[str, Any]]) -> str:
    """What a bar of several steps says: how many, which items, which steps."""
    items = sorted({s["itemIndex"] for s in group if s["itemIndex"] is not None})
    names = list(dict.fromkeys(str(s["stepId"] or s["action"]) for s in group))
    which = f" of items {items[0]}–{items[-1]}" if len(items) > 1 else ""
    if len(items) == 1:
        which = f" of item {items[0]}"
    return f"{len(group)} steps {group[0]['status']}{which}: {', '.join(names[:6])}"


def _tip(s: dict[str, Any]) -> str:
    """What a timeline bar says on hover: its step, item, action, status, time and error."""
    item = "" if s["itemIndex"] is None else f" · item {s['itemIndex']}"
    tip = f"{s['stepId'] or s['action']}{item}: {s['action']} {s['status']}, {ms(s)}"
    if s["attempts"] > 1:
        tip += f", {s['attempts']} attempts"
    if s.get("error"):
        tip += f" ({s['error'].get('code')}: {s['error'].get('message')})"
    return tip
