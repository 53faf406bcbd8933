"""`dsl run --resume RUN_ID`: a run whose `dsl run` process was killed goes on here, from its
last finished step (`RunManager.take_over`), and is printed as `dsl run` prints a run. No other
run starts here.
"""

from __future__ import annotations

import sys

import anyio
import click

from taskplate.contract import RunStatus

from .._common import emit, library, manager
from .._errors import report_failed
from .._prompt import TerminalAsker
from ._run_output import EXIT, Bar


def go_on(run_id: str, folders: tuple[str, ...], as_json: bool) -> int:
    """The exit code of the resumed run (as `dsl run`'s); Ctrl-C cancels it."""
    try:
        return anyio.run(_go_on, run_id, folders, as_json)
    except KeyboardInterrupt:
        click.echo("canceled", err=True)
        return 130


async def _go_on(run_id: str, folders: tuple[str, ...], as_json: bool) -> int:
    runs = manager(library(folders))
    runs.terminal = TerminalAsker()
    bar = Bar(run_id)
    bar.enabled = bar.enabled and not as_json
    async with runs.running():
        here = await runs.take_over(run_id)  # RUN_NOT_FOUND, RUN_NOT_RESUMABLE
        if not here and sys.stderr.isatty():
            click.echo(f"{run_id} runs in another process, or has ended: waiting for it", err=True)
        try:
            if bar.enabled:
                with bar.progress:
                    answer = await runs.wait(run_id, bar.update)
            else:
                answer = await runs.wait(run_id)
        except (KeyboardInterrupt, anyio.get_cancelled_exc_class()):
            if here:
                with anyio.CancelScope(shield=True), anyio.move_on_after(15):  # bounded
                    await runs.cancel(run_id, force=True)
            raise
    emit(answer)
    report_failed(answer)  # on stderr, as a user error: `error: … [CODE]` and a hint
    return EXIT.get(RunStatus(answer["status"]), 1)
