"""Templates made from what was done: the action calls of a finished run or of a session's
browser tools, kept whole in the run store (secrets as marks), turned into a checked template.

Builds and writes template files only; never runs anything and never stores a secret's value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from taskplate.contract import ErrorCode, Level, RunStatus, TaskplateError, write_whole
from taskplate.dsl import ActionCatalog, check_source

from ._library import SHIPPED, TemplateLibrary, template_files
from .store import Store

SECRET = "$secret"  # {"$secret": true} stands where a secret's value was
TEMPLATE_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
_WORD = re.compile(r"[^a-z0-9]+")
# where an element target names its field: name=…, #id, placeholder=…, aria-label=…
_FIELD = re.compile(
    r"""(?:name|id|placeholder|aria-label)\s*[~|^$*]?=\s*["']?([^"'\]]+)|#([A-Za-z][\w-]*)"""
)


def typed_secret(action: str | None, args: Any, result: Any) -> str | None:
    """The value a `fill` typed as a secret (into a password field, or with `secret: true`)."""
    if action != "fill" or not isinstance(args, dict):
        return None
    value = args.get("value")
    flagged = args.get("secret") is True or (
        isinstance(result, dict) and result.get("secret") is True
    )
    return value if flagged and isinstance(value, str) and value else None


def marked(value: Any, secrets: list[str]) -> Any:
    """The value with each secret replaced: a whole secret by a mark, a part of a text by ***."""
    if isinstance(value, str):
        if value in secrets:
            return {SECRET: True}
        for secret in secrets:
            if secret:
                value = value.replace(secret, "***")
        return value
    if isinstance(value, dict):
        return {k: marked(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [marked(v, secrets) for v in value]
    return value


def user_templates(home: Path, space: str | None = None) -> Path:
    """The folder of templates saved by `save_template` / `dsl template from-run`; `space`: a
    remote principal's own (`space_of`), which only it sees."""
    return home / "templates" if space is None else home / "principals" / space / "templates"


def shipped_ids() -> set[str]:
    """The ids of the templates shipped with taskplate: names a saved template may not take."""
    ids = set()
    for path in template_files(SHIPPED):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("template"), str):
            ids.add(data["template"])
    return ids


# -- reading what was recorded ---------------------------------------------------------------
async def kept_calls(store: Store, source: str) -> tuple[list[dict[str, Any]], str]:
    """The calls of a finished, succeeded run or of a session, and how to name their origin."""
    if source.startswith("run_"):
        row = await store.run(source)
        if row is None:
            raise TaskplateError(
                ErrorCode.RUN_NOT_FOUND,
                f"no run {source}",
                "Use a runId from run_steps or list_task_runs.",
            )
        if not RunStatus(row.status).terminal:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"run {source} is {row.status}: it has not finished",
                "Wait until it has finished (get_task_run), then save it.",
            )
        if row.status != RunStatus.SUCCEEDED:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"run {source} {row.status}: only a run that succeeded can become a template",
                "Run the steps again until they succeed, then save that run.",
            )
        calls = await store.calls(source)
        origin = f"run {source}"
    else:
        calls = await store.calls(source)
        origin = "a session"  # never its id: knowing a session's id is what gives access to it
        if not calls:
            raise TaskplateError(
                ErrorCode.SESSION_NOT_FOUND,
                f"nothing was recorded for session {source}",
                "Pass the sessionId whose browser tools (navigate, click, fill, …) succeeded.",
            )
    if not calls:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{origin} recorded no action calls",
            "Save a run_steps run or a session made with this version of taskplate.",
        )
    if any(c["item_index"] is not None for c in calls):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{origin} ran a forEach loop; a recording keeps single steps only",
            "Save a run without forEach, and add the loop to the saved template by hand.",
        )
    return calls, origin


# -- building the template ------------------------------------------------------------------
@dataclass
class _Inputs:
    """The template's inputs, named after what they fill; one input per distinct URL."""

    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    by_url: dict[str, str] = field(default_factory=dict)

    def name(self, base: str) -> str:
        base = _WORD.sub("_", base.lower()).strip("_") or "value"
        if not base[0].isalpha():
            base = "field_" + base
        base = base[:40]
        name, n = base, 2
        while name in self.properties:
            name, n = f"{base}_{n}", n + 1
        return name

    def url(self, value: str, step_id: str) -> str:
        if value not in self.by_url:
            name = self.name("url" if not self.by_url else f"url_{len(self.by_url) + 1}")
            schema: dict[str, Any] = {"type": "string", "minLength": 1}
            if re.match(r"https?://", value):
                schema["pattern"] = "^https?://"
            schema["description"] = f"The page step {step_id} opened (recorded: {value})."
            schema["default"] = value
            self.properties[name] = schema
            self.by_url[value] = name
        return f"${{{{ inputs.{self.by_url[value]} }}}}"

    def typed(self, value: Any, args: dict[str, Any], step_id: str) -> str:
        name = self.name(_field_name(args))
        if isinstance(value, dict) and value.get(SECRET) is True:
            self.properties[name] = {
                "type": "string",
                "format": "password",
                "writeOnly": True,
                "minLength": 1,
                "description": f"Typed by step {step_id} (a secret: never recorded).",
            }
            self.required.append(name)
        else:
            self.properties[name] = {
                "type": "string",
                "description": f"Typed by step {step_id}.",
                "default": value,
            }
        return f"${{{{ inputs.{name} }}}}"

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "object", "additionalProperties": False}
        if self.required:
            out["required"] = self.required
        out["properties"] = self.properties
        return out


def _field_name(args: dict[str, Any]) -> str:
    for key in ("selector", "xpath"):
        found = _FIELD.search(str(args.get(key, "")))
        if found:
            return found.group(1) or found.group(2)
    if isinstance(args.get("text"), str):
        return str(args["text"])
    if "password" in str(args.get("selector", "")).lower():  # input[type=password]
        return "password"
    return "value"


def _step_ids(calls: list[dict[str, Any]]) -> list[str]:
    """The id each call had; calls without one are named after their action: click_1, …"""
    wanted = [c.get("step_id") or "" for c in calls]
    taken = {w for w in wanted if re.fullmatch(r"[a-z][a-z0-9_]*", w)}
    ids: list[str] = []
    for call, own in zip(calls, wanted, strict=True):
        if own in taken and own not in ids:
            ids.append(own)
            continue
        n = 1
        while f"{call['action']}_{n}" in taken or f"{call['action']}_{n}" in ids:
            n += 1
        ids.append(f"{call['action']}_{n}")
    return ids


def _tab_value(tab: str, opened: dict[str, str], origin: str, step_id: str) -> str:
    if tab in opened:
        return f"${{{{ steps.{opened[tab]}.tabId }}}}"
    raise TaskplateError(
        ErrorCode.INVALID_PARAMETER,
        f"step {step_id} of {origin} ran in tab {tab}, which the recording did not open",
        "Record the steps in the main tab, or open the tab with create_tab in the same recording.",
    )


def _holds_secret(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get(SECRET) is True or any(_holds_secret(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_secret(v) for v in value)
    return False


def build_template(
    name: str,
    calls: list[dict[str, Any]],
    origin: str,
    catalog: ActionCatalog,
    description: str | None = None,
) -> tuple[dict[str, Any], _Inputs]:
    """The template as a plain mapping: literal URLs and typed values become inputs (secrets
    password inputs), every call a step with the id it had (or one after its action)."""
    inputs = _Inputs()
    opened: dict[str, str] = {}
    steps: list[dict[str, Any]] = []
    local_only = False
    for call, step_id in zip(calls, _step_ids(calls), strict=True):
        action, args = call["action"], dict(call["args"] or {})
        spec = catalog.get(action)
        local_only = local_only or (spec is not None and spec.level is Level.L2)
        if isinstance(args.get("url"), str) and action in ("navigate", "create_tab"):
            args["url"] = inputs.url(args["url"], step_id)
        if action in ("fill", "type") and "value" in args:
            args["value"] = inputs.typed(args["value"], args, step_id)
            args.pop("secret", None)  # a password input says it already
        if action == "select_option":
            for key in ("value", "label"):
                if isinstance(args.get(key), str):
                    args[key] = inputs.typed(args[key], args, step_id)
        if action == "close_tab" and isinstance(args.get("tabId"), str):
            args["tabId"] = _tab_value(args["tabId"], opened, origin, step_id)
        if _holds_secret(args):
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"step {step_id} of {origin} passed a secret where a recording cannot ask for it",
                "Type secrets with fill; other arguments are kept as they were.",
            )
        step: dict[str, Any] = {"id": step_id, "action": action}
        if call.get("tab") == "new":
            step["tab"] = "new"
        elif call.get("tab"):
            step["tab"] = _tab_value(call["tab"], opened, origin, step_id)
        if args:
            step["with"] = args
        steps.append(step)
        if call.get("opened_tab"):
            opened[call["opened_tab"]] = step_id
    template: dict[str, Any] = {
        "template": name,
        "version": "1.0.0",
        "name": name.replace("_", " ").capitalize(),
        "description": description or f"Recorded from {origin}.",
        "trust": ["local"] if local_only else ["local", "remote"],
        "inputs": inputs.schema(),
        "steps": steps,
        # every step's result, under its id: what the recorded run answered
        "output": {s["id"]: f"${{{{ steps.{s['id']} }}}}" for s in steps},
    }
    return template, inputs


def template_text(template: dict[str, Any]) -> str:
    return yaml.safe_dump(template, sort_keys=False, allow_unicode=True, width=100)


# -- saving -----------------------------------------------------------------------------------
@dataclass
class Saved:
    template_id: str
    version: str
    path: Path
    text: str
    inputs: list[str]
    secret_inputs: list[str]
    steps: int

    shown: str | None = None  # the path as the caller is told it (a remote one: no server path)

    def to_json(self) -> dict[str, Any]:
        return {
            "templateId": self.template_id,
            "version": self.version,
            "path": self.shown or str(self.path),
            "inputs": self.inputs,
            "secretInputs": self.secret_inputs,
            "steps": self.steps,
            "text": self.text,
        }


def check_name(name: str, library: TemplateLibrary, shipped: set[str], folder: Path) -> None:
    if not TEMPLATE_NAME.fullmatch(name):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f'"{name}" is not a template name: lower-case letters, digits and _, starting with a letter (at most 64)',
            "Choose a name like shop_prices.",
        )
    if name in shipped:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f'"{name}" is the name of a shipped template',
            "Choose another name.",
        )
    if name in library.templates and not (folder / f"{name}.yaml").exists():
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f'"{name}" is the name of a template served from another folder',
            "Choose another name.",
        )


async def save_kept_calls(
    store: Store,
    library: TemplateLibrary,
    home: Path,
    source: str,
    name: str,
    *,
    shipped: set[str] | None = None,
    description: str | None = None,
    overwrite: bool = False,
    space: str | None = None,
) -> Saved:
    """Check, build, validate and write `<home>/templates/<name>.yaml` (`space`: a remote
    principal's own folder, another's never read), then serve it.

    Every refusal comes before the file is written; the file appears whole or not at all."""
    folder = user_templates(home, space)
    check_name(name, library, shipped_ids() if shipped is None else shipped, folder)
    path = folder / f"{name}.yaml"
    if path.exists() and not overwrite:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f'you saved a template "{name}" already',
            "Choose another name, or pass overwrite to replace it.",
        )
    calls, origin = await kept_calls(store, source)
    template, inputs = build_template(name, calls, origin, library.catalog, description)
    text = template_text(template)
    shown = None if space is None else f"templates/{name}.yaml"  # no server path for a remote one
    checked = check_source(text, shown or str(path), library.catalog)
    if not checked.ok or checked.template is None:
        problems = [d for d in checked.diagnostics if d.severity == "error"]
        raise TaskplateError(
            ErrorCode.EXECUTION_ERROR,
            f"the recorded template does not validate: {problems[0].header() if problems else '?'}",
            "Report this as a bug; nothing was saved.",
            {"diagnostics": [d.to_json() for d in problems]},
        )
    _write(path, text)
    library.add_file(path, space)
    secret_inputs = list(inputs.required)
    return Saved(
        name,
        str(template["version"]),
        path,
        text,
        list(inputs.properties),
        secret_inputs,
        len(template["steps"]),
        shown,
    )


def _write(path: Path, text: str) -> None:
    write_whole(path, text.encode("utf-8"))
