"""`dsl login --profile P`: log in by hand (or by a page that does it) in a real browser window,
and publish the login as the profile's snapshot for every taskplate process on the machine.
"""

from __future__ import annotations

import sys

import anyio
import click

from taskplate.browser import ProfileStore, data_home, login

from .._errors import user_errors
from .._help import examples


@click.command(
    "login",
    epilog=examples(
        "dsl login --profile master --url https://example.com/login",
        "dsl login --profile shop --url https://shop.example/ --until-selector '#account'",
    ),
)
@click.option(
    "--profile",
    "profile_id",
    default="master",
    show_default=True,
    help="The profile the login is kept in (runs use it by its profileId).",
)
@click.option("--url", help="The page to open (a login page).")
@click.option("--until-selector", help="Stop once an element matching this CSS selector appears.")
@click.option("--until-url", help="Stop once a tab's URL matches this regular expression.")
@click.option("--headless", is_flag=True, help="No window (for pages that log in by themselves).")
@click.option(
    "--timeout",
    default=300,
    show_default=True,
    type=float,
    metavar="S",
    help="Give up after this many seconds.",
)
@user_errors
def command(
    profile_id: str,
    url: str | None,
    until_selector: str | None,
    until_url: str | None,
    headless: bool,
    timeout: float,
) -> None:
    """Log in by hand in a browser and keep it as a profile.

    Opens a browser, lets the user log in, and publishes the profile snapshot (every 5 s and at
    exit)."""
    if until_selector and until_url:
        raise click.UsageError("give --until-selector or --until-url, not both")
    home = data_home()
    store = ProfileStore(home / "profiles")
    store.folder(profile_id)  # check the id before anything is opened
    click.echo(
        f"logging in to profile {profile_id}"
        + (" (close the window when done)" if not (until_selector or until_url) else ""),
        err=True,
    )
    outcome = anyio.run(
        lambda: login(
            store,
            profile_id,
            home / "browser-data",
            url,
            until_selector,
            until_url,
            headless,
            timeout,
        )
    )
    click.echo(
        f"profile {profile_id}: snapshot version {outcome.version} published ({outcome.reason})",
        err=True,
    )
    sys.exit(0 if outcome.done else 1)
