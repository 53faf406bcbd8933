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


def report_failed(answer: dict[str, Any]) -> None:
    """A run that failed said on stderr as a user error is (its JSON stays on stdout)."""
    error = answer.get("error")
    if answer.get("status") != "failed" or not isinstance(error, dict):
        return
    click.echo(
        f"error: {error.get('error', 'the run failed')} [{error.get('errorCode')}]", err=True
    )
    if error.get("recoverHint"):
        click.echo(f"hint: {error['recoverHint']}", err=True)


def user_errors(function: F) -> F:
    """User mistakes come out as one line and exit 1, never as a traceback."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TaskplateError as error:
            fail(error)

    return wrapper  # type: ignore[return-value]
