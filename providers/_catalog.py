"""The actions a template may call: the built-in ones and the providers' tools (live where a
provider is connected, else from its lock file), and why an `mcp.*` name is not among them.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taskplate.contract import Level, replace
from taskplate.dsl import ActionCatalog, ActionSpec, Template

from ._actions import provider_specs
from ._config import LOCK_FILE, Configuration, config_files, load_configuration
from ._lock import LockState, lock_listings, read_locks, split_action

if TYPE_CHECKING:  # the live client (anyio, the SDK) loads only when providers start
    from ._client import Providers

_ORDER = (Level.L0, Level.L1, Level.L2)
Run = Callable[..., Awaitable[Any]]


@dataclass
class ProviderCatalog(Mapping[str, ActionSpec]):
    """An ActionCatalog: built-in actions first, then every provider's tools."""

    builtin: ActionCatalog
    specs: dict[str, ActionSpec] = field(default_factory=dict)
    configuration: Configuration = field(default_factory=Configuration)
    locks: LockState = field(default_factory=LockState)
    absent: dict[str, str] = field(default_factory=dict)  # provider -> why its tools are absent

    @classmethod
    def build(
        cls,
        builtin: ActionCatalog,
        folders: list[Traversable],
        home: Path | None,
        providers: Providers | None = None,
        also: Sequence[Path] = (),
    ) -> ProviderCatalog:
        configuration = load_configuration(list(folders), home)
        return cls.of(builtin, configuration, providers, also)

    @classmethod
    def of(
        cls,
        builtin: ActionCatalog,
        configuration: Configuration,
        providers: Providers | None,
        also: Sequence[Path] = (),
    ) -> ProviderCatalog:
        """`also`: lock files whose providers' tools are listed where no configuration lists
        them (the lock beside a template a test case runs: offline, no provider is needed)."""
        locks = read_locks(configuration)
        listings = dict(locks.listings)
        absent = dict(locks.missing)
        for path in also:
            for name, listing in lock_listings(path).items():
                if name not in listings:
                    listings[name] = listing
                    absent.pop(name, None)
        if providers is not None:
            for name, why in providers.failures().items():
                listings.pop(name, None)
                absent[name] = f"provider {name} is not running: {why}"
            for name, listing in providers.listings().items():
                listings[name] = listing
                absent.pop(name, None)
        specs = provider_specs(listings, configuration.providers, providers)
        return cls(builtin, {s.name: s for s in specs}, configuration, locks, absent)

    def __getitem__(self, name: str) -> ActionSpec:
        spec = self.builtin.get(name)
        if spec is not None:
            return spec
        return self.specs[name]

    def get(self, name: str, default: Any = None) -> Any:
        spec = self.builtin.get(name)
        return spec if spec is not None else self.specs.get(name, default)

    def __iter__(self) -> Iterator[str]:
        yield from self.builtin.names()
        yield from self.specs

    def __len__(self) -> int:
        return len(list(self.builtin.names())) + len(self.specs)

    def names(self) -> list[str]:
        return list(self)

    def why_unknown(self, name: str) -> str | None:
        """For an `mcp.<provider>.<tool>` name that is not served: what is missing, with the
        closest tool names."""
        parts = split_action(name)
        if parts is None:
            return None
        provider, tool = parts
        if provider not in self.configuration.providers:
            configured = sorted(self.configuration.providers)
            close = difflib.get_close_matches(provider, configured, n=1, cutoff=0.6)
            where = ", ".join(self.configuration.files) or "no taskplate.toml was found"
            hint = f'; did you mean "{close[0]}"?' if close else ""
            return (
                f'unknown action "{name}": no provider "{provider}" is configured ({where}){hint}'
            )
        if provider in self.absent:
            return f'unknown action "{name}": {self.absent[provider]}'
        tools = sorted(
            s.name.rsplit(".", 1)[1] for s in self.specs.values() if s.provider == provider
        )
        close = difflib.get_close_matches(tool, tools, n=3, cutoff=0.6)
        if close:
            hint = "did you mean " + " or ".join(f'"{c}"' for c in close) + "?"
        else:
            hint = f"its tools: {', '.join(tools) or 'none'}"
        return f'unknown action "{name}": provider "{provider}" has no tool "{tool}"; {hint}'

    def stale(self, provider: str) -> str | None:
        return self.locks.stale.get(provider)

    def answered_by(self, runner: Callable[[ActionSpec], Run | None]) -> ProviderCatalog:
        """The same catalog with every provider tool run by `runner(spec)` (a test case's: the
        live call kept, or the recording's answer), the built-in actions as they are."""
        specs = {name: replace(spec, run=runner(spec)) for name, spec in self.specs.items()}
        return dataclasses.replace(self, specs=specs)


def template_needs(template: Template, catalog: Any) -> tuple[Level, set[str]]:
    """The highest capability level of a template's actions, and the providers it calls."""
    level, providers = Level.L0, set()
    for step in template.all_steps():
        if not step.action:
            continue
        parts = split_action(step.action)
        if parts is not None:
            providers.add(parts[0])
        spec = catalog.get(step.action)
        if spec is not None and _ORDER.index(spec.level) > _ORDER.index(level):
            level = spec.level
    return level, providers


def fingerprint(folders: list[Traversable], home: Path | None) -> tuple[Any, ...]:
    """What on disk decides the library: template, configuration and lock files, by name,
    size and modification time (a folder inside the package is read once and not watched)."""
    seen: list[Any] = []
    paths: list[Path] = [Path(str(f)) for f in config_files(list(folders), home)]
    paths += [p.parent / LOCK_FILE for p in paths]
    for folder in folders:
        if isinstance(folder, Path):
            if folder.is_dir():
                paths += [p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml")]
            else:
                paths.append(folder)
    for path in sorted(set(paths)):
        try:
            st = path.stat()
        except OSError:
            seen.append((str(path), None))
            continue
        seen.append((str(path), st.st_size, st.st_mtime_ns))
    return tuple(seen)
