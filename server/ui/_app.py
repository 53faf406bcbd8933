"""The runs page as an ASGI app: its routes, each behind the Host, token and locality checks;
the Cancel and Resume forms (signed, same origin), artifact downloads, the script and style.

Cancels and resumes through the run manager; reads runs through its reads only.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import Applied, RunManager

from ._access import FormTokens, UiAccess, same_origin
from ._html import HEADERS, plain, static
from ._pages import RunsPage

Endpoint = Callable[[Request], Awaitable[Response]]
# writes a run's repair into its template file, once the template's cases pass with it
# (`apply_run_repair`, given by `dsl ui`: the operator's own page on their machine)
Repairer = Callable[[str], Awaitable[Applied]]
STATIC = {"ui.css": "text/css", "ui.js": "text/javascript"}


class RunActions:
    """What the page's forms and links do to a run: cancel, resume, download an artifact."""

    def __init__(
        self, manager: RunManager, forms: FormTokens, repairer: Repairer | None = None
    ) -> None:
        self.manager = manager
        self.forms = forms
        self.repairer = repairer

    async def repair(self, request: Request) -> Response:
        """The run's repair written into its template file (its cases run live with it first):
        what was written, or the coded refusal; the file is unchanged then."""
        run_id = request.path_params["run_id"]
        form = await self._form(request, run_id)
        if isinstance(form, Response):
            return form
        if self.repairer is None:
            return plain("Repairs are applied from `dsl ui` or `dsl repair apply`.", 404)
        try:
            done = await self.repairer(run_id)
        except TaskplateError as error:
            return plain(f"Not written: {error.message} [{error.code}]\n{error.recover_hint}", 409)
        cases = ", ".join(done.cases) or "none"
        return plain(
            f"Written to {done.template} (cases passed live with it: {cases}).\n\n{done.diff}", 200
        )

    async def cancel(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        form = await self._form(request, run_id)
        if isinstance(form, Response):
            return form
        try:
            await self.manager.cancel(run_id, force=form.get("force") == "1")
        except TaskplateError as error:
            return plain(error.message, 404)
        return _back_to(request, run_id)

    async def resume(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        form = await self._form(request, run_id)
        if isinstance(form, Response):
            return form
        try:
            await self.manager.resume(run_id)
        except TaskplateError as error:
            return plain(error.message, 404)
        return _back_to(request, run_id)

    async def _form(self, request: Request, run_id: str) -> FormData | Response:
        """The posted form, if it came from this page's origin with the run's token."""
        if not same_origin(request):
            return plain("Cross-site request refused.", 403)
        form = await request.form()
        if not self.forms.valid(run_id, str(form.get("csrf") or "")):
            return plain("The form's token is wrong or old: reload the page.", 403)
        return form

    async def artifact(self, request: Request) -> Response:
        run_id, artifact_id = request.path_params["run_id"], request.path_params["artifact_id"]
        meta = await self.manager.artifact_meta(artifact_id)
        if meta is None or meta["run_id"] != run_id:  # only this run's artifacts
            return plain(f"run {run_id} has no artifact {artifact_id}", 404)
        try:
            chunk = await self.manager.read_artifact(artifact_id)
        except TaskplateError as error:
            return plain(error.message, 410 if error.code == ErrorCode.ARTIFACT_EXPIRED else 404)
        mime = str(meta["mime_type"])
        name = re.sub(r"[^A-Za-z0-9._-]", "_", str(meta["name"]))[:100] or "artifact"
        inline = mime in ("image/png", "image/jpeg")
        headers = {
            **HEADERS,
            "Content-Security-Policy": "default-src 'none'; sandbox",
            "Content-Disposition": f'{"inline" if inline else "attachment"}; filename="{name}"',
        }
        return Response(
            chunk.data, media_type=mime if inline else "application/octet-stream", headers=headers
        )


def _back_to(request: Request, run_id: str) -> Response:
    base = request.scope.get("root_path", "")
    return RedirectResponse(f"{base}/runs/{quote(run_id)}", status_code=303)


async def static_file(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in STATIC:
        return plain("not found", 404)
    return Response(static(name), media_type=STATIC[name], headers=HEADERS)


def ui_app(manager: RunManager, access: UiAccess, repairer: Repairer | None = None) -> Starlette:
    """The runs page as an ASGI app: `/`, `/runs/<runId>` and what they link to; with
    `repairer`, a run's repair can be written into its template from its page."""
    forms = FormTokens()  # signs cancel forms; new at every start
    pages = RunsPage(manager, forms, repairs=repairer is not None)
    actions = RunActions(manager, forms, repairer)

    def route(path: str, handler: Endpoint, **kw: Any) -> Route:
        async def entry(request: Request) -> Response:
            if not access.host_ok(request.headers.get("host", "")):
                return plain("Invalid Host header", 421)
            if request.method == "GET":
                upgraded = access.with_token(request)
                if upgraded is not None:
                    return upgraded
            refused = access.refusal(request)
            if refused is not None:
                return refused
            return await handler(request)

        return Route(path, entry, **kw)

    return Starlette(
        routes=[
            route("/", pages.runs),
            route("/runs/{run_id}", pages.run),
            route("/runs/{run_id}/artifacts/{artifact_id}", actions.artifact),
            route("/runs/{run_id}/cancel", actions.cancel, methods=["POST"]),
            route("/runs/{run_id}/resume", actions.resume, methods=["POST"]),
            route("/runs/{run_id}/repair", actions.repair, methods=["POST"]),
            route("/static/{name}", static_file),
        ]
    )
