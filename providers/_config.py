"""`taskplate.toml`: the providers (other MCP servers), template switches and language model
an operator configures, read from each template folder and from the data home. Reads files;
starts nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import tomllib
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from taskplate.contract import Level

from ._config_profiles import ProfileSettings, profile_settings
from ._config_schema import _PROVIDER, NAME, NETWORK
from ._llm import ModelEndpoint, endpoint_from_env, endpoint_of

log = logging.getLogger("taskplate.providers")

CONFIG_FILE = "taskplate.toml"
LOCK_FILE = "providers.lock.json"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
START_TIMEOUT_MS = 30_000
CALL_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class ProviderConfig:
    """One `[providers.NAME]` entry, its `${VAR}`s expanded and its cwd resolved."""

    name: str
    source: str  # the taskplate.toml it came from
    config_hash: str  # of the entry as written: the lock file records it
    command: tuple[str, ...] = ()
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    url: str | None = None
    token_env: str | None = None
    levels: tuple[tuple[str, Level], ...] = ()
    start_timeout_ms: int = START_TIMEOUT_MS
    call_timeout_ms: int = CALL_TIMEOUT_MS

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    @property
    def lock_path(self) -> Path:
        return Path(self.source).parent / LOCK_FILE

    def level_of(self, tool: str) -> Level | None:
        return dict(self.levels).get(tool)


@dataclass
class Configuration:
    """Every configuration file merged: later files (the data home's last) have the last word."""

    providers: dict[str, ProviderConfig] = field(default_factory=dict)
    disabled: set[str] = field(default_factory=set)
    local_only: set[str] = field(default_factory=set)
    files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    llm: ModelEndpoint | None = None  # the endpoint llm_extract may ask
    no_llm: str = ""  # why there is none, for the error of a step that needs one
    network: dict[str, Any] = field(default_factory=dict)  # the `[network]` table as written
    # `[serve]`: the tool groups `dsl serve` offers and whether templates are tools (None:
    # the default); a later file's value replaces an earlier one's
    serve_tools: list[str] | None = None
    template_tools: bool | None = None
    answer_tokens: int | None = None  # `[serve] answerTokens`: the answer budget (None: 20,000)
    tool_tokens: int | None = None  # `[serve] toolTokens`: tools/list's budget (None: 4,400)
    drain_s: float | None = None  # `[serve] drainS`: a SIGTERM's grace for items (None: 30)
    # `[profiles]` (the data home's): remote principals' own profiles, the operator's shared
    profiles: ProfileSettings = field(default_factory=ProfileSettings)

    def warn(self, message: str) -> None:
        self.warnings.append(message)
        log.warning("%s", message)


def config_hash(entry: Any) -> str:
    text = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _expand(text: str, env: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise ValueError(f"${{{name}}} is not set in the environment")
        return env[name]

    return _VAR.sub(one, text)


def _entry_errors(entry: Any) -> list[str]:
    from taskplate.dsl import schema_failures

    problems = []
    failures = schema_failures(_PROVIDER, entry)  # jsonschema imported only to explain one
    for error in sorted(failures, key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path)
        if error.validator == "oneOf":
            both = isinstance(entry, dict) and "command" in entry and "url" in entry
            message = "give command or url, not both" if both else "give command (stdio) or url"
        else:
            message = error.message
        problems.append(f"{where}: {message}" if where else message)
    return problems


def _provider(
    name: str, entry: Any, source: Path, env: dict[str, str]
) -> tuple[ProviderConfig | None, str | None]:
    """The entry, or why it is skipped."""
    if not NAME.match(name):
        return None, f"bad name (want lowercase letters, digits and _: {NAME.pattern})"
    problems = _entry_errors(entry)
    if problems:
        return None, "; ".join(problems)
    try:
        command = tuple(_expand(a, env) for a in entry.get("command", ()))
        cwd = entry.get("cwd")
        cwd = str((source.parent / _expand(cwd, env)).resolve()) if cwd else None
        url = _expand(entry["url"], env) if "url" in entry else None
    except ValueError as exc:
        return None, str(exc)
    if command and not command[0].strip():
        return None, "empty command"
    if command and shutil.which(command[0], path=_path_for(command[0], cwd, env)) is None:
        return None, f'command "{command[0]}" does not exist (not found on PATH)'
    if cwd and not Path(cwd).is_dir():
        return None, f"cwd {cwd} is not a folder"
    return (
        ProviderConfig(
            name=name,
            source=str(source),
            config_hash=config_hash(entry),
            command=command,
            cwd=cwd,
            env=tuple(sorted(entry.get("env", {}).items())),
            url=url,
            token_env=entry.get("token_env"),
            levels=tuple(sorted((k, Level(v)) for k, v in entry.get("levels", {}).items())),
            start_timeout_ms=entry.get("start_timeout_ms", START_TIMEOUT_MS),
            call_timeout_ms=entry.get("call_timeout_ms", CALL_TIMEOUT_MS),
        ),
        None,
    )


def _path_for(program: str, cwd: str | None, env: dict[str, str]) -> str | None:
    """Where a command is looked for: PATH, or beside cwd for a relative path with a slash."""
    if "/" in program and not os.path.isabs(program) and cwd:
        return cwd + os.pathsep + os.path.dirname(os.path.join(cwd, program))
    return env.get("PATH")


def _read(path: Traversable | Path) -> dict[str, Any] | str:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        return f"not valid TOML: {exc}"
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot read it: {exc}"
    return data


def config_files(folders: list[Traversable | Path], home: Path | None) -> list[Traversable | Path]:
    """The configuration files in reading order: each folder's, then the data home's."""
    found: list[Traversable | Path] = []
    for folder in folders:
        if folder.is_dir() and (folder / CONFIG_FILE).is_file():
            found.append(folder / CONFIG_FILE)
    if home is not None and (home / CONFIG_FILE).is_file():
        found.append(home / CONFIG_FILE)
    return found


def load_configuration(
    folders: list[Traversable | Path], home: Path | None = None
) -> Configuration:
    """Every configuration file of the template folders and the data home, merged; a bad
    entry is skipped with a warning naming it and the others still load."""
    config = Configuration()
    env = dict(os.environ)
    env.setdefault("TASKPLATE_HOME", str(home or Path.home() / ".taskplate"))
    home_file = str(home / CONFIG_FILE) if home is not None else None
    for path in config_files(folders, home):
        data = _read(path)
        config.files.append(str(path))
        if isinstance(data, str):
            config.warn(f"{path}: {data}; its providers and switches are ignored")
            continue
        known = {"providers", "templates", "llm", "network", "serve", "profiles"}
        for key in sorted(set(data) - known):
            config.warn(
                f'{path}: unknown table "{key}" ignored (want providers, templates, llm, '
                "network, serve or profiles)"
            )
        _merge_providers(config, data.get("providers", {}), Path(str(path)), env, home_file)
        _merge_switches(config, data.get("templates", {}), str(path))
        if "llm" in data:
            _merge_llm(config, data["llm"], str(path))
        if "network" in data:
            _merge_network(config, data["network"], str(path), str(path) == home_file)
        _merge_serve(config, data.get("serve", {}), str(path))
        if "profiles" in data and str(path) != home_file:
            config.warn(f"{path}: [profiles] ignored: only the data home's taskplate.toml sets it")
        elif "profiles" in data:
            config.profiles = profile_settings(data["profiles"], str(path), config.warn)
    if config.llm is None:
        from_env = endpoint_from_env(env)
        if isinstance(from_env, str):
            config.no_llm = config.no_llm or from_env
        else:
            config.llm = from_env
    return config


def _merge_network(config: Configuration, table: Any, path: str, is_home: bool) -> None:
    """The data home's `[network]` (the operator's); a template folder's is ignored: templates
    do not choose the operator's proxy."""
    if not is_home:
        config.warn(f"{path}: [network] ignored: only the data home's taskplate.toml sets it")
        return
    from taskplate.dsl import schema_failures

    problems = sorted(schema_failures(NETWORK, table), key=str)
    if problems:
        where = ".".join(["network", *(str(p) for p in problems[0].absolute_path)])
        config.warn(f"{path}: [network] ignored: {where}: {problems[0].message}")
        return
    config.network = dict(table)


def _merge_llm(config: Configuration, table: Any, path: str) -> None:
    """A later file's `[llm]` replaces an earlier one; a bad one is skipped, naming its key."""
    endpoint = endpoint_of(table, path)
    if isinstance(endpoint, str):
        config.no_llm = f"{path}: [llm] ignored: {endpoint}"
        config.warn(config.no_llm)
        return
    config.llm = endpoint


def _merge_serve(config: Configuration, table: Any, path: str) -> None:
    """`[serve] tools` (a list of group names, checked by the server), `templateTools`,
    `answerTokens` (the answer budget), `toolTokens` (tools/list's budget, which the
    templates' tools share) and `drainS` (a SIGTERM's grace for the items in flight)."""
    if not isinstance(table, dict):
        config.warn(f"{path}: serve must be a table")
        return
    known = {"tools", "templateTools", "answerTokens", "toolTokens", "drainS"}
    for key in sorted(set(table) - known):
        config.warn(
            f"{path}: serve.{key} ignored (want tools, templateTools, answerTokens, toolTokens "
            "or drainS)"
        )
    tools = table.get("tools")
    if isinstance(tools, list) and all(isinstance(t, str) and t for t in tools):
        config.serve_tools = list(tools)
    elif tools is not None:
        config.warn(f"{path}: serve.tools ignored: want a list of tool group names")
    shown = table.get("templateTools")
    if isinstance(shown, bool):
        config.template_tools = shown
    elif shown is not None:
        config.warn(f"{path}: serve.templateTools ignored: want true or false")
    config.answer_tokens = _budget(config, table, "answerTokens", path, config.answer_tokens)
    config.tool_tokens = _budget(config, table, "toolTokens", path, config.tool_tokens)
    drain = table.get("drainS")
    if isinstance(drain, int | float) and not isinstance(drain, bool) and 0 <= drain <= 3600:
        config.drain_s = float(drain)
    elif drain is not None:
        config.warn(f"{path}: serve.drainS ignored: want seconds, 0 to 3600")


def _budget(
    config: Configuration, table: dict[str, Any], key: str, path: str, was: int | None
) -> int | None:
    """A budget in tokens, 1000 to 1000000, or what was before (a bad one warned of)."""
    budget = table.get(key)
    if isinstance(budget, int) and not isinstance(budget, bool) and 1000 <= budget <= 1_000_000:
        return budget
    if budget is not None:
        config.warn(f"{path}: serve.{key} ignored: want a whole number, 1000 to 1000000")
    return was


def _merge_providers(
    config: Configuration, table: Any, path: Path, env: dict[str, str], home_file: str | None
) -> None:
    if not isinstance(table, dict):
        config.warn(f"{path}: providers must be a table of [providers.NAME] entries")
        return
    for name, entry in table.items():
        provider, why = _provider(name, entry, path, env)
        if provider is None:
            config.warn(f'{path}: provider "{name}" skipped: {why}')
            continue
        earlier = config.providers.get(name)
        if earlier is not None and str(path) != home_file:
            config.warn(
                f'{path}: provider "{name}" skipped: duplicate name (already defined in {earlier.source})'
            )
            continue
        if earlier is not None:
            log.info("provider %s of %s replaced by %s", name, earlier.source, path)
        config.providers[name] = provider


def _merge_switches(config: Configuration, table: Any, path: str) -> None:
    if not isinstance(table, dict):
        config.warn(f"{path}: templates must be a table")
        return
    for key, value in table.items():
        if key not in ("disabled", "enabled", "local_only"):
            config.warn(f"{path}: templates.{key} ignored (want disabled, enabled or local_only)")
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            config.warn(f"{path}: templates.{key} ignored: want a list of template ids")
            continue
        if key == "disabled":
            config.disabled |= set(value)
        elif key == "enabled":
            config.disabled -= set(value)
        else:
            config.local_only |= set(value)
