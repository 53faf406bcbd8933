"""`dsl serve`: the MCP server on stdio (local trust) or streamable HTTP (remote trust unless
`--trust local` and the caller is on loopback, or the caller's token says otherwise). Logs go to
stderr; stdout is the protocol. A non-loopback address needs bearer tokens or `--no-auth`.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import click

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.server import start_on_stdio

from .._errors import user_errors
from .._help import examples
from .._store_option import store_option

# What serving needs and the start on stdio does not: imported while it answers.
SERVING = ("taskplate.server._serve", "taskplate.cli._common")


@click.command(
    "serve",
    epilog=examples(
        "dsl serve   # stdio, for a local MCP client",
        "dsl serve --transport http --port 8765 --token-file tokens.txt",
    ),
)
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for a local client that starts the server; http (streamable HTTP) for others.",
)
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="http: the address to listen on."
)
@click.option(
    "--port", default=8765, show_default=True, type=int, help="http: the port to listen on."
)
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
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Bearer tokens for HTTP, one per line, each optionally followed by local or remote "
    "(also TASKPLATE_TOKENS).",
)
@click.option(
    "--no-auth", is_flag=True, help="Serve HTTP on a non-loopback address without tokens."
)
@click.option(
    "--public-host",
    "public_hosts",
    multiple=True,
    metavar="NAME[:PORT]",
    help="A name clients use to reach this server (Host header), e.g. mcp.example.com.",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    metavar="ORIGIN",
    help="A browser origin allowed to call, e.g. https://app.example.com.",
)
@click.option(
    "--allow-remote-save",
    "remote_save",
    is_flag=True,
    help="Let remote callers save templates (save_template) into this machine's template folder.",
)
@click.option(
    "--trace",
    "trace_default",
    type=click.Choice(["off", "on-failure", "on"]),
    help="Trace mode of runs that name none (default: on-failure for local callers, off for "
    "remote ones).",
)
@click.option(
    "--ui/--no-ui",
    default=True,
    show_default=True,
    help="Serve the runs page under /ui (HTTP only; same tokens; local callers only).",
)
@click.option(
    "--ui-remote",
    is_flag=True,
    help="Let callers that are not local (other machines, remote tokens) see the runs page.",
)
@click.option(
    "--tools",
    "tool_groups",
    envvar="TASKPLATE_TOOLS",
    metavar="GROUPS",
    help="The tool groups to serve, separated by commas: templates, runs, pages, tabs, "
    "authoring, or all (also TASKPLATE_TOOLS and [serve] tools in taskplate.toml; default: "
    "templates,runs,pages,authoring, and templates,runs with --template-tools).",
)
@click.option(
    "--template-tools/--no-template-tools",
    default=None,
    help="Offer the served templates as tools of their own, as many as fit in tools/list's "
    "budget (also [serve] templateTools; default: off). Their default groups are "
    "templates,runs.",
)
@click.option(
    "--tool-tokens",
    type=click.IntRange(1_000, 1_000_000),
    default=None,
    help="tools/list's budget in tokens (4 characters each; also [serve] toolTokens; default "
    "4400, about @playwright/mcp's list): the templates' tools are offered while they fit "
    "beside the groups' tools.",
)
@click.option(
    "--answer-tokens",
    type=click.IntRange(1_000, 1_000_000),
    default=None,
    help="The most a tool's answer holds, in tokens (4 characters each; also [serve] answerTokens; "
    "default 20000); a longer page, batch or run's steps comes in pages with a cursor, and a call "
    "may ask less or more (maxTokens).",
)
@click.option(
    "--drain-s",
    type=click.FloatRange(0, 3600),
    default=None,
    help="On SIGTERM, how long the items in flight have to finish before the server's "
    "unfinished runs are handed over to the other servers on the store (also [serve] drainS; "
    "default 30). No run starts here meanwhile.",
)
@store_option
@click.option(
    "--confirm",
    type=click.Choice(["ask", "allow", "deny"]),
    default="ask",
    show_default=True,
    help="Steps that need a confirmation, for local callers whose client has no elicitation: "
    "ask (refused, as nobody can be asked), allow without asking, or deny. Remote callers "
    "without elicitation are always refused.",
)
@click.option(
    "--browser-endpoints",
    envvar="TASKPLATE_BROWSER_ENDPOINTS",
    metavar="URLS",
    help="Remote browsers to spread sessions over: ws:// Playwright servers or http:// CDP "
    "endpoints, separated by commas or spaces (also TASKPLATE_BROWSER_ENDPOINTS; default: "
    "launch the local Chromium).",
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
    token_file: Path | None,
    no_auth: bool,
    public_hosts: tuple[str, ...],
    allow_origins: tuple[str, ...],
    remote_save: bool,
    trace_default: str | None,
    ui: bool,
    ui_remote: bool,
    confirm: str,
    browser_endpoints: str | None,
    tool_groups: str | None,
    template_tools: bool | None,
    answer_tokens: int | None,
    tool_tokens: int | None,
    drain_s: float | None,
) -> None:
    """Serve the templates and browser tools over MCP."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # httpx logs every request at INFO: a batch read over HTTP would be a line a page (its
    # failures are the run's to report, per item)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if browser_endpoints is not None:  # checked here; the run manager's runtime reads it
        from taskplate.browser import BrowserConfig

        BrowserConfig.from_env(browser_endpoints)
        os.environ["TASKPLATE_BROWSER_ENDPOINTS"] = browser_endpoints
    started = None
    if transport == "stdio":  # answers initialize and tools/list while the SDK loads
        started = start_on_stdio(sys.argv[1:], SERVING)
        if started.finished:  # stdin ended with every request answered
            return
    # imported by the start (stdio) or now (HTTP)
    from taskplate.interpreter import DRAIN_S, ConfirmPolicy, TraceMode
    from taskplate.server import (
        HttpSecurity,
        ServeSettings,
        is_loopback,
        load_tokens,
        run,
    )
    from taskplate.server.tools import DEFAULT_GROUPS, TEMPLATE_TOOLS_GROUPS, groups_named

    from .._common import library, manager

    security = HttpSecurity(load_tokens(token_file), public_hosts, allow_origins)
    if transport == "http" and not security.tokens and not is_loopback(host):
        if not no_auth:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"refusing to serve HTTP on {host} without bearer tokens: anyone who can reach "
                "the port could drive the browser",
                "Pass --token-file FILE (or set TASKPLATE_TOKENS), bind to 127.0.0.1, or accept "
                "the risk with --no-auth.",
            )
        click.echo(
            f"warning: serving HTTP on {host} without authentication (--no-auth): anyone who "
            "can reach the port can use it",
            err=True,
        )
    runs = manager(library(folders))
    runs.adopts = True  # a server resumes the runs of servers (and `dsl run`s) that died
    runs.allow_hosts, runs.deny_hosts = allow, deny
    if trace_default:
        runs.trace_default = TraceMode(trace_default)
    runs.confirm = ConfirmPolicy(confirm)
    served = runs.library.configuration  # [serve] of taskplate.toml: the flags have the last word
    if template_tools is None:
        template_tools = bool(served.template_tools)
    names = tool_groups.split(",") if tool_groups else served.serve_tools
    if names is not None:
        groups = groups_named(n.strip() for n in names)
    else:
        groups = TEMPLATE_TOOLS_GROUPS if template_tools else DEFAULT_GROUPS
    if answer_tokens is None:
        answer_tokens = served.answer_tokens  # None: the server's default
    if tool_tokens is None:
        tool_tokens = served.tool_tokens
    if drain_s is None:
        drain_s = served.drain_s if served.drain_s is not None else DRAIN_S
    settings = ServeSettings(
        transport="stdio" if transport == "stdio" else "streamable-http",
        host=host,
        port=port,
        trust=TrustLevel(trust),
        security=security,
        remote_save=remote_save,
        ui=ui,
        ui_remote=ui_remote,
        started=started,
        groups=groups,
        template_tools=template_tools,
        answer_tokens=answer_tokens,
        tool_tokens=tool_tokens,
        drain_s=drain_s,
    )
    run(runs, settings)
