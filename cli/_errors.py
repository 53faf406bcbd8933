"""How the command line reports a TaskplateError: one clear line, a hint, exit code 1.

Light on imports, so that every command can use it without loading the runtime.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from taskplate.contract import TaskplateError

F = TypeVar("F", bound=Callable[..., Any])


def fail(error: TaskplateError) -> None:
    click.echo(f"error: {error.message} [{error.code}]", err=True)
    if error.recover_hint:
        click.echo(f"hint: {error.recover_hint}", err=True)
    sys.exit(1)


def user_errors(function: F) -> F:
    """User mistakes come out as one line and exit 1, never as a traceback."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TaskplateError as error:
            fail(error)

    return wrapper  # type: ignore[return-value]
