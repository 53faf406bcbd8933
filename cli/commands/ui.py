"""`dsl ui`: the runs page of every taskplate process on this machine, as a local web page
(the same pages `dsl serve --transport http` serves under /ui). Reads the run store; runs only
the test cases of a template whose repair the page's button writes (`apply_run_repair`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import click

from taskplate.contract import ErrorCode, TaskplateError

from .._common import manager
from .._errors import user_errors
from .._help import examples
from .._store_option import store_option


@click.command("ui", epilog=examples("dsl ui", "dsl ui --port 9000"))
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", default=8766, show_default=True, type=int, help="The port to listen on.")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Bearer tokens, one per line (also TASKPLATE_TOKENS); the page then asks for one.",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Serve callers that are not local too (other machines, tokens marked remote).",
)
@click.option(
    "--public-host",
    "public_hosts",
    multiple=True,
    metavar="NAME[:PORT]",
    help="A name browsers use to reach this page (Host header).",
)
@store_option
@user_errors
def command(
    host: str, port: int, token_file: Path | None, allow_remote: bool, public_hosts: tuple[str, ...]
) -> None:
    """Serve the runs page on a local web address.

    / lists the runs, /runs/RUN_ID shows one."""
    import uvicorn

    from taskplate.interpreter import Applied, apply_run_repair
    from taskplate.server import HttpSecurity, UiAccess, is_loopback, load_tokens, ui_app

    security = HttpSecurity(load_tokens(token_file), public_hosts)
    if not is_loopback(host) and not (security.tokens and allow_remote):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"refusing to serve the runs page on {host}: it shows inputs and results and can "
            "cancel runs",
            "Bind to 127.0.0.1, or pass --token-file FILE and --allow-remote.",
        )
    runs = manager()
    access = UiAccess(
        security.tokens, allow_remote, list(security.transport(host).allowed_hosts or [])
    )
    shown = f"[{host}]" if ":" in host else host
    click.echo(
        f"runs page on http://{shown}:{port}/"
        + (" (open it once with ?token=TOKEN)" if security.tokens else ""),
        err=True,
    )

    async def repairer(run_id: str) -> Applied:
        return await apply_run_repair(runs, run_id)

    app = ui_app(runs, access, repairer)

    @asynccontextmanager
    async def store_open(_app: object) -> AsyncIterator[None]:
        async with runs:  # the store opens and closes on the server's event loop
            yield

    app.router.lifespan_context = store_open
    uvicorn.run(app, host=host, port=port, log_level="warning")
