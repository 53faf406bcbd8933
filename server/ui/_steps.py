"""A run's steps on its page: the table of its own steps, each loop item's under a line of
its own (items that succeeded folded in a large run), and its failures with their screenshots.

Rendering only, from the step records `page_steps` makes of the store's rows.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from ._html import e

FOLD_ABOVE = 20  # items: in larger runs, the steps of items that succeeded are folded


def page_steps(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A run's step records as the page shows them (the fields of get_task_run's steps, read
    from the store's rows with their times as seconds, `t0` and `t1`): a run of a thousand
    items has thousands of steps, and writing their times as text to read them back cost the
    page more than all its drawing. Previews and errors were masked when they were recorded."""
    return [
        {
            "stepId": r["step_id"],
            "stepPath": r.get("step_path"),
            "itemIndex": r["item_index"],
            "action": r["action"],
            "status": r["status"],
            "attempts": r["attempts"],
            "t0": r["started_at"],
            "t1": r["ended_at"] if r["ended_at"] is not None else r["started_at"],
            "argsPreview": r["args_preview"],
            "error": r["error"],
            "tabId": r.get("tab_id"),
            "screenshotArtifactId": r.get("screenshot_artifact_id"),
        }
        for r in rows
    ]


def ms(s: dict[str, Any]) -> str:
    if s["t0"] is None:
        return ""
    spent = s["t1"] - s["t0"]
    return f"{spent * 1000:.0f} ms" if spent < 10 else f"{spent:.1f} s"


def _error_text(error: dict[str, Any] | None) -> str:
    if not error:
        return ""
    return f"<code>{e(error.get('code'))}</code> {e(error.get('message'))}"


def _step_row(number: int, s: dict[str, Any], link: str) -> str:
    shot = ""
    if s.get("screenshotArtifactId"):
        src = f"{link}/artifacts/{quote(s['screenshotArtifactId'])}"
        shot = f"<a class=shot-link href='{e(src)}'>screenshot</a>"
    return (
        f"<tr class='step {e(s['status'])}'><td>{number}</td>"
        f"<td title='{e(s.get('argsPreview') or '')}'>{e(s['stepId'] or s['action'])}</td>"
        f"<td>{e(s['action'] or '')}</td>"
        f"<td><span class='status {e(s['status'])}'>{e(s['status'])}</span></td>"
        f"<td>{s['attempts']}</td><td>{e(ms(s))}</td>"
        f"<td class=error>{_error_text(s.get('error'))}</td><td>{shot}</td></tr>"
    )


def step_rows(steps: list[dict[str, Any]], link: str) -> str:
    """Steps in the order they started: what ran, how it ended, how long, why it failed."""
    return "".join(_step_row(n, s, link) for n, s in enumerate(_in_order(steps), 1))


_STEP_HEADS = (
    "<thead><tr><th>#</th><th>Step</th><th>Action</th><th>Status</th>"
    "<th>Attempts</th><th>Time</th><th>Error</th><th>Screenshot</th></tr></thead>"
)


def _in_order(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(steps, key=lambda s: s["t0"] if s["t0"] is not None else float("inf"))


def by_item(
    steps: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[int, list[dict[str, Any]]]]:
    """The run's own steps, and each loop item's."""
    own: list[dict[str, Any]] = []
    items: dict[int, list[dict[str, Any]]] = {}
    for s in steps:
        if s["itemIndex"] is None:
            own.append(s)
        else:
            items.setdefault(s["itemIndex"], []).append(s)
    return own, items


def steps_by_item(
    steps: list[dict[str, Any]], link: str, unfold: int | None = None, live: bool = False
) -> str:
    """Every step in order: the run's own, then each loop item's under a line of its own.

    In a run of more than FOLD_ABOVE items, the items that succeeded are folded: each one to its
    line, and a stretch of them to one line ("items 0–95 succeeded"); the script asks for the
    lines of a stretch (`?part=items&from=A&to=B`) and the steps of an item
    (`?part=item&item=N`) when they are opened, and `?item=N` unfolds an item in the page. One
    table, no <details>: a thousand of those (each with its own shadow tree) took longer to lay
    out than all the rest of the page."""
    if not steps:
        return ""
    own, items = by_item(steps)
    out = []
    if own:
        out.append(
            f"<h2>Steps</h2><table class=steps>{_STEP_HEADS}<tbody>{step_rows(own, link)}"
            "</tbody></table>"
        )
    if items:
        fold = len(items) > FOLD_ABOVE
        failed = sum(1 for item in items.values() if _item_status(item) == "failed")
        note = f"{len(items)} items, {failed} failed"
        if fold:
            note += "; the items that succeeded are folded: click a line to open it"
        out.append(
            f"<h2>Items</h2><p class=hint>{e(note)}.</p><table class='steps items'>"
            f"{_STEP_HEADS}{item_bodies(items, link, fold, unfold, live)}</table>"
        )
    return f"<section class=items>{''.join(out)}</section>"


def item_bodies(
    items: dict[int, list[dict[str, Any]]],
    link: str,
    fold: bool,
    unfold: int | None = None,
    live: bool = False,
) -> str:
    """The items' lines (and the steps of those not folded); stretches of folded items that
    succeeded, one line each (the stretch holding `unfold` stays open). While the run is live,
    an item may have more steps to come: it has succeeded "so far"."""
    out = []
    stretch: list[int] = []

    def close() -> None:
        if len(stretch) > 1 and unfold not in stretch:
            a, b = stretch[0], stretch[-1]
            out.append(
                f"<tbody class='stretch folded' id=items-{a}-{b} data-from={a} data-to={b}>"
                f"<tr class=head><td colspan=8><a href='?item={a}#item-{a}'>items {a}–{b}</a>"
                f" · <span class='status succeeded'>{_succeeded(live)}</span> · {len(stretch)} items"
                "</td></tr></tbody>"
            )
        else:
            out.extend(item_body(i, items[i], link, i != unfold, live) for i in stretch)
        stretch.clear()

    for index in sorted(items):
        if fold and _item_status(items[index]) == "succeeded":
            stretch.append(index)
            continue
        close()
        out.append(item_body(index, items[index], link, fold and index != unfold, live))
    close()
    return "".join(out)


def _item_status(steps: list[dict[str, Any]]) -> str:
    """A step is recorded when it ends: an item failed, or succeeded (so far, in a live run)."""
    return "failed" if any(s["status"] == "failed" for s in steps) else "succeeded"


def _succeeded(live: bool) -> str:
    return "succeeded so far" if live else "succeeded"


def item_body(
    index: int, steps: list[dict[str, Any]], link: str, folded: bool, live: bool = False
) -> str:
    """One item: a line (its status, steps, time and first error), then its steps unless it
    is folded."""
    status = _item_status(steps)
    said = _succeeded(live) if status == "succeeded" else status
    begun = [s for s in steps if s["t0"] is not None]
    spent = f" · {max(s['t1'] for s in begun) - min(s['t0'] for s in begun):.2f} s" if begun else ""
    error = next((s.get("error") for s in steps if s["status"] == "failed"), None)
    why = f" · {_error_text(error)}" if error else ""
    folded = folded and status != "failed"
    head = (
        f"<tr class=head><td colspan=8><a href='?item={index}#item-{index}'>item {index}</a>"
        f" · <span class='status {status}'>{said}</span> · {len(steps)} steps{e(spent)}{why}"
        "</td></tr>"
    )
    rows = "" if folded else step_rows(steps, link)
    shown = "folded" if folded else "open"
    return f"<tbody class='item {status} {shown}' id=item-{index} data-item={index}>{head}{rows}</tbody>"


def anchor(step: dict[str, Any]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"{step['stepId']}-{step['itemIndex']}-{step['t0']:.3f}")


def failures(steps: list[dict[str, Any]], link: str) -> str:
    failed = [s for s in steps if s["status"] == "failed"]
    if not failed:
        return ""
    out = []
    for s in failed:
        error = s.get("error") or {}
        item = "" if s["itemIndex"] is None else f", item {s['itemIndex']}"
        shot = ""
        if s.get("screenshotArtifactId"):
            src = f"{link}/artifacts/{quote(s['screenshotArtifactId'])}"
            shot = (
                f"<img class=shot src='{e(src)}' alt='the page when step {e(s['stepId'])} failed'>"
            )
        out.append(
            f"<article class=failure id='failure-{anchor(s)}'>"
            f"<h3>{e(s['stepId'] or s['action'])}{e(item)} · {e(s['action'])} · {e(s.get('tabId') or '')}</h3>"
            f"<p><code>{e(error.get('code'))}</code> {e(error.get('message'))}</p>{shot}</article>"
        )
    return f"<h2>Failures</h2>{''.join(out)}"
