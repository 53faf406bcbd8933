"""`dsl record TEMPLATE`: run a template live with its network traffic recorded (HAR), then
write or extend NAME.test.yaml beside it with the case: its inputs (a secret as a reference to
an environment variable), the recording's path and the expectations taken from the run.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import click

from taskplate.browser import HarRecording, masked_har, write_har
from taskplate.contract import ErrorCode, RunStatus, TaskplateError
from taskplate.dsl import fixed_clock, now_iso
from taskplate.interpreter import (
    Recorded,
    RecordingSampler,
    RecordingTools,
    brittle_warnings,
    checked_template,
    expectations_from,
    keep_elements,
    recorded_by,
    recording_reader,
    replayed,
    run_template,
    save_case,
    secret_names,
    stored_inputs,
    unmatched_warnings,
)
from taskplate.stdlib import HttpRecording

from .._common import library_for, limits, manager
from .._errors import user_errors
from .._help import examples
from .._store_option import store_option
from .run import given_once, lists_of_one, parse_inputs

CASE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


async def _record(path: Path, inputs: dict[str, Any], name: str, once: set[str]) -> int:
    runs = manager(library_for(path))
    template = checked_template(runs, path)
    inputs = lists_of_one(inputs, template.inputs_schema, once)
    recording = path.parent / f"{path.stem}.recordings" / f"{name}.har"
    clock = now_iso()
    with tempfile.TemporaryDirectory(prefix="taskplate-record-") as folder:
        network, http, model = HarRecording(Path(folder)), HttpRecording(), RecordingSampler()
        tools = RecordingTools()
        reader = recording_reader(path)  # what repair needs of the elements, kept in the HAR
        async with runs.running():
            with fixed_clock(clock):
                world = Recorded(network, http, model.around, reader, tools.around)
                answer = await run_template(runs, template, inputs, world)
        # every context is closed now, so each has written its HAR
        secrets = [str(inputs[k]) for k in secret_names(template.inputs_schema) if k in inputs]
        both = network.merged(http.entries)
        made = recorded_by(both, path, name, model.answers, tools.calls)
        har = masked_har(keep_elements(made, reader), secrets)
        write_har(har, recording)
    case = {
        "name": name,
        "inputs": stored_inputs(inputs, template.inputs_schema),
        "recording": str(recording.relative_to(path.parent)),
        "clock": clock,
        "expect": {},
    }
    # replayed once at once: what differs from the live run (an id made per run) is not expected
    again = await replayed(path, case, library_for(path), limits())
    case["expect"] = expectations_from(answer, again)
    file = save_case(path, case)
    entries = len(har["log"]["entries"])
    click.echo(
        f"recorded {path.stem}/{name}: {answer['status']}, {entries} requests in "
        f"{recording}; case written to {file}",
        err=True,
    )
    for warning in [*unmatched_warnings(reader), *brittle_warnings(reader)]:
        click.echo(f"warning: {warning}", err=True)
    if answer["status"] not in (RunStatus.SUCCEEDED, RunStatus.PARTIAL_SUCCESS):
        click.echo(
            "the run did not succeed: the case expects that; edit its expectations if that is "
            "not what you meant",
            err=True,
        )
    if again["status"] != answer["status"]:
        why = (again.get("error") or {}).get("error", "")
        click.echo(
            f"the recording does not replay as the run went: {answer['status']} live, "
            f"{again['status']} offline ({why}); `dsl test` will report it",
            err=True,
        )
        return 1
    return 0


@click.command(
    "record",
    epilog=examples(
        "dsl record my_task.yaml --input url=https://example.com/ --name example",
        "dsl record login.yaml --inputs inputs.json",
    ),
)
@click.argument("template")
@click.option(
    "--input", "pairs", multiple=True, metavar="KEY=VALUE", help="An input, as for dsl run."
)
@click.option("--inputs", "inputs_file", metavar="FILE", help="A JSON file with the inputs.")
@click.option("--name", default="default", show_default=True, help="The case's name.")
@store_option
@user_errors
def command(template: str, pairs: tuple[str, ...], inputs_file: str | None, name: str) -> None:
    """Run a template live and keep the run as a test case.

    Writes TEMPLATE.recordings/NAME.har and adds the case NAME to TEMPLATE.test.yaml (replacing
    a case of that name): its inputs, its recording and the expectations taken from the run
    (status, output, each item's success), which you may edit or loosen. A secret input is
    kept as {$env: TASKPLATE_SECRET_<INPUT>} and masked in the recording."""
    path = Path(template)
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{template} is not a template file",
            "Give the path of a .yaml template: cases are kept beside it.",
        )
    if not CASE_NAME.fullmatch(name):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"--name {name!r} is not a case name",
            "Use letters, digits, '_', '.' and '-', at most 64.",
        )
    inputs = parse_inputs(pairs, inputs_file)
    limits()
    sys.exit(anyio.run(_record, path, inputs, name, given_once(pairs)))
