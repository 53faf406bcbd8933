"""The runs page's two pages: the runs (filtered, newest first) and one run (its facts,
inputs, result, artifacts, timeline, steps per item, failures, and its Cancel, Resume forms).

Reads runs through the run manager's reads (`RunReads`, a base of it) only; `?part=` answers the pieces the
script polls or opens (`live`, `item`, `items`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import Response

from taskplate.contract import RunStatus, TaskplateError
from taskplate.interpreter import RunManager, RunRow, progress_text

from ._access import FormTokens
from ._html import (
    POLL_MS,
    duration,
    e,
    html,
    json_block,
    page,
    plain,
    when,
    whole,
)
from ._steps import by_item, failures, item_body, page_steps, step_rows, steps_by_item
from ._timeline import timeline

STATUSES = [str(s) for s in RunStatus]


class RunsPage:
    """The pages, over the run manager's reads."""

    def __init__(self, manager: RunManager, forms: FormTokens) -> None:
        self.manager = manager
        self.forms = forms

    # -- pages --------------------------------------------------------------------------------
    async def runs(self, request: Request) -> Response:
        query = request.query_params
        status = query.get("status") or None
        template_id = query.get("templateId") or None
        if status is not None and status not in STATUSES:
            return plain(f"status must be one of {', '.join(STATUSES)}", 400)
        try:
            limit = max(1, min(int(query.get("limit") or 20), 100))
            offset = max(0, int(query.get("offset") or 0))
        except ValueError:
            return plain("limit and offset are whole numbers", 400)
        base = request.scope.get("root_path", "")
        rows, total = await self.manager.run_rows(status, template_id, limit, offset)
        live = self._runs_live(base, rows, total, limit, offset, query)
        if query.get("part") == "live":
            return html(live)
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
        return html(page("Runs", f"<h1>Runs</h1>{form}{live}", base))

    def _runs_live(
        self, base: str, rows: list[RunRow], total: int, limit: int, offset: int, query: Any
    ) -> str:
        body = []
        for row in rows:
            link = f"{base}/runs/{quote(row.run_id)}"
            body.append(
                f"<tr data-run='{e(row.run_id)}'>"
                f"<td><a href='{e(link)}'>{e(row.run_id)}</a></td>"
                f"<td><span class='status {e(row.status)}'>{e(row.status)}</span></td>"
                f"<td>{e(row.template_id)}@{e(row.template_version)}</td>"
                f"<td>{when(row.created_at)}</td>"
                f"<td>{e(duration(row.started_at, row.ended_at))}</td>"
                f"<td>{e(progress_text(row.progress or {}))}</td></tr>"
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
            return plain(error.message, 404)
        query = request.query_params
        steps = page_steps(await self.manager.step_rows(run_id))
        unfold = whole(query.get("item"))
        link = f"{base}/runs/{quote(run_id)}"
        if query.get("part") == "item":  # the steps of an item opened on the page
            items = by_item(steps)[1]
            if unfold not in items:
                return plain(f"run {run_id} has no item {query.get('item')}", 404)
            return html(step_rows(items[unfold], link))
        if query.get("part") == "items":  # the lines of a stretch of items opened on the page
            first, last = whole(query.get("from")), whole(query.get("to"))
            if first is None or last is None:
                return plain("from and to are item numbers", 400)
            items = by_item(steps)[1]
            chosen = {i: items[i] for i in items if first <= i <= last}
            live = not RunStatus(answer["status"]).terminal
            return html("".join(item_body(i, chosen[i], link, True, live) for i in sorted(chosen)))
        row = await self.manager.row(run_id)
        events = await self.manager.run_events(run_id)
        shown = self._run_live(base, answer, row, steps, unfold, events)
        if query.get("part") == "live":
            return html(shown)
        return html(page(run_id, f"<h1>Run <code>{e(run_id)}</code></h1>{shown}", base))

    def _run_live(
        self,
        base: str,
        answer: dict[str, Any],
        row: RunRow,
        steps: list[dict[str, Any]],
        unfold: int | None = None,
        events: list[dict[str, Any]] | None = None,
    ) -> str:
        run_id = answer["runId"]
        terminal = RunStatus(answer["status"]).terminal
        link = f"{base}/runs/{quote(run_id)}"
        cancel = ""
        if not terminal:
            cancel = (
                f"<form class=cancel method=post action='{e(link)}/cancel'>"
                f"<input type=hidden name=csrf value='{e(self.forms.of(run_id))}'>"
                "<label><input type=checkbox name=force value=1> also abort the steps in flight</label>"
                "<button>Cancel run</button></form>"
            )
        facts = (
            "<dl class=facts>"
            f"<dt>Status</dt><dd><span class='status {e(answer['status'])}'>{e(answer['status'])}</span>"
            f"{' (cancel requested)' if row.cancel and not terminal else ''}</dd>"
            f"<dt>Template</dt><dd>{e(answer['templateId'])}@{e(answer['templateVersion'])}</dd>"
            f"<dt>Created</dt><dd>{e(answer['createdAt'])}</dd>"
            f"<dt>Time</dt><dd>{e(duration(row.started_at, row.ended_at))}</dd>"
            f"<dt>Progress</dt><dd>{e(progress_text(answer['progress']))}</dd>"
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
        error = f"<h2>Error</h2>{json_block(answer['error'])}" if "error" in answer else ""
        result = _result(answer)
        return (
            f"<div data-live={'off' if terminal else 'on'} data-poll={POLL_MS}>"
            f"{cancel}{self._waiting(answer, link)}{facts}<h2>Inputs</h2>{json_block(row.inputs)}{error}{result}"
            f"<h2>Artifacts</h2><ul class=artifacts>{artifacts or '<li>none</li>'}</ul>{trace_help}"
            f"{timeline(steps, link, events or [])}"
            f"{steps_by_item(steps, link, unfold, not terminal)}"
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
            f"<input type=hidden name=csrf value='{e(self.forms.of(answer['runId']))}'>"
            "<button>Resume: I am done</button></form></section>"
        )


def _result(answer: dict[str, Any]) -> str:
    """The run's result; a run that failed or was canceled produced none: what its output
    expressions gave from the steps that ran is shown as that, not as a result."""
    if "result" not in answer:
        return ""
    if answer["status"] not in ("failed", "canceled"):
        return f"<h2>Result</h2>{json_block(answer['result'])}"
    return (
        "<h2>Result: not produced</h2>"
        f"<p class=hint>The run {e(answer['status'])}: below is what its output gave from the "
        f"steps that ran, not a result.</p>{json_block(answer['result'])}"
    )
