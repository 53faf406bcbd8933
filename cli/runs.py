"""`dsl runs list|show|cancel` and `dsl artifact get`: the run store from the command line,
the same answers as the MCP tools, from any process on the machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import emit, manager
from ._errors import user_errors


@click.group("runs")
def runs() -> None:
    """Runs of every taskplate process on this machine."""


@runs.command("list")
@click.option(
    "--status",
    type=click.Choice(["queued", "running", "succeeded", "failed", "partial_success", "canceled"]),
)
@click.option("--template", "template_id")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 100))
@click.option("--offset", default=0, type=click.IntRange(0))
@user_errors
def list_runs(status: str | None, template_id: str | None, limit: int, offset: int) -> None:
    """Newest first."""
    with manager() as runs:
        emit(runs.list(status, template_id, limit, offset))


@runs.command("show")
@click.argument("run_id")
@click.option("--steps", is_flag=True, help="Include every step execution.")
@user_errors
def show(run_id: str, steps: bool) -> None:
    with manager() as runs:
        emit(runs.describe(run_id, include_steps=steps))


@runs.command("cancel")
@click.argument("run_id")
@click.option("--force", is_flag=True, help="Abort the steps in flight too.")
@user_errors
def cancel(run_id: str, force: bool) -> None:
    with manager() as runs:
        emit(runs.cancel(run_id, force))


@click.group("artifact")
def artifact() -> None:
    """Artifacts of runs."""


@artifact.command("get")
@click.argument("artifact_id")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, writable=True),
    help="Where to write it ('-' for stdout).",
)
@user_errors
def get(artifact_id: str, output: str) -> None:
    chunk_size, offset = 1 << 20, 0
    with manager() as runs:
        target = sys.stdout.buffer if output == "-" else open(Path(output), "wb")  # noqa: SIM115 - closed below
        try:
            while True:
                chunk = runs.artifacts.read(artifact_id, offset, chunk_size)
                target.write(chunk.data)
                offset += len(chunk.data)
                if chunk.complete or not chunk.data:
                    break
        finally:
            if target is not sys.stdout.buffer:
                target.close()
    if output != "-":
        click.echo(f"wrote {offset} bytes to {output}", err=True)
