"""The runs page: the run store as a small web page (runs with status, template, timing and
progress; one run's inputs, result, artifacts, a timeline of its steps per tab with each
failure's screenshot, and a Cancel button), rendered here as plain HTML with a little script.

Reads and cancels through the one RunManager; runs nothing. Every text is escaped; the cancel
form carries a token bound to the run and is accepted from this page's own origin only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from html import escape
from importlib.resources import files
from typing import Any
from urllib.parse import quote, urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from taskplate.contract import RunStatus, TaskplateError, TrustLevel
from taskplate.interpreter import RunManager, iso

from ._auth import LOOPBACK_HOSTS, Token, is_loopback

COOKIE = "taskplate_ui"
POLL_MS = 2000
FOLD_ABOVE = 20  # items: in larger runs, the steps of items that succeeded are folded
STATUSES = [str(s) for s in RunStatus]
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_HEADERS = {
    "Content-Security-Policy": _CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}


def e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _static(name: str) -> bytes:
    return (files("taskplate.server") / "ui" / name).read_bytes()


@dataclass
class UiAccess:
    """Who may see the page: bearer tokens when the operator set any (a header, or once in
    `?token=` which leaves a cookie); local callers only unless `allow_remote`; Host names
    allowed (against DNS rebinding)."""

    tokens: list[Token] = field(default_factory=list)
    allow_remote: bool = False
    hosts: list[str] = field(default_factory=lambda: list(LOOPBACK_HOSTS))
    _cookies: dict[str, Token] = field(default_factory=dict)

    def host_ok(self, host_header: str) -> bool:
        for pattern in self.hosts:
            if pattern.endswith(":*"):
                name = pattern[:-2]
                if host_header == name or re.fullmatch(re.escape(name) + r":\d+", host_header):
                    return True
            elif host_header == pattern:
                return True
        return False

    def token_of(self, request: Request) -> Token | None:
        presented = None
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            presented = header[7:].strip()
        if presented is not None:
            return self.match(presented)
        return self._cookies.get(request.cookies.get(COOKIE, ""))

    def match(self, presented: str) -> Token | None:
        digest = hashlib.sha256(presented.encode()).digest()
        found = None
        for known in self.tokens:  # no early exit: the time tells nothing
            if hmac.compare_digest(digest, known.digest):
                found = known
        return found

    def remember(self, token: Token) -> str:
        cookie = secrets.token_urlsafe(32)
        self._cookies[cookie] = token
        return cookie


def _page(title: str, body: str, base: str) -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{e(title)} · taskplate</title>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<link rel=stylesheet href="{e(base)}/static/ui.css"></head><body>'
        f'<header><a href="{e(base)}/">taskplate runs</a></header><main>{body}</main>'
        f'<script src="{e(base)}/static/ui.js"></script></body></html>'
    )


def _when(timestamp: float | None) -> str:
    text = iso(timestamp)
    return f"<time datetime={e(text)}>{e(text[11:19] if text else '')}</time>" if text else ""


def _duration(start: float | None, end: float | None) -> str:
    if start is None:
        return ""
    seconds = (end or time.time()) - start
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _progress(progress: dict[str, Any]) -> str:
    items = progress.get("items")
    if items:
        failed = f", {items['failed']} failed" if items.get("failed") else ""
        return f"{items['done']}/{items['total']} items{failed}"
    return f"{progress.get('doneSteps', 0)}/{progress.get('totalSteps', 0)} steps"


def _whole(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() and len(text) < 10 else None


def _json(value: Any, limit: int = 20_000) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    if len(text) > limit:
        text = text[:limit] + "\n… (cut; download the result for all of it)"
    return f"<pre>{e(text)}</pre>"


class RunsPage:
    """The pages, over one run manager."""

    def __init__(self, manager: RunManager, access: UiAccess) -> None:
        self.manager = manager
        self.access = access
        self.key = secrets.token_bytes(32)  # signs cancel forms; new at every start

    # -- guards -------------------------------------------------------------------------------
    def refusal(self, request: Request) -> Response | None:
        token = None
        if self.access.tokens:
            token = self.access.token_of(request)
            if token is None:
                return _plain(
                    "A token is needed: send Authorization: Bearer TOKEN, or open this page "
                    "once as ?token=TOKEN.",
                    401,
                    {"WWW-Authenticate": 'Bearer realm="taskplate"'},
                )
        client = request.client.host if request.client else ""
        local = (
            token.trust is TrustLevel.LOCAL
            if token is not None and token.trust is not None
            else is_loopback(client)
        )
        if not local and not self.access.allow_remote:
            return _plain(
                "The runs page serves local callers only (the operator can allow others).", 403
            )
        return None

    def csrf(self, run_id: str) -> str:
        return hmac.new(self.key, f"cancel:{run_id}".encode(), hashlib.sha256).hexdigest()

    def same_origin(self, request: Request) -> bool:
        """A browser says where a request comes from (Sec-Fetch-Site, Origin): only this page's
        own origin may post; a client that says nothing must still carry the form's token."""
        site = request.headers.get("sec-fetch-site")
        if site is not None and site != "same-origin":
            return False
        origin = request.headers.get("origin")
        if origin is None or origin == "null":  # "null": a browser hiding it; its site says
            return origin is None or site == "same-origin"
        return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"

    # -- pages --------------------------------------------------------------------------------
    async def runs(self, request: Request) -> Response:
        query = request.query_params
        status = query.get("status") or None
        template_id = query.get("templateId") or None
        if status is not None and status not in STATUSES:
            return _plain(f"status must be one of {', '.join(STATUSES)}", 400)
        try:
            limit = max(1, min(int(query.get("limit") or 20), 100))
            offset = max(0, int(query.get("offset") or 0))
        except ValueError:
            return _plain("limit and offset are whole numbers", 400)
        base = request.scope.get("root_path", "")
        await self.manager.reap()
        rows, total = await self.manager.store.list_runs(status, template_id, limit, offset)
        live = self._runs_live(base, rows, total, limit, offset, query)
        if query.get("part") == "live":
            return _html(live)
        options = "".join(
            f"<option{' selected' if s == status else ''}>{e(s)}</option>" for s in STATUSES
        )
        form = (
            "<form class=filters method=get>"
            f"<label>Status <select name=status><option value=''>any</option>{options}</select></label>"
            f"<label>Template <input name=templateId value='{e(template_id or '')}'></label>"
            f"<label>Limit <input name=limit type=number min=1 max=100 value={limit}></label>"
            "<button>Filter</button></form>"
        )
        return _html(_page("Runs", f"<h1>Runs</h1>{form}{live}", base))

    def _runs_live(
        self, base: str, rows: list[Any], total: int, limit: int, offset: int, query: Any
    ) -> str:
        body = []
        for row in rows:
            link = f"{base}/runs/{quote(row.run_id)}"
            body.append(
                f"<tr data-run='{e(row.run_id)}'>"
                f"<td><a href='{e(link)}'>{e(row.run_id)}</a></td>"
                f"<td><span class='status {e(row.status)}'>{e(row.status)}</span></td>"
                f"<td>{e(row.template_id)}@{e(row.template_version)}</td>"
                f"<td>{_when(row.created_at)}</td>"
                f"<td>{e(_duration(row.started_at, row.ended_at))}</td>"
                f"<td>{e(_progress(row.progress or {}))}</td></tr>"
            )
        if not body:
            body.append("<tr><td colspan=6>No runs.</td></tr>")
        pages = ""
        if offset + limit < total:
            more = {k: v for k, v in query.items() if k != "part"} | {"offset": offset + limit}
            pages = f"<a class=next href='?{e(urlencode(more))}'>older runs</a>"
        return (
            f"<section data-live=on data-poll={POLL_MS}>"
            f"<p class=total>{total} runs, newest first</p>"
            "<table class=runs><thead><tr><th>Run</th><th>Status</th><th>Template</th>"
            "<th>Created (UTC)</th><th>Time</th><th>Progress</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{pages}</section>"
        )

    async def run(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        base = request.scope.get("root_path", "")
        try:
            answer = await self.manager.describe(run_id)
        except TaskplateError as error:
            return _plain(error.message, 404)
        query = request.query_params
        steps = page_steps(await self.manager.store.steps(run_id))
        unfold = _whole(query.get("item"))
        link = f"{base}/runs/{quote(run_id)}"
        if query.get("part") == "item":  # the steps of an item opened on the page
            items = by_item(steps)[1]
            if unfold not in items:
                return _plain(f"run {run_id} has no item {query.get('item')}", 404)
            return _html(step_rows(items[unfold], link))
        if query.get("part") == "items":  # the lines of a stretch of items opened on the page
            first, last = _whole(query.get("from")), _whole(query.get("to"))
            if first is None or last is None:
                return _plain("from and to are item numbers", 400)
            items = by_item(steps)[1]
            chosen = {i: items[i] for i in items if first <= i <= last}
            running = not RunStatus(answer["status"]).terminal
            return _html("".join(_item(i, chosen[i], link, True, running) for i in sorted(chosen)))
        row = await self.manager.store.run(run_id)
        assert row is not None
        live = self._run_live(base, answer, row, steps, unfold)
        if query.get("part") == "live":
            return _html(live)
        return _html(_page(run_id, f"<h1>Run <code>{e(run_id)}</code></h1>{live}", base))

    def _run_live(
        self,
        base: str,
        answer: dict[str, Any],
        row: Any,
        steps: list[dict[str, Any]],
        unfold: int | None = None,
    ) -> str:
        run_id = answer["runId"]
        terminal = RunStatus(answer["status"]).terminal
        link = f"{base}/runs/{quote(run_id)}"
        cancel = ""
        if not terminal:
            cancel = (
                f"<form class=cancel method=post action='{e(link)}/cancel'>"
                f"<input type=hidden name=csrf value='{e(self.csrf(run_id))}'>"
                "<label><input type=checkbox name=force value=1> also abort the steps in flight</label>"
                "<button>Cancel run</button></form>"
            )
        facts = (
            "<dl class=facts>"
            f"<dt>Status</dt><dd><span class='status {e(answer['status'])}'>{e(answer['status'])}</span>"
            f"{' (cancel requested)' if row.cancel and not terminal else ''}</dd>"
            f"<dt>Template</dt><dd>{e(answer['templateId'])}@{e(answer['templateVersion'])}</dd>"
            f"<dt>Created</dt><dd>{e(answer['createdAt'])}</dd>"
            f"<dt>Time</dt><dd>{e(_duration(row.started_at, row.ended_at))}</dd>"
            f"<dt>Progress</dt><dd>{e(_progress(answer['progress']))}</dd>"
            f"<dt>Trace</dt><dd>{e(row.options.get('trace', 'off'))}</dd></dl>"
        )
        artifacts = "".join(
            f"<li><a href='{e(link)}/artifacts/{e(quote(a['artifactId']))}' download='{e(a['name'])}'>"
            f"{e(a['name'])}</a> <span class=meta>{e(a['mimeType'])}, {a['size']} bytes</span></li>"
            for a in answer["artifacts"]
        )
        trace = next((a for a in answer["artifacts"] if a["name"] == "trace.zip"), None)
        trace_help = (
            f"<p class=hint>Open the trace: <code>dsl runs trace {e(run_id)}</code></p>"
            if trace
            else ""
        )
        error = f"<h2>Error</h2>{_json(answer['error'])}" if "error" in answer else ""
        result = f"<h2>Result</h2>{_json(answer['result'])}" if "result" in answer else ""
        return (
            f"<div data-live={'off' if terminal else 'on'} data-poll={POLL_MS}>"
            f"{cancel}{self._waiting(answer, link)}{facts}<h2>Inputs</h2>{_json(row.inputs)}{error}{result}"
            f"<h2>Artifacts</h2><ul class=artifacts>{artifacts or '<li>none</li>'}</ul>{trace_help}"
            f"{timeline(steps, link)}{steps_by_item(steps, link, unfold, not terminal)}"
            f"{failures(steps, link)}</div>"
        )

    def _waiting(self, answer: dict[str, Any], link: str) -> str:
        """A run waiting for a person: what to do, where, the page as it was, and Resume."""
        waiting = answer.get("waitingFor")
        if not waiting:
            return ""
        shot = waiting.get("screenshotArtifactId")
        image = (
            f"<img class=hand-over alt='the page when it was handed over' "
            f"src='{e(link)}/artifacts/{e(quote(shot))}'>"
            if shot
            else ""
        )
        return (
            "<section class=waiting><h2>Waiting for a person</h2>"
            f"<p>{e(waiting['reason'])}</p>"
            f"<p>The page: <a href='{e(waiting['url'])}' rel=noreferrer>{e(waiting['url'])}</a>"
            f" (until {e(waiting.get('timeoutAt', ''))})</p>{image}"
            f"<form class=resume method=post action='{e(link)}/resume'>"
            f"<input type=hidden name=csrf value='{e(self.csrf(answer['runId']))}'>"
            "<button>Resume: I am done</button></form></section>"
        )

    async def resume(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        if not self.same_origin(request):
            return _plain("Cross-site request refused.", 403)
        form = await request.form()
        if not hmac.compare_digest(str(form.get("csrf") or ""), self.csrf(run_id)):
            return _plain("The form's token is wrong or old: reload the page.", 403)
        try:
            await self.manager.resume(run_id)
        except TaskplateError as error:
            return _plain(error.message, 404)
        base = request.scope.get("root_path", "")
        return RedirectResponse(f"{base}/runs/{quote(run_id)}", status_code=303)

    async def artifact(self, request: Request) -> Response:
        run_id, artifact_id = request.path_params["run_id"], request.path_params["artifact_id"]
        meta = await self.manager.store.artifact(artifact_id)
        if meta is None or meta["run_id"] != run_id:
            return _plain(f"run {run_id} has no artifact {artifact_id}", 404)
        try:
            chunk = await self.manager.artifacts.read(artifact_id)
        except TaskplateError as error:
            return _plain(error.message, 410 if error.code == "ARTIFACT_EXPIRED" else 404)
        mime = str(meta["mime_type"])
        name = re.sub(r"[^A-Za-z0-9._-]", "_", str(meta["name"]))[:100] or "artifact"
        inline = mime in ("image/png", "image/jpeg")
        headers = {
            **_HEADERS,
            "Content-Security-Policy": "default-src 'none'; sandbox",
            "Content-Disposition": f'{"inline" if inline else "attachment"}; filename="{name}"',
        }
        return Response(
            chunk.data, media_type=mime if inline else "application/octet-stream", headers=headers
        )

    async def cancel(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        if not self.same_origin(request):
            return _plain("Cross-site request refused.", 403)
        form = await request.form()
        token = str(form.get("csrf") or "")
        if not hmac.compare_digest(token, self.csrf(run_id)):
            return _plain("The form's token is wrong or old: reload the page.", 403)
        try:
            await self.manager.cancel(run_id, force=form.get("force") == "1")
        except TaskplateError as error:
            return _plain(error.message, 404)
        base = request.scope.get("root_path", "")
        return RedirectResponse(f"{base}/runs/{quote(run_id)}", status_code=303)

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        kinds = {"ui.css": "text/css", "ui.js": "text/javascript"}
        if name not in kinds:
            return _plain("not found", 404)
        return Response(_static(name), media_type=kinds[name], headers=_HEADERS)


def page_steps(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A run's step records as the page shows them (the fields of get_task_run's steps, read
    from the store's rows with their times as seconds, `t0` and `t1`): a run of a thousand
    items has thousands of steps, and writing their times as text to read them back cost the
    page more than all its drawing. Previews and errors were masked when they were recorded."""
    return [
        {
            "stepId": r["step_id"],
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
        if s["itemIndex"] is None or s["t0"] is None:
            continue
        span = spans.setdefault(s["itemIndex"], [s["t0"], s["t1"]])
        span[0], span[1] = min(span[0], s["t0"]), max(span[1], s["t1"])
    edges = sorted([(a, 1) for a, _ in spans.values()] + [(b, -1) for _, b in spans.values()])
    most = now = 0
    for _, delta in edges:
        now += delta
        most = max(most, now)
    return most


def timeline(steps: list[dict[str, Any]], link: str) -> str:
    """An SVG of the steps per tab over time (no inline styles: the page's CSP forbids them).
    Each bar names its step (its title, shown on hover); a failed one links to its failure,
    a click on an item's opens the item's steps (the script: a link per bar costs a large run's
    page a tenth of its load)."""
    lanes = _lanes(steps)
    if not lanes:
        return "<h2>Timeline</h2><p>No steps yet.</p>"
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
                bar = f"<a href='#failure-{_anchor(s)}'>{bar}</a>"
            rows.append(bar)
    height = len(lanes) * lane_h
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
    tip = f"{s['stepId'] or s['action']}{item}: {s['action']} {s['status']}, {_ms(s)}"
    if s["attempts"] > 1:
        tip += f", {s['attempts']} attempts"
    if s.get("error"):
        tip += f" ({s['error'].get('code')}: {s['error'].get('message')})"
    return tip


def _ms(s: dict[str, Any]) -> str:
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
        f"<td>{s['attempts']}</td><td>{e(_ms(s))}</td>"
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
            out.extend(_item(i, items[i], link, i != unfold, live) for i in stretch)
        stretch.clear()

    for index in sorted(items):
        if fold and _item_status(items[index]) == "succeeded":
            stretch.append(index)
            continue
        close()
        out.append(_item(index, items[index], link, fold and index != unfold, live))
    close()
    return "".join(out)


def _item_status(steps: list[dict[str, Any]]) -> str:
    """A step is recorded when it ends: an item failed, or succeeded (so far, in a live run)."""
    return "failed" if any(s["status"] == "failed" for s in steps) else "succeeded"


def _succeeded(live: bool) -> str:
    return "succeeded so far" if live else "succeeded"


def _item(
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


def _anchor(step: dict[str, Any]) -> str:
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
            f"<article class=failure id='failure-{_anchor(s)}'>"
            f"<h3>{e(s['stepId'] or s['action'])}{e(item)} · {e(s['action'])} · {e(s.get('tabId') or '')}</h3>"
            f"<p><code>{e(error.get('code'))}</code> {e(error.get('message'))}</p>{shot}</article>"
        )
    return f"<h2>Failures</h2>{''.join(out)}"


def _html(text: str) -> HTMLResponse:
    return HTMLResponse(text, headers=_HEADERS)


def _plain(text: str, status: int, headers: dict[str, str] | None = None) -> Response:
    return Response(
        text + "\n",
        status_code=status,
        media_type="text/plain",
        headers={**_HEADERS, **(headers or {})},
    )


def _guarded(
    page: RunsPage, handler: Callable[[Request], Awaitable[Response]]
) -> Callable[[Request], Awaitable[Response]]:
    async def guarded(request: Request) -> Response:
        refused = page.refusal(request)
        if refused is not None:
            return refused
        return await handler(request)

    return guarded


async def _with_token(page: RunsPage, request: Request) -> Response | None:
    """`?token=…` once: a cookie for the rest of the visit, and the URL without the token."""
    presented = request.query_params.get("token")
    if presented is None or not page.access.tokens:
        return None
    token = page.access.match(presented)
    if token is None:
        return _plain("Wrong token.", 401, {"WWW-Authenticate": 'Bearer realm="taskplate"'})
    rest = {k: v for k, v in request.query_params.items() if k != "token"}
    target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
    response = RedirectResponse(target, status_code=303, headers=_HEADERS)
    response.set_cookie(
        COOKIE,
        page.access.remember(token),
        httponly=True,
        samesite="strict",
        path=request.scope.get("root_path", "") or "/",
    )
    return response


def ui_app(manager: RunManager, access: UiAccess) -> Starlette:
    """The runs page as an ASGI app: `/`, `/runs/<runId>` and what they link to."""
    page = RunsPage(manager, access)

    def route(path: str, handler: Callable[[Request], Awaitable[Response]], **kw: Any) -> Route:
        async def entry(request: Request) -> Response:
            if not access.host_ok(request.headers.get("host", "")):
                return _plain("Invalid Host header", 421)
            if request.method == "GET":
                upgraded = await _with_token(page, request)
                if upgraded is not None:
                    return upgraded
            return await _guarded(page, handler)(request)

        return Route(path, entry, **kw)

    return Starlette(
        routes=[
            route("/", page.runs),
            route("/runs/{run_id}", page.run),
            route("/runs/{run_id}/artifacts/{artifact_id}", page.artifact),
            route("/runs/{run_id}/cancel", page.cancel, methods=["POST"]),
            route("/runs/{run_id}/resume", page.resume, methods=["POST"]),
            route("/static/{name}", page.static),
        ]
    )
