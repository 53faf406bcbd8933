"""The `dsl` command: a click group whose subcommands live in their own modules, each imported
only when it runs (so `dsl login` does not load the MCP SDK). Never a traceback for user mistakes.
"""

from __future__ import annotations

import gc
import importlib
import sys

import click

from ._help import examples

# command name -> "module:attribute", imported on first use
COMMANDS = {
    "validate": "taskplate.cli.commands.validate:command",
    "graph": "taskplate.cli.commands.graph:command",
    "run": "taskplate.cli.commands.run:command",
    "record": "taskplate.cli.commands.record:command",
    "test": "taskplate.cli.commands.test:command",
    "repair": "taskplate.cli.commands.repair:group",
    "runs": "taskplate.cli.commands.runs:runs",
    "artifact": "taskplate.cli.commands.runs:artifact",
    "doctor": "taskplate.cli.commands.doctor:command",
    "serve": "taskplate.cli.commands.serve:command",
    "login": "taskplate.cli.commands.login:command",
    "lsp": "taskplate.cli.commands.lsp:command",
    "template": "taskplate.cli.commands.template:group",
    "ui": "taskplate.cli.commands.ui:command",
    "providers": "taskplate.cli.commands.providers:providers",
    "docs": "taskplate.cli.commands.docs:command",  # hidden: the checkout's generated docs (make docs)
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, _, attribute = target.partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        _release_collector()
        return command


# main() holds Python's cycle collector while the command's modules load: the hundreds of
# objects each import builds would otherwise be scanned again and again (about a sixth of a cold
# `dsl validate`). What they built lives as long as the process, so it is frozen out of later
# collections, and the collector runs as usual while the command works.
_held = False


def _hold_collector() -> None:
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def _release_collector() -> None:
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=examples(
        "dsl template list",
        "dsl run batch_extract_pages --input urls=https://example.com/",
        "dsl serve",
        "dsl COMMAND --help",
    ),
)
@click.version_option(package_name="taskplate", prog_name="dsl")
def cli() -> None:
    """taskplate: declarative browser task templates for AI agents."""


def main() -> None:
    _hold_collector()
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
