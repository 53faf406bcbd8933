"""`dsl providers sync`: start every configured provider, list its tools and write
`providers.lock.json` beside each taskplate.toml, so `dsl validate` checks `mcp.*` steps offline.
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from pathlib import Path

import anyio
import click

from taskplate.browser import data_home
from taskplate.providers import (
    Configuration,
    ProviderConfig,
    Providers,
    ServerListing,
    load_configuration,
    write_lock,
)

from .._help import examples


def sync_folders(extra: tuple[str, ...]) -> list[Path]:
    """The folders whose configuration is synced: TASKPLATE_TEMPLATES's and --templates'
    (the shipped folder only when named), then the data home's."""
    env = os.environ.get("TASKPLATE_TEMPLATES")
    folders = [Path(p) for p in env.split(os.pathsep) if p] if env else []
    return folders + [Path(p) for p in extra]


async def connect_all(
    configs: dict[str, ProviderConfig],
) -> tuple[dict[str, ServerListing], dict[str, str]]:
    """Every provider started side by side, listed, and closed again."""
    providers = Providers(configs)
    async with providers.running():
        await providers.start()
        return providers.listings(), providers.failures()


def write_locks(config: Configuration, listings: dict[str, ServerListing]) -> list[str]:
    """One lock file per configuration file, with the providers that answered."""
    by_file: dict[Path, list[ServerListing]] = defaultdict(list)
    for name, provider in config.providers.items():
        by_file.setdefault(provider.lock_path, [])
        if name in listings:
            by_file[provider.lock_path].append(listings[name])
    written = []
    for path, found in by_file.items():
        write_lock(path, found)
        written.append(str(path))
    return written


@click.group(
    "providers",
    epilog=examples("dsl providers sync", "dsl providers sync --templates ./my-templates"),
)
def providers() -> None:
    """Other MCP servers whose tools are actions.

    Configured in taskplate.toml (docs/providers.md)."""


@providers.command(
    "sync", epilog=examples("dsl providers sync", "dsl providers sync --templates ./my-templates")
)
@click.option(
    "--templates",
    "folders",
    multiple=True,
    metavar="DIR",
    help="A template folder whose taskplate.toml to sync (also TASKPLATE_TEMPLATES).",
)
def sync(folders: tuple[str, ...]) -> None:
    """Record the configured providers' tools in lock files.

    Starts each configured provider, lists its tools and writes providers.lock.json."""
    config = load_configuration(list(sync_folders(folders)), data_home())
    if not config.files:
        click.echo(
            "no taskplate.toml found (give --templates DIR, or put one in the data home)", err=True
        )
        sys.exit(2)
    listings, failures = anyio.run(connect_all, config.providers)
    for name in sorted(config.providers):
        if name in listings:
            listing = listings[name]
            click.echo(
                f"ok   {name}: {listing.server_name} {listing.server_version}, "
                f"{len(listing.tools)} tools"
            )
        else:
            click.echo(f"BAD  {name}: {failures.get(name, 'did not start')}")
    for path in write_locks(config, listings):
        click.echo(f"wrote {path}")
    sys.exit(1 if failures or config.warnings else 0)
