"""`--store`, the run store's URL, shared by the commands that read or run runs. Light: `dsl serve`
parses it before the start answers (`taskplate.server.start_on_stdio`), so the run manager's
modules are imported only when the option is given."""

from __future__ import annotations

import os

import click


def _set_store(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value:
        from taskplate.interpreter import STORE_ENV  # only when given: see the module's text

        os.environ[STORE_ENV] = value  # the one setting, for this process and what it starts


store_option = click.option(
    "--store",
    metavar="URL",
    expose_value=False,
    callback=_set_store,
    help="The run store: postgresql://user@host:port/db (default: TASKPLATE_STORE, else SQLite in the data home).",
)
