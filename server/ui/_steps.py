"""A run's steps on its page: the table of its own steps, each loop item's under a line of
its own (items that succeeded folded in a large run), each as a tree of the groups and inner
loop items it ran in, and its failures with their screenshots.

Rendering only, from the step rows `page_steps` makes of the store's rows.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from ._html import e

FOLD_ABOVE = 20  # items: in larger runs, the steps of items that succeeded are folded


def page_steps(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A run's step rows as the page shows them (the fields of get_task_run's steps, read
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


def _step_row(number: int, s: dict[str, Any], link: str, name: str, depth: int) -> str:
    shot = ""
    if s.get("screenshotArtifactId"):
        src = f"{link}/artifacts/{quote(s['screenshotArtifactId'])}"
        shot = f"<a class=shot-link href='{e(src)}'>screenshot</a>"
    return (
        f"<tr class='step {e(s['status'])}'><td>{number}</td>"
        f"<td class=depth-{min(depth, MAX_DEPTH)} title='{e(s.get('argsPreview') or '')}'>"
        f"{e(name)}</td>"
        f"<td>{e(s['action'] or '')}</td>"
        f"<td><span class='status {e(s['status'])}'>{e(s['status'])}</span></td>"
        f"<td>{s['attempts']}</td><td>{e(ms(s))}</td>"
        f"<td class=error>{_error_text(s.get('error'))}</td><td>{shot}</td></tr>"
    )


def step_rows(steps: list[dict[str, Any]], link: str) -> str:
    """Steps in the order they started: what ran, how it ended, how long, why it failed; as a
    tree, each under a line of the group or loop item it ran in (`stepPath`) when it changes."""
    out: list[str] = []
    shown: list[str] = []  # the groups and items the rows above are in
    for number, s in enumerate(_in_order(steps), 1):
        place = _place(s)
        parents = place[:-1]
        same = 0
        while same < min(len(parents), len(shown)) and parents[same] == shown[same]:
            same += 1
        out += [
            f"<tr class=group><td></td><td colspan=7 class=depth-{min(depth, MAX_DEPTH)}>"
            f"{e(parents[depth])}</td></tr>"
            for depth in range(same, len(parents))
        ]
        shown = parents
        name = place[-1] if not place[-1].isdigit() else s["action"] or place[-1]
        out.append(_step_row(number, s, link, name, len(parents)))
    return "".join(out)


MAX_DEPTH = 5  # deeper steps are drawn at this indent (ui.css has depth-0 to depth-5)
_ITEM = re.compile(r"\[(\d+)\]")


def _place(s: dict[str, Any]) -> list[str]:
    """Where a step ran below its run (or below the outermost loop item it ran in): the
    groups and items it is in, then its id (or index)."""
    path = s.get("stepPath")
    if not path:
        return [str(s["stepId"] or s["action"] or "?")]
    parts = str(path).split("/")
    outer = next((i for i, part in enumerate(parts) if _ITEM.search(part)), None)
    return parts if outer is None else parts[outer + 1 :]


def outer_item(s: dict[str, Any]) -> int | None:
    """The item of the outermost loop a step ran in (its own index, in a run of old records)."""
    path = s.get("stepPath")
    if not path:
        index: int | None = s["itemIndex"]
        return index
    found = _ITEM.search(path)
    return int(found.group(1)) if found else None


_STEP_HEADS = (
    "<thead><tr><th>#</th><th>Step</th><th>Action</th><th>Status</th>"
    "<th>Attempts</th><th>Time</th><th>Error</th><th>Screenshot</th></tr></thead>"
)


def _in_order(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(steps, key=lambda s: s["t0"] if s["t0"] is not None else float("inf"))


def by_item(
    steps: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[int, list[dict[str, Any]]]]:
    """The run's own steps, and each item's of its outermost loop (an inner loop's rows among
    them)."""
    own: list[dict[str, Any]] = []
    items: dict[int, list[dict[str, Any]]] = {}
    for s in steps:
        index = outer_item(s)
        if index is None:
            own.append(s)
        else:
            items.setdefault(index, []).append(s)
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
