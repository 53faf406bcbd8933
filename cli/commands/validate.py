"""`dsl validate PATH…`: static checks of template files, in actionlint's style or as JSON.

Exit 0 clean (warnings allowed), 1 problems (or warnings with --strict), 2 usage or I/O error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from taskplate.browser import data_home
from taskplate.dsl import (
    ActionCatalog,
    CheckResult,
    Diagnostic,
    check_source,
    format_json,
    format_text,
    has_errors,
)
from taskplate.stdlib import REGISTRY

if TYPE_CHECKING:
    from taskplate.dsl import ActionSpec
    from taskplate.providers import ProviderCatalog

from .._cases_check import CASE_SUFFIXES, check_cases
from .._files import template_files
from .._help import examples


def _catalog_for(file: Path, kept: dict[Path, ActionCatalog]) -> ActionCatalog:
    """The built-in actions, and the tools of the providers configured in the nearest
    taskplate.toml above the file and the data home's, as their lock files record them."""
    folder = next(
        (p for p in [file.parent, *file.parent.parents] if (p / "taskplate.toml").is_file()),
        file.parent,
    )
    if folder not in kept:
        home = data_home()
        if (folder / "taskplate.toml").is_file() or (home / "taskplate.toml").is_file():
            kept[folder] = _ProvidersOnDemand(folder, home)
        else:
            kept[folder] = REGISTRY
    return kept[folder]


class _ProvidersOnDemand:
    """An ActionCatalog that reads the configuration and lock files (tomllib, the providers'
    machinery) only when a template asks about a name the built-in actions do not have, or
    about a provider: a template of built-in actions is checked without them."""

    def __init__(self, folder: Path, home: Path) -> None:
        self._folder, self._home = folder, home
        self._built: ProviderCatalog | None = None

    def _catalog(self) -> ProviderCatalog:
        if self._built is None:
            from taskplate.providers import ProviderCatalog

            self._built = ProviderCatalog.build(REGISTRY, [self._folder], self._home)
        return self._built

    def get(self, name: str) -> ActionSpec | None:
        spec = REGISTRY.get(name)
        return spec if spec is not None else self._catalog().get(name)

    def names(self) -> list[str]:
        return self._catalog().names()

    def why_unknown(self, name: str) -> str | None:
        return self._catalog().why_unknown(name)

    def stale(self, provider: str) -> str | None:
        return None if provider == "builtin" else self._catalog().stale(provider)


def check_paths(paths: tuple[str, ...]) -> tuple[list[CheckResult], list[str]]:
    """Results for every readable template file, and one message per path that could not be read."""
    results, failures = [], []
    catalogs: dict[Path, ActionCatalog] = {}
    for item in template_files(paths):
        if isinstance(item, OSError):
            failures.append(str(item))
            continue
        try:
            text = item.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            failures.append(f"{item}: not UTF-8 text ({exc.reason} at byte {exc.start})")
            continue
        except OSError as exc:
            failures.append(f"{item}: {exc.strerror or exc}")
            continue
        if item.name.endswith(CASE_SUFFIXES):
            results.append(check_cases(Path(str(item)), text, lambda p: _catalog_for(p, catalogs)))
            continue
        results.append(
            check_source(text, str(item), _catalog_for(Path(str(item)).resolve(), catalogs))
        )
    return results, failures


@click.command(
    "validate",
    epilog=examples("dsl validate my_task.yaml", "dsl validate templates/ --strict --format json"),
)
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: actionlint's style with the source line; json: one object per diagnostic.",
)
@click.option("--strict", is_flag=True, help="Treat warnings as errors (exit 1).")
def command(paths: tuple[str, ...], fmt: str, strict: bool) -> None:
    """Check template files without running them.

    Files, or every *.yaml under folders."""
    results, failures = check_paths(paths)
    diagnostics: list[Diagnostic] = sorted(
        (d for r in results for d in r.diagnostics), key=Diagnostic.sort_key
    )
    sources = {r.file: r.source for r in results}
    if fmt == "json":
        click.echo(format_json(diagnostics))
    else:
        for d in diagnostics:
            click.echo(format_text(d, sources.get(d.file)))
    for message in failures:
        click.echo(f"error: {message}", err=True)
    if fmt == "text" and not failures:
        errors = sum(d.severity == "error" for d in diagnostics)
        warnings = len(diagnostics) - errors
        cases = sum(r.file.endswith(CASE_SUFFIXES) for r in results)
        templates = len(results) - cases
        case_files = f" and {cases} case file{'s' if cases != 1 else ''}" if cases else ""
        click.echo(
            f"{templates} template{'s' if templates != 1 else ''}{case_files} checked: "
            f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}",
            err=True,
        )
    if failures:
        sys.exit(2)
    sys.exit(1 if has_errors(diagnostics, strict) else 0)
