"""`dsl runs list|show|cancel|trace` and `dsl artifact get`: the run store from the command
line, the same answers as the MCP tools, from any process on the machine.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import click

from taskplate.contract import ErrorCode, RunStatus, TaskplateError
from taskplate.interpreter import Chunk, RunManager

from .._common import emit, with_runs
from .._errors import user_errors
from .._help import examples
from .._store_option import store_option


@click.group(
    "runs",
    epilog=examples(
        "dsl runs list --status failed", "dsl runs show RUN_ID --steps", "dsl runs cancel RUN_ID"
    ),
)
def runs() -> None:
    """List, show, cancel and trace runs.

    The runs of every taskplate process on the store (this machine's, or --store)."""


@runs.command(
    "list",
    epilog=examples(
        "dsl runs list", "dsl runs list --status failed --template batch_extract_pages"
    ),
)
@click.option(
    "--status",
    type=click.Choice([str(s) for s in RunStatus]),
    help="Only runs in this state.",
)
@click.option("--template", "template_id", metavar="ID", help="Only runs of this template.")
@click.option(
    "--limit",
    default=20,
    show_default=True,
    type=click.IntRange(1, 100),
    help="At most this many runs.",
)
@click.option("--offset", default=0, type=click.IntRange(0), help="Skip this many newest runs.")
@store_option
@user_errors
def list_runs(status: str | None, template_id: str | None, limit: int, offset: int) -> None:
    """List runs, newest first (as list_task_runs answers)."""
    emit(with_runs(lambda runs: runs.list(status, template_id, limit, offset)))


@runs.command("show", epilog=examples("dsl runs show RUN_ID", "dsl runs show RUN_ID --steps"))
@click.argument("run_id")
@click.option("--steps", is_flag=True, help="Include every step execution.")
@store_option
@user_errors
def show(run_id: str, steps: bool) -> None:
    """Show one run.

    As get_task_run answers: status, progress, result or error, artifacts (and steps)."""
    emit(with_runs(lambda runs: runs.describe(run_id, include_steps=steps)))


@runs.command("cancel", epilog=examples("dsl runs cancel RUN_ID", "dsl runs cancel RUN_ID --force"))
@click.argument("run_id")
@click.option("--force", is_flag=True, help="Abort the steps in flight too.")
@store_option
@user_errors
def cancel(run_id: str, force: bool) -> None:
    """Cancel a run.

    The steps running finish (unless --force), the rest are skipped."""
    emit(with_runs(lambda runs: runs.cancel(run_id, force)))


@runs.command("resume", epilog=examples("dsl runs resume RUN_ID"))
@click.argument("run_id")
@user_errors
def resume(run_id: str) -> None:
    """Resume a run that waits for a person.

    Goes on with a run at a hand_over step, once the person is done."""
    emit(with_runs(lambda runs: runs.resume(run_id)))


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or (
        sys.platform in ("darwin", "win32")
    )


def save_trace(run_id: str, output: Path | None) -> Path:
    """The run's trace.zip written to `output` (default: a file under the temp folder)."""

    async def read(runs: RunManager) -> Chunk:
        answer = await runs.describe(run_id)
        found = [a for a in answer["artifacts"] if a["name"] == "trace.zip"]
        if not found:
            raise TaskplateError(
                ErrorCode.ARTIFACT_NOT_FOUND,
                f"run {run_id} kept no trace (it ran with trace off, or succeeded under "
                "on-failure)",
                "Run it again with `dsl run --trace on` (or options.trace on).",
            )
        return await runs.artifacts.read(found[-1]["artifactId"])

    chunk = with_runs(read)
    if output is None:
        folder = Path(tempfile.gettempdir()) / "taskplate-traces"
        folder.mkdir(mode=0o700, exist_ok=True)
        output = folder / f"{run_id}.zip"
    output.write_bytes(chunk.data)
    return output


@runs.command(
    "trace", epilog=examples("dsl runs trace RUN_ID", "dsl runs trace RUN_ID -o trace.zip --print")
)
@click.argument("run_id")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Where to write it."
)
@click.option(
    "--print", "print_only", is_flag=True, help="Print the command instead of opening the viewer."
)
@store_option
@user_errors
def trace(run_id: str, output: Path | None, print_only: bool) -> None:
    """Open a run's Playwright trace in the Trace Viewer.

    Or print the command, where there is no display."""
    path = save_trace(run_id, output)
    viewer = [sys.executable, "-m", "playwright", "show-trace", str(path)]
    click.echo(f"wrote the trace of {run_id} to {path}", err=True)
    if print_only or not has_display():
        click.echo(shlex.join(viewer))
        if not print_only:
            served = [*viewer[:4], "--host", "127.0.0.1", "--port", "9322", str(path)]
            click.echo(
                "no display here: run the command above where there is one, or serve the viewer "
                f"and open http://127.0.0.1:9322 in a browser:\n{shlex.join(served)}",
                err=True,
            )
        return
    sys.exit(subprocess.call(viewer))


@click.group("artifact", epilog=examples("dsl artifact get ARTIFACT_ID -o pages.json"))
def artifact() -> None:
    """Artifacts of runs."""


@artifact.command("get", epilog=examples("dsl artifact get ARTIFACT_ID -o pages.json"))
@click.argument("artifact_id")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, writable=True),
    help="Where to write it ('-' for stdout).",
)
@store_option
@user_errors
def get(artifact_id: str, output: str) -> None:
    """Write a run's artifact to a file.

    A result, an export, a screenshot or a trace, read in chunks."""
    chunk_size = 1 << 20

    async def copy(runs: RunManager) -> int:
        offset = 0
        target = sys.stdout.buffer if output == "-" else open(Path(output), "wb")  # noqa: SIM115 - closed below
        try:
            while True:
                chunk = await runs.artifacts.read(artifact_id, offset, chunk_size)
                target.write(chunk.data)
                offset += len(chunk.data)
                if chunk.complete or not chunk.data:
                    break
        finally:
            if target is not sys.stdout.buffer:
                target.close()
        return offset

    offset = with_runs(copy)
    if output != "-":
        click.echo(f"wrote {offset} bytes to {output}", err=True)
