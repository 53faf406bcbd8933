"""`dsl serve`: the MCP server on stdio (local trust) or streamable HTTP (remote trust unless
`--trust local` and the caller is on loopback). Logs go to stderr; stdout is the protocol.
"""

from __future__ import annotations

import logging

import click

from taskplate.dsl import TrustLevel
from taskplate.server._serve import run

from ._common import library, manager
from ._errors import user_errors


@click.command("serve")
@click.option(
    "--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True, type=int)
@click.option(
    "--trust",
    type=click.Choice(["remote", "local"]),
    default="remote",
    show_default=True,
    help="Trust of loopback HTTP callers.",
)
@click.option(
    "--templates",
    "folders",
    multiple=True,
    metavar="DIR",
    help="More template folders (also TASKPLATE_TEMPLATES).",
)
@click.option(
    "--allow-host",
    "allow",
    multiple=True,
    metavar="HOST",
    help="A host remote callers may reach although it is private (wildcards allowed).",
)
@click.option(
    "--deny-host",
    "deny",
    multiple=True,
    metavar="HOST",
    help="A host nobody may reach (wildcards allowed).",
)
@user_errors
def command(
    transport: str,
    host: str,
    port: int,
    trust: str,
    folders: tuple[str, ...],
    allow: tuple[str, ...],
    deny: tuple[str, ...],
) -> None:
    """Serve the templates and browser tools over MCP."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    runs = manager(library(folders))
    runs.allow_hosts, runs.deny_hosts = allow, deny
    run(runs, "stdio" if transport == "stdio" else "streamable-http", host, port, TrustLevel(trust))
