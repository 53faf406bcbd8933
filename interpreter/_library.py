"""The installed templates: loaded from folders with the same checks as `dsl validate`; an
invalid template is not served and its diagnostics are logged. Lookup by id and version.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.resources import files
from importlib.resources.abc import Traversable

from taskplate.dsl import (
    ActionCatalog,
    Diagnostic,
    ErrorCode,
    TaskplateError,
    Template,
    check_source,
)

log = logging.getLogger("taskplate.templates")
# The templates shipped inside the package: a folder in a checkout or a wheel, a zip member in a
# zipapp; read through importlib.resources so every form works.
SHIPPED: Traversable = files("taskplate") / "templates"


def template_files(folder: Traversable) -> Iterator[Traversable]:
    """A folder's `*.yaml`/`*.yml` files at any depth, in name order; a file is itself."""
    if not folder.is_dir():
        yield folder
        return
    for child in sorted(folder.iterdir(), key=lambda c: c.name):
        if child.is_dir():
            yield from template_files(child)
        elif child.name.endswith((".yaml", ".yml")):
            yield child


def _version_key(version: str) -> tuple[int, int, int]:
    core = version.split("-")[0].split("+")[0].split(".")
    try:
        return (int(core[0]), int(core[1]), int(core[2]))
    except (IndexError, ValueError):
        return (0, 0, 0)


def matches(version: str, wanted: str) -> bool:
    """Exact `1.2.3`, or a caret range `^1.2` / `^1.2.3` (same major, at least that)."""
    if not wanted.startswith("^"):
        return version == wanted
    parts = [int(p) for p in wanted[1:].split(".") if p.isdigit()]
    have = _version_key(version)
    floor = tuple(parts + [0] * (3 - len(parts)))[:3]
    return have[0] == floor[0] and have >= floor


@dataclass
class TemplateLibrary:
    catalog: ActionCatalog
    templates: dict[str, dict[str, Template]] = field(default_factory=dict)
    sources: dict[tuple[str, str], str] = field(default_factory=dict)
    rejected: dict[str, list[Diagnostic]] = field(default_factory=dict)

    def load(self, folders: list[Traversable]) -> TemplateLibrary:
        for folder in folders:
            for path in template_files(folder):
                self.add_file(path)
        return self

    def add_file(self, path: Traversable) -> Template | None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("template %s not served: cannot read it (%s)", path, exc)
            return None
        result = check_source(text, str(path), self.catalog)
        if not result.ok or result.template is None:
            self.rejected[str(path)] = result.diagnostics
            for d in result.diagnostics:
                log.warning("template %s not served: %s", path, d.header())
            return None
        template = result.template
        self.templates.setdefault(template.id, {})[template.version] = template
        self.sources[(template.id, template.version)] = text
        return template

    def all(self) -> list[Template]:
        return [
            t
            for versions in self.templates.values()
            for t in sorted(versions.values(), key=lambda t: _version_key(t.version))
        ]

    def get(self, template_id: str, version: str | None = None) -> Template:
        versions = self.templates.get(template_id)
        if not versions:
            raise TaskplateError(
                ErrorCode.TEMPLATE_NOT_FOUND,
                f'no template "{template_id}"',
                f"Installed: {', '.join(sorted(self.templates)) or 'none'} (list_task_templates).",
            )
        candidates = [v for v in versions if version is None or matches(v, version)]
        if not candidates:
            raise TaskplateError(
                ErrorCode.TEMPLATE_VERSION_UNSUPPORTED,
                f'template "{template_id}" has no version matching {version}',
                f"Installed versions: {', '.join(sorted(versions, key=_version_key))}.",
            )
        return versions[max(candidates, key=_version_key)]
