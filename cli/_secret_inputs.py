"""Inputs of `dsl run` that should not be on its command line (a password): read from a file
(`--input-file KEY=FILE`) or asked on the terminal without echo. Never printed, never guessed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import click

from taskplate.contract import ErrorCode, FileRefused, TaskplateError, read_bounded

F = TypeVar("F", bound=Callable[..., Any])
MAX_INPUT_FILE_BYTES = 1_000_000  # a secret or a text, not a data set (that is --inputs' JSON)


def input_file_option(function: F) -> F:
    """The `--input-file KEY=FILE` option of `dsl run`."""
    return click.option(
        "--input-file",
        "input_files",
        multiple=True,
        metavar="KEY=FILE",
        help="An input read from a file, as text (one trailing newline dropped): a password "
        "stays off the command line. A required password input left out is asked for on a "
        "terminal, without echo.",
    )(function)


def read_input_files(pairs: tuple[str, ...]) -> dict[str, str]:
    """The inputs of `--input-file KEY=FILE`: each file's UTF-8 text, without the newline an
    editor or `echo` ends it with."""
    inputs: dict[str, str] = {}
    for pair in pairs:
        key, sep, name = pair.partition("=")
        if not sep or not key or not name:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f'--input-file "{pair[:80]}" is not KEY=FILE',
                "Write --input-file password=./password.txt.",
            )
        try:
            text = read_bounded(Path(name), MAX_INPUT_FILE_BYTES).decode("utf-8")
        except (OSError, FileRefused, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"--input-file {key}: cannot read {name[:200]} ({why})",
                f"Give a readable UTF-8 text file of at most {MAX_INPUT_FILE_BYTES} bytes.",
                {"input": key},
            ) from None
        inputs[key] = text.removesuffix("\n").removesuffix("\r")
    return inputs


def _secret(schema: Any) -> bool:
    return isinstance(schema, dict) and (
        schema.get("format") == "password" or schema.get("writeOnly") is True
    )


async def asked_secrets(schema: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    """`inputs`, with each required secret input that is missing asked for on the terminal
    (no echo); without a terminal, as they are (the run then refuses the missing input)."""
    properties = schema.get("properties")
    required = schema.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list):
        return inputs
    missing = [k for k in required if k not in inputs and _secret(properties.get(k))]
    if not missing or not (sys.stdin.isatty() and sys.stderr.isatty()):
        return inputs

    def ask(key: str) -> str:
        return str(click.prompt(key, hide_input=True, err=True))

    asked = dict(inputs)
    for key in missing:
        asked[key] = await anyio.to_thread.run_sync(ask, key, abandon_on_cancel=True)
    return asked
