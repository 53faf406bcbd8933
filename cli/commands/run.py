"""`dsl run TEMPLATE`: run a template here, with a live progress bar on a terminal and the
final run (as get_task_run answers it) as JSON on stdout. Ctrl-C cancels the run.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import click

from taskplate.contract import ErrorCode, RunStatus, TaskplateError
from taskplate.dsl import format_text
from taskplate.interpreter import ConfirmPolicy, TemplateLibrary, check_timeout

from .._common import emit, library, limits, manager
from .._errors import report_failed, user_errors
from .._help import examples
from .._prompt import TerminalAsker
from .._secret_inputs import asked_secrets, input_file_option, read_input_files
from .._store_option import store_option
from ._run_output import EXIT, Bar
from ._run_resume import go_on

MAX_INPUT_DEPTH = 100  # as deep as a template may nest (dsl/_yaml.py MAX_DEPTH)
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _bad(what: str, problem: str, hint: str) -> TaskplateError:
    return TaskplateError(ErrorCode.INVALID_PARAMETER, f"{what} {problem}", hint)


def _nesting(text: str) -> int:
    """How deep the brackets of a JSON text nest (strings aside), read without recursion."""
    depth = deepest = 0
    for bracket in _BRACKETS.finditer(_STRINGS.sub("", text)):
        depth += 1 if bracket.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _clean(value: Any, what: str) -> Any:
    """`value`, once no text in it holds a lone surrogate (bytes that are not UTF-8 on the
    command line, or a \\ud800 escape in JSON): nothing can store or send such a text."""
    stack = [value]
    while stack:
        node = stack.pop()
        texts = [node] if isinstance(node, str) else list(node) if isinstance(node, dict) else []
        if any(_SURROGATE.search(t) for t in texts):
            raise _bad(
                what,
                "holds text that is not valid Unicode (a lone surrogate: bytes that are not "
                "UTF-8, or a \\ud800-\\udfff escape without its pair)",
                "Give UTF-8 text.",
            )
        stack.extend(
            node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        )
    return value


def _json(text: str, what: str, *, plain_text: bool) -> Any:
    """A JSON value of the command line, bounded: no deeper than MAX_INPUT_DEPTH, numbers of
    at most 4300 digits. With `plain_text`, a text that is no JSON is that text."""
    if _nesting(text) > MAX_INPUT_DEPTH:
        raise _bad(what, f"nests deeper than {MAX_INPUT_DEPTH} levels", "Give flatter JSON.")
    try:
        return _clean(json.loads(text), what)
    except json.JSONDecodeError as exc:
        if plain_text:
            return _clean(text, what)
        raise _bad(what, f"is not JSON: {exc}", "Give a JSON file with an object.") from None
    except ValueError as exc:  # a number of more digits than int() reads
        raise _bad(
            what, f"has a number too long to read ({exc})", "Give shorter numbers."
        ) from None


def parse_inputs(pairs: tuple[str, ...], inputs_file: str | None) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    if inputs_file:
        try:
            text = Path(inputs_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise _bad(
                f"cannot read {inputs_file}:", str(exc), "Give a UTF-8 JSON file with an object."
            ) from None
        loaded = _json(text, inputs_file, plain_text=False)
        if not isinstance(loaded, dict):
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"{inputs_file} holds no JSON object",
                "Give a JSON object.",
            )
        inputs.update(loaded)
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f'--input "{pair[:80]}" is not key=value',
                "Write --input urls='[\"https://…\"]'.",
            )
        _clean(key, f"--input {key[:40]!r}")
        value = _json(raw, f"--input {key}", plain_text=True)
        if key in inputs and key in dict.fromkeys(
            p.partition("=")[0] for p in pairs[: pairs.index(pair)]
        ):
            previous = inputs[key]
            inputs[key] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            inputs[key] = value
    return inputs


_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


def given_once(pairs: tuple[str, ...]) -> set[str]:
    """The keys of `--input KEY=VALUE` given exactly once."""
    keys = [pair.partition("=")[0] for pair in pairs]
    return {key for key in keys if keys.count(key) == 1}


def lists_of_one(inputs: dict[str, Any], schema: dict[str, Any], once: set[str]) -> dict[str, Any]:
    """An input given once on the command line whose schema wants an array, and whose value
    that schema does not take as it is, becomes a list of one (as `gh` or `kubectl` read it)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return inputs
    wrapped = dict(inputs)
    for key in once & set(inputs):
        wanted = properties.get(key)
        kinds = wanted.get("type") if isinstance(wanted, dict) else None
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not isinstance(kinds, list) or "array" not in kinds:
            continue
        kind = _JSON_TYPES.get(type(inputs[key]))
        if kind not in kinds and not (kind == "integer" and "number" in kinds):
            wrapped[key] = [inputs[key]]
    return wrapped


def _rejected(lib: TemplateLibrary, path: Path) -> int:
    for d in lib.rejected[str(path)]:
        click.echo(format_text(d, path.read_text(encoding="utf-8")), err=True)
    return 1


async def _run(
    template_ref: str,
    inputs: dict[str, Any],
    mode: str | None,
    timeout: int | None,
    folders: tuple[str, ...],
    as_json: bool,
    trace: str | None = None,
    confirm: str = "ask",
    once: frozenset[str] = frozenset(),
    profile: str | None = None,
    network: dict[str, Any] | None = None,
) -> int:
    path = Path(template_ref)
    is_file = path.suffix in (".yaml", ".yml") and path.exists()
    configured = is_file and (path.parent / "taskplate.toml").is_file()
    if configured:
        folders = (*folders, str(path.parent))  # its providers and switches
    lib = library(folders)
    template_id: str | None = None
    version: str | None = None
    if not is_file:
        template_id, _, wanted = template_ref.partition("@")
        version = wanted or None
    elif not configured:
        checked = lib.add_file(path)
        if checked is None:
            return _rejected(lib, path)
        template_id, version = checked.id, checked.version
    runs = manager(lib)
    runs.confirm = ConfirmPolicy(confirm)
    runs.terminal = TerminalAsker()
    bar = Bar(template_id or path.stem)
    bar.enabled = bar.enabled and not as_json
    async with runs.running():
        if template_id is None:  # checked once its providers are connected
            template = lib.add_file(path)
            if template is None:
                return _rejected(lib, path)
            template_id, version = template.id, template.version
        options: dict[str, Any] = {"mode": mode} if mode else {}
        if timeout is not None:
            options["timeoutMs"] = timeout
        if trace:
            options["trace"] = trace
        options |= network or {}  # proxy, browser (docs/networks.md)
        schema = lib.get(template_id, version).inputs_schema
        inputs = await asked_secrets(schema, lists_of_one(inputs, schema, set(once)))
        run_id = await runs.submit(
            template_id,
            inputs,
            version=version,
            options=options,
            profile_id=profile,
        )
        if mode == "async":
            emit({"runId": run_id, "status": "queued"})
        try:
            if bar.enabled:
                with bar.progress:
                    answer = await runs.wait(run_id, bar.update)
            else:
                answer = await runs.wait(run_id)
        except (KeyboardInterrupt, anyio.get_cancelled_exc_class()):
            with anyio.CancelScope(shield=True), anyio.move_on_after(15):  # bounded
                await runs.cancel(run_id, force=True)
            raise
    emit(answer)
    report_failed(answer)  # on stderr, as a user error: `error: … [CODE]` and a hint
    return EXIT.get(RunStatus(answer["status"]), 1)


@click.command(
    "run",
    epilog=examples(
        "dsl run batch_extract_pages --input urls=https://example.com/",
        "dsl run my_task.yaml --inputs inputs.json --trace on",
        "dsl run shop_login.yaml --profile shop --input username=ada --input-file password=pw.txt",
        "dsl run --resume run_0123456789abcdef",
    ),
)
@click.argument("template", required=False)
@click.option(
    "--resume",
    metavar="RUN_ID",
    help="Go on with a run whose process was killed, from its last finished step (no TEMPLATE).",
)
@click.option(
    "--input",
    "pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="An input; VALUE is JSON or plain text. For a list input, one value given once is a "
    "list of one; repeat the key for more values (or give a JSON list).",
)
@click.option("--inputs", "inputs_file", metavar="FILE", help="A JSON file with the inputs.")
@input_file_option
@click.option(
    "--mode",
    type=click.Choice(["sync", "async", "auto"]),
    help="async prints the queued answer first.",
)
@click.option(
    "--timeout",
    type=int,
    metavar="MS",
    help="The run's time limit, 1 to 900000 ms (the template's maxTimeoutMs, if smaller, wins).",
)
@click.option(
    "--trace",
    type=click.Choice(["off", "on-failure", "on"]),
    help="Keep a Playwright trace of the run (default on-failure); open it with `dsl runs trace`.",
)
@click.option(
    "--confirm",
    type=click.Choice(["ask", "allow", "deny"]),
    default="ask",
    show_default=True,
    help="Steps that need a confirmation (confirm:): ask on this terminal, allow them without "
    "asking, or deny them. Without a terminal, ask refuses (CONFIRMATION_REQUIRED).",
)
@click.option(
    "--profile",
    metavar="NAME",
    help="The login profile the run starts from and publishes back to (default: the "
    "template's session.profile, else master); see `dsl login`.",
)
@click.option(
    "--proxy",
    metavar="URL",
    help="Send the run's requests through this proxy, scheme://[user:password@]host:port "
    "(docs/networks.md); default: the [network] proxy of taskplate.toml, else HTTPS_PROXY.",
)
@click.option(
    "--browser",
    "browser_json",
    metavar="JSON",
    help='The browser a site sees, within the template\'s browser.callerMaySet: {"locale": "de-DE"}.',
)
@click.option("--templates", "folders", multiple=True, metavar="DIR", help="More template folders.")
@click.option("--json", "as_json", is_flag=True, help="No progress bar; only the final JSON.")
@store_option
@user_errors
def command(
    template: str | None,
    resume: str | None,
    pairs: tuple[str, ...],
    inputs_file: str | None,
    input_files: tuple[str, ...],
    mode: str | None,
    timeout: int | None,
    trace: str | None,
    confirm: str,
    profile: str | None,
    proxy: str | None,
    browser_json: str | None,
    folders: tuple[str, ...],
    as_json: bool,
) -> None:
    """Run a template here and print the finished run.

    TEMPLATE is an id, id@version, or a .yaml file; the finished run is printed as JSON (as
    get_task_run answers), with a progress bar on a terminal."""
    if (template is None) == (resume is None):
        raise click.UsageError("give TEMPLATE, or --resume RUN_ID alone")
    if resume is not None:
        sys.exit(go_on(resume, folders, as_json))
    assert template is not None
    inputs = parse_inputs(pairs, inputs_file) | read_input_files(input_files)
    check_timeout(timeout, limits())
    once = frozenset(given_once(pairs))
    network: dict[str, Any] = {"proxy": proxy} if proxy else {}
    if browser_json:
        try:
            network["browser"] = json.loads(browser_json)
        except ValueError as exc:
            raise click.BadParameter(f"not JSON: {exc}", param_hint="--browser") from None
    try:
        code = anyio.run(
            _run,
            template,
            inputs,
            mode,
            timeout,
            folders,
            as_json,
            trace,
            confirm,
            once,
            profile,
            network,
        )
    except KeyboardInterrupt:
        click.echo("canceled", err=True)
        code = 130
    sys.exit(code)
