"""The installed templates: loaded from folders with the same checks as `dsl validate`; an
invalid template is not served and its diagnostics are logged. Lookup by id and version.
The folders' `taskplate.toml` add providers' tools as actions and switch templates off;
`refresh` reloads what changed on disk, `running` keeps the providers connected.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel, replace
from taskplate.dsl import ActionCatalog, Diagnostic, Template, check_source
from taskplate.providers import (
    LOCK_FILE,
    Configuration,
    ProviderCatalog,
    Providers,
    fingerprint,
    template_needs,
)

log = logging.getLogger("taskplate.templates")
# The templates shipped inside the package: a folder in a checkout or a wheel, a zip member in a
# zipapp; read through importlib.resources so every form works.
SHIPPED: Traversable = files("taskplate") / "templates"


CASE_SUFFIXES = (".test.yaml", ".test.yml")  # a template's test cases, beside it


def template_files(folder: Traversable) -> Iterator[Traversable]:
    """A folder's `*.yaml`/`*.yml` files at any depth, in name order, but for test cases
    (`*.test.yaml`, see _cases.py); a file is itself."""
    if not folder.is_dir():
        yield folder
        return
    for child in sorted(folder.iterdir(), key=lambda c: c.name):
        if child.is_dir():
            yield from template_files(child)
        elif child.name.endswith((".yaml", ".yml")) and not child.name.endswith(CASE_SUFFIXES):
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


def template_info(
    t: Template, level: str = "L0", providers: list[str] | None = None
) -> dict[str, Any]:
    """A served template as `list_task_templates` (and `dsl template list|show`) show it."""
    limits = {
        k: v
        for k, v in (
            ("maxItems", t.limits.max_items),
            ("maxConcurrency", t.limits.max_concurrency),
            ("maxTimeoutMs", t.limits.max_timeout_ms),
        )
        if v is not None
    }
    threshold = (
        t.partial_success.threshold
        if t.partial_success.threshold is not None
        else (0.5 if t.partial_success.allowed else None)
    )
    return {
        "templateId": t.id,
        "version": t.version,
        "name": t.name,
        "description": t.description,
        "trustLevelSupport": [str(x) for x in t.trust],
        "supportsPartialSuccess": t.partial_success.allowed,
        "partialSuccessThreshold": threshold,
        "limits": limits,
        "inputsSchema": t.inputs_schema,
        "outputsSchema": t.outputs_schema,
        "capabilityLevel": level,
        "providers": providers or [],
    }


def _first_error(diagnostics: list[Diagnostic]) -> str:
    errors = [d for d in diagnostics if str(d.severity) == "error"] or diagnostics
    return errors[0].header() if errors else "it does not check"


@dataclass
class TemplateLibrary:
    catalog: ActionCatalog  # the built-in actions
    templates: dict[str, dict[str, Template]] = field(default_factory=dict)
    sources: dict[tuple[str, str], str] = field(default_factory=dict)
    rejected: dict[str, list[Diagnostic]] = field(default_factory=dict)
    folders: list[Traversable] = field(default_factory=list)
    home: Path | None = None  # the data home, whose taskplate.toml has the last word
    configuration: Configuration = field(default_factory=Configuration)
    actions: ProviderCatalog | None = None  # the built-in actions and the providers' tools
    providers: Providers | None = None  # connected while `running`
    needed: set[str] = field(default_factory=set)  # providers that enabled templates use
    added: list[Traversable] = field(default_factory=list)  # files added one by one (dsl run)
    switched_off: dict[str, Template] = field(default_factory=dict)  # path -> disabled template
    # Test cases (`dsl test`, `dsl record`): the templates they run from their files, served
    # whatever the switches say; the lock files beside them; offline, no provider starts.
    cases: list[Traversable] = field(default_factory=list)
    tested: set[str] = field(default_factory=set)  # their ids
    case_locks: list[Path] = field(default_factory=list)
    offline: bool = False
    # Templates remote principals saved (`save_template`): space (`space_of`) -> id -> version,
    # each seen by its principal only, under `<home>/principals/<space>/templates/`.
    owned: dict[str, dict[str, dict[str, Template]]] = field(default_factory=dict)
    owned_sources: dict[tuple[str, str, str], str] = field(default_factory=dict)
    shipped: set[tuple[str, str]] = field(default_factory=set)  # (id, version) read from SHIPPED
    _seen: Any = None

    def load(self, folders: list[Traversable], home: Path | None = None) -> TemplateLibrary:
        self.folders, self.home = list(folders), home
        self._reload()
        return self

    def _reload(self) -> None:
        """Configuration, lock files and every template read again; checked against the
        providers' live tools where they are connected, else their lock files."""
        self._seen = fingerprint(self._watched(), self.home)
        self.actions = ProviderCatalog.build(
            self.catalog, self.folders, self.home, self.providers, self.case_locks
        )
        self.configuration = self.actions.configuration
        self.templates, self.sources, self.rejected, self.needed = {}, {}, {}, set()
        self.switched_off, self.owned, self.owned_sources, self.shipped = {}, {}, {}, set()
        for folder in self.folders:
            for path in template_files(folder):
                template = self._add(path)
                if template is not None and str(folder) == str(SHIPPED):
                    self.shipped.add((template.id, template.version))
        for path in self.added:
            self._add(path)
        for folder in self._owned_folders():
            for path in template_files(folder):
                self._add(path, folder.parent.name)

    def _owned_folders(self) -> list[Path]:
        """Each remote principal's folder of saved templates."""
        if self.home is None or not (self.home / "principals").is_dir():
            return []
        spaces = (self.home / "principals").iterdir()
        return sorted(p / "templates" for p in spaces if (p / "templates").is_dir())

    def _watched(self) -> list[Traversable]:
        return [*self.folders, *self._owned_folders()]

    def add_file(self, path: Traversable, space: str | None = None) -> Template | None:
        """One more template file, kept across reloads; `space`: a remote principal's own
        (read again from its folder on a reload)."""
        if space is None:
            self.added.append(path)
        else:
            self._seen = fingerprint(self._watched(), self.home)  # its own change, known
        return self._add(path, space)

    def add_case_file(self, path: Path) -> Template | None:
        """The template a test case runs, from its file (`dsl test`, `dsl record`): served
        whatever the configuration switches off, since a case tests the template as code; the
        providers' tools it calls read, where no configuration lists them, from the lock file
        beside it."""
        lock = path.parent / LOCK_FILE
        if lock.is_file() and lock not in self.case_locks:
            self.case_locks.append(lock)
            self.actions = ProviderCatalog.build(
                self.catalog, self.folders, self.home, self.providers, self.case_locks
            )
        self.cases.append(path)
        return self.add_file(path)

    def _add(self, path: Traversable, space: str | None = None) -> Template | None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("template %s not served: cannot read it (%s)", path, exc)
            return None
        actions = self.actions or self.catalog
        result = check_source(text, str(path), actions)
        if result.template is not None and path in self.cases:
            self.tested.add(result.template.id)
        if result.template is not None and not self.enabled(result.template.id):
            log.info("template %s (%s) is disabled by configuration", result.template.id, path)
            self.switched_off[str(path)] = result.template
            return None  # not served, so neither checked nor needing its providers
        if result.template is not None:
            self.needed |= template_needs(result.template, actions)[1]
        if not result.ok or result.template is None:
            self.rejected[str(path)] = result.diagnostics
            for d in result.diagnostics:
                log.warning("template %s not served: %s", path, d.header())
            return None
        template = result.template
        if space is not None:
            self.owned.setdefault(space, {}).setdefault(template.id, {})[template.version] = (
                template
            )
            self.owned_sources[(space, template.id, template.version)] = text
            return template
        self.templates.setdefault(template.id, {})[template.version] = template
        self.sources[(template.id, template.version)] = text
        return template

    # -- switched on and off, reloaded -----------------------------------------------------------
    def enabled(self, template_id: str) -> bool:
        return template_id in self.tested or template_id not in self.configuration.disabled

    def needs(self, template: Template) -> tuple[str, list[str]]:
        """The template's highest capability level and the providers it calls."""
        level, providers = template_needs(template, self.actions or self.catalog)
        return str(level), sorted(providers)

    async def refresh(self) -> bool:
        """Reload when a template file, a configuration or a lock file changed (runs under
        way keep the templates they started with); True when something changed."""
        if fingerprint(self._watched(), self.home) == self._seen:
            return False
        log.info("templates or configuration changed: reloading")
        self._reload()
        if self.providers is not None:
            await self.providers.reconfigure(self.configuration.providers)
            await self._connect()
        return True

    async def _connect(self) -> None:
        """Start the providers enabled templates use, then check every template again
        against what the servers list now."""
        assert self.providers is not None
        wanted = sorted(self.needed & set(self.configuration.providers))
        await self.providers.start(wanted)
        self._reload()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[TemplateLibrary]:
        """The providers enabled templates use, connected (each failure logged, its tools
        absent); every one closed on leaving. `offline`: none (a test case's provider calls
        are answered from its recording)."""
        if self.offline:
            yield self
            return
        providers = Providers(self.configuration.providers)
        async with providers.running():
            self.providers = providers
            try:
                await self._connect()
                yield self
            finally:
                self.providers = None

    def info(self, template: Template) -> dict[str, Any]:
        """The template as `list_task_templates` shows it."""
        return template_info(template, *self.needs(template))

    def found(self) -> list[dict[str, Any]]:
        """Every template file found: the served ones as `list_task_templates` shows them
        (`enabled: true`), then those switched off by a taskplate.toml and those not served
        because they do not check, each with why (`enabled: false`, `why`)."""
        served = [{**self.info(t), "enabled": True} for t in self.all()]
        for t in served:
            if t["templateId"] in self.configuration.local_only:
                t["why"] = "local callers only (taskplate.toml [templates] local_only)"
        off = [
            {
                **self.info(t),
                "enabled": False,
                "why": "disabled by taskplate.toml ([templates] disabled)",
                "path": path,
            }
            for path, t in self.switched_off.items()
        ]
        broken = [
            {
                "templateId": None,
                "path": path,
                "enabled": False,
                "why": "not served: " + _first_error(found),
                "diagnostics": [d.header() for d in found],
            }
            for path, found in self.rejected.items()
        ]
        return [*served, *off, *broken]

    def is_shipped(self, template: Template) -> bool:
        """Whether the template is one taskplate ships (not the operator's own)."""
        return (template.id, template.version) in self.shipped

    def all(self, space: str | None = None) -> list[Template]:
        """The served templates; `space`: with a remote principal's own (in place of a
        served one of the same id), never another's."""
        return [
            self._switched(t)
            for template_id, versions in self._seen_by(space).items()
            if self.enabled(template_id)
            for t in sorted(versions.values(), key=lambda t: _version_key(t.version))
        ]

    def _seen_by(self, space: str | None) -> dict[str, dict[str, Template]]:
        return {**self.templates, **self.owned.get(space, {})} if space else self.templates

    def text(self, template: Template, space: str | None = None) -> str | None:
        """The YAML a served template was read from (`space`: a principal's own first)."""
        if space is not None and (space, template.id, template.version) in self.owned_sources:
            return self.owned_sources[(space, template.id, template.version)]
        return self.sources.get((template.id, template.version))

    def _switched(self, template: Template) -> Template:
        """A template the configuration limits to local callers, so limited."""
        if template.id not in self.configuration.local_only:
            return template
        return replace(template, trust=(TrustLevel.LOCAL,))

    def get(
        self, template_id: str, version: str | None = None, space: str | None = None
    ) -> Template:
        """`space`: a remote principal's, whose own templates it sees (another principal's
        id is answered as an unknown one)."""
        if not self.enabled(template_id):
            raise TaskplateError(
                ErrorCode.TEMPLATE_DISABLED,
                f'template "{template_id}" is disabled by the operator',
                "Use another template (list_task_templates), or ask the operator to enable it "
                "in taskplate.toml.",
                {"templateId": template_id},
            )
        seen = self._seen_by(space)
        versions = seen.get(template_id)
        if not versions:
            raise TaskplateError(
                ErrorCode.TEMPLATE_NOT_FOUND,
                f'no template "{template_id}"',
                f"Installed: {', '.join(sorted(filter(self.enabled, seen))) or 'none'} (list_task_templates).",
            )
        candidates = [v for v in versions if version is None or matches(v, version)]
        if not candidates:
            raise TaskplateError(
                ErrorCode.TEMPLATE_VERSION_UNSUPPORTED,
                f'template "{template_id}" has no version matching {version}',
                f"Installed versions: {', '.join(sorted(versions, key=_version_key))}.",
            )
        return self._switched(versions[max(candidates, key=_version_key)])
