"""What the `dsl` subcommands that run templates share: the template folders, the library,
the run manager, JSON output. (Errors are reported by `_errors`.)
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import click

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import (
    SHIPPED,
    Limits,
    RunManager,
    TemplateLibrary,
    data_home,
    user_templates,
)
from taskplate.stdlib import REGISTRY


def template_folders(extra: tuple[str, ...] = ()) -> list[Traversable]:
    folders: list[Traversable] = [SHIPPED]
    env = os.environ.get("TASKPLATE_TEMPLATES")
    if env:
        folders += [Path(p) for p in env.split(os.pathsep) if p]
    folders += [Path(p) for p in extra]
    saved = user_templates(data_home())  # templates saved from runs and sessions
    return [*folders, saved] if saved.is_dir() else folders


def library(extra: tuple[str, ...] = ()) -> TemplateLibrary:
    """The templates of every folder, with the providers and switches of their taskplate.toml
    and the data home's."""
    return TemplateLibrary(REGISTRY).load(template_folders(extra), home=data_home())


def library_for(*templates: Path) -> TemplateLibrary:
    """The library, with the folder of each template file that holds a taskplate.toml (its
    providers and switches) and is not one of the library's folders already."""
    known = {Path(str(f)).resolve() for f in template_folders()}
    folders = sorted({t.resolve().parent for t in templates} - known)
    return library(tuple(str(f) for f in folders if (f / "taskplate.toml").is_file()))


def limits() -> Limits:
    """The defaults, and `maxConcurrentRuns` from TASKPLATE_MAX_CONCURRENT_RUNS (for the store)."""
    given = os.environ.get("TASKPLATE_MAX_CONCURRENT_RUNS", "").strip()
    if not given:
        return Limits()
    if not given.isdigit() or int(given) < 1:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"TASKPLATE_MAX_CONCURRENT_RUNS must be a whole number of at least 1, not {given!r}",
            "Set it to how many runs may run at once on the store, e.g. 5, or unset it.",
        )
    return Limits(max_concurrent_runs=int(given))


def manager(lib: TemplateLibrary | None = None) -> RunManager:
    return RunManager(data_home(), lib or library(), limits=limits())


T = TypeVar("T")


def with_runs(work: Callable[[RunManager], Awaitable[T]]) -> T:
    """`work` done on the run manager with its store open (no runs of its own): for the
    commands that read or cancel runs."""

    async def main() -> T:
        async with manager() as runs:
            return await work(runs)

    return anyio.run(main)


def emit(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))
