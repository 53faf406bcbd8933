"""`dsl template from-run ID`: a finished run_steps run (or a session's recorded browser tool
calls) saved as a template in the user template folder, as the MCP tool save_template does.
"""

from __future__ import annotations

import anyio
import click

from taskplate.interpreter import Saved, data_home, open_store, save_recorded

from ._common import emit, library
from ._errors import user_errors


@click.group("template")
def group() -> None:
    """Templates made from what was done."""


@group.command("from-run")
@click.argument("source", metavar="RUN_ID")
@click.option("--name", required=True, help="The template id (lower-case letters, digits, _).")
@click.option("--description", help="What the template does (default: where it came from).")
@click.option("--overwrite", is_flag=True, help="Replace a template saved under this name.")
@click.option("--print", "show", is_flag=True, help="Print the template's text too.")
@user_errors
def from_run(source: str, name: str, description: str | None, overwrite: bool, show: bool) -> None:
    """Save a run's steps (or a session's calls: pass its ses_… id) as a template.

    URLs and typed values become inputs (with the recorded values as defaults), secrets
    password inputs; the file goes to $TASKPLATE_HOME/templates/NAME.yaml."""
    home = data_home()

    async def save() -> Saved:
        async with open_store(home) as store:
            return await save_recorded(
                store,
                library(),
                home,
                source,
                name,
                description=description,
                overwrite=overwrite,
            )

    saved = anyio.run(save)
    answer = saved.to_json()
    text = answer.pop("text")
    emit(answer)
    if show:
        click.echo(text, nl=False)
