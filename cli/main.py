"""The `dsl` command: one click group whose subcommands live in their own modules.

Translates errors into one clear line and an exit code; never shows a traceback for user mistakes.
"""

from __future__ import annotations

import sys

import click

from . import doctor, graph, run, runs, serve, validate


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="taskplate", prog_name="dsl")
def cli() -> None:
    """taskplate: declarative browser task templates for AI agents."""


cli.add_command(validate.command)
cli.add_command(graph.command)
cli.add_command(run.command)
cli.add_command(runs.runs)
cli.add_command(runs.artifact)
cli.add_command(doctor.command)
cli.add_command(serve.command)


def main() -> None:
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
