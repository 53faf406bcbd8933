"""`dsl template list|show|new|from-run`: the templates `dsl serve` serves, as
list_task_templates shows them (the same library: folders, taskplate.toml switches), a starter
for a new one, and one saved from a run. Reads templates; runs nothing.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import click

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import Saved, data_home, open_store, save_kept_calls

from .._common import emit, library
from .._errors import user_errors
from .._help import examples
from .._starters import STARTERS, starter


@click.group(
    "template",
    epilog=examples(
        "dsl template list",
        "dsl template show batch_extract_pages",
        "dsl template new my_task --from batch",
    ),
)
def group() -> None:
    """List, show, start and save templates.

    The templates served here: list them, show one, start a new one, save one from a run."""


_folders_option = click.option(
    "--templates", "folders", multiple=True, metavar="DIR", help="More template folders."
)


@group.command(
    "list",
    epilog=examples(
        "dsl template list", "dsl template list --json | jq -r '.templates[].templateId'"
    ),
)
@_folders_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON (list_task_templates' fields).")
@user_errors
def list_templates(folders: tuple[str, ...], as_json: bool) -> None:
    """List the templates served here.

    The templates dsl serve serves, and those it does not, with why."""
    found = library(folders).found()
    if as_json:
        emit({"templates": found})
        return
    rows = [
        (
            t["templateId"] or t["path"],
            t.get("version", ""),
            t.get("name", ""),
            t.get("capabilityLevel", ""),
            _enabled(t),
            ", ".join(t.get("providers", [])) or "-",
        )
        for t in found
    ]
    click.echo(_table(("TEMPLATE", "VERSION", "NAME", "LEVEL", "ENABLED", "PROVIDERS"), rows))


def _enabled(entry: dict[str, Any]) -> str:
    if entry["enabled"]:
        return "yes" + (f" ({entry['why']})" if entry.get("why") else "")
    return f"no: {entry['why']}"


def _table(header: tuple[str, ...], rows: Sequence[tuple[Any, ...]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        cells = [str(c).ljust(w) for c, w in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, str(row[-1])]).rstrip())
    return "\n".join(lines)


@group.command(
    "show",
    epilog=examples(
        "dsl template show batch_extract_pages",
        "dsl template show batch_extract_pages@^1.0 --json",
    ),
)
@click.argument("template_ref", metavar="ID[@VERSION]")
@_folders_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON, with the example calls.")
@user_errors
def show(template_ref: str, folders: tuple[str, ...], as_json: bool) -> None:
    """What a template does, takes and returns, and how to run it."""
    template_id, _, version = template_ref.partition("@")
    lib = library(folders)
    entry = next(
        (t for t in lib.found() if t["templateId"] == template_id and not t["enabled"]), None
    )
    if entry is None:  # served: the version asked for, or the newest
        entry = {**lib.info(lib.get(template_id, version or None)), "enabled": True}
        if template_id in lib.configuration.local_only:
            entry["why"] = "local callers only (taskplate.toml [templates] local_only)"
    inputs = example_inputs(entry["inputsSchema"])
    entry["example"] = {
        "cli": cli_example(entry["templateId"], inputs),
        "mcp": {
            "name": "run_task_template",
            "arguments": {
                "templateId": entry["templateId"],
                "templateVersion": entry["version"],
                "inputs": inputs,
            },
        },
    }
    if as_json:
        emit(entry)
        return
    click.echo(describe(entry))


def describe(t: dict[str, Any]) -> str:
    """A template's entry as text for a terminal."""
    lines = [f"{t['templateId']} {t['version']}: {t['name']}"]
    if t["description"]:
        lines += textwrap.wrap(t["description"], 96)
    threshold = t["partialSuccessThreshold"]
    facts = [
        f"level {t['capabilityLevel']}",
        "trust " + ", ".join(t["trustLevelSupport"]),
        f"partial success at {threshold:g}"
        if t["supportsPartialSuccess"]
        else "no partial success",
        "providers " + (", ".join(t["providers"]) or "none"),
        "enabled" + (f" ({t['why']})" if t.get("why") else "")
        if t["enabled"]
        else f"not enabled: {t['why']}",
    ]
    lines += ["", " · ".join(facts)]
    if t["limits"]:
        lines.append("limits: " + ", ".join(f"{k} {v}" for k, v in t["limits"].items()))
    lines += ["", "Inputs:", *_properties(t["inputsSchema"])]
    lines += ["", "Outputs:", *_properties(t["outputsSchema"] or {})]
    lines += ["", "Run it here:", f"  {t['example']['cli']}"]
    lines += ["", "Over MCP (tools/call):", f"  {json.dumps(t['example']['mcp'])}"]
    return "\n".join(lines)


def _properties(schema: dict[str, Any]) -> list[str]:
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return ["  (none)" if not schema.get("type") else f"  {type_of(schema)}"]
    required = set(schema.get("required", []))
    out = []
    for name, prop in properties.items():
        prop = prop if isinstance(prop, dict) else {}
        facts = [type_of(prop)]
        if name in required:
            facts.append("required")
        if "default" in prop:
            facts.append(f"default {json.dumps(prop['default'], ensure_ascii=False)}")
        if prop.get("writeOnly") or prop.get("format") == "password":
            facts.append("secret")
        out.append(f"  {name} ({', '.join(facts)})")
        if prop.get("description"):
            out += ["      " + line for line in textwrap.wrap(prop["description"], 90)]
    return out


def type_of(schema: dict[str, Any]) -> str:
    """A schema's type in a few words: `array of string (uri)`, `one of a|b`, `integer 1–5`."""
    if "enum" in schema:
        return "one of " + "|".join(str(v) for v in schema["enum"])
    kind = schema.get("type", "any")
    kind = "|".join(kind) if isinstance(kind, list) else str(kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        kind = f"array of {type_of(schema['items'])}"
    if schema.get("format") and schema["format"] != "password":
        kind += f" ({schema['format']})"
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None or high is not None:
        kind += f" {'' if low is None else low}–{'' if high is None else high}"
    return kind


def example_value(name: str, schema: dict[str, Any], n: int = 1) -> Any:
    """A value the schema takes, for an example call: its own example or default if it has one,
    else a placeholder of its type (a URL where it asks for one)."""
    if schema.get("examples"):
        return schema["examples"][0]
    if "default" in schema:
        return schema["default"]
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "array":
        items: dict[str, Any] = schema["items"] if isinstance(schema.get("items"), dict) else {}
        count = max(1, int(schema.get("minItems", 1)))
        return [example_value(name, items, i + 1) for i in range(count)]
    if kind == "object":
        extra = schema.get("additionalProperties")
        if schema.get("minProperties") and isinstance(extra, dict):
            return {"name": example_value("name", extra)}
        return {}
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    if _is_url(name, schema):
        return f"https://example.com/{'' if n == 1 else n}"
    return name.upper()


def _is_url(name: str, schema: dict[str, Any]) -> bool:
    pattern = str(schema.get("pattern", ""))
    return (
        schema.get("format") in ("uri", "url")
        or pattern.startswith("^https?")
        or name.lower().endswith(("url", "urls"))
    )


def example_inputs(schema: dict[str, Any]) -> dict[str, Any]:
    """The required inputs with example values."""
    properties = schema.get("properties") or {}
    return {
        name: example_value(name, properties.get(name) or {}) for name in schema.get("required", [])
    }


def cli_example(template_id: str, inputs: dict[str, Any]) -> str:
    words = ["dsl", "run", template_id]
    for key, value in inputs.items():
        values = value if isinstance(value, list) and all(_plain(v) for v in value) else [value]
        for one in values:
            text = one if _plain(one) else json.dumps(one, ensure_ascii=False)
            words += ["--input", shlex.quote(f"{key}={text}")]
    return " ".join(words)


def _plain(value: Any) -> bool:
    """A string `--input` reads back as the same string (not as JSON)."""
    if not isinstance(value, str):
        return False
    try:
        json.loads(value)
    except json.JSONDecodeError:
        return True
    return False


TEMPLATE_ID = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


@group.command(
    "new",
    epilog=examples(
        "dsl template new page_title",
        "dsl template new shop_pages --from batch",
        "dsl template new members_login --from login",
    ),
)
@click.argument("name")
@click.option(
    "--from",
    "kind",
    type=click.Choice(list(STARTERS)),
    default="blank",
    show_default=True,
    help="The starter: one page (blank), many pages in tabs (batch), a sign-in form kept as a "
    "profile (login), or a site read link by link over HTTP (crawl).",
)
@click.option("--force", is_flag=True, help="Replace NAME.yaml if it is there.")
@user_errors
def new(name: str, kind: str, force: bool) -> None:
    """Start a template from a commented starter.

    Writes NAME.yaml in this folder; it passes dsl validate as it is: edit it into your own."""
    if not TEMPLATE_ID.match(name):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f'"{name}" cannot be a template id',
            "Use lower-case letters, digits and _, starting with a letter (at most 64).",
        )
    path = Path(f"{name}.yaml")
    text = starter(kind, name)
    try:
        if force:
            temporary = path.with_name(f".{path.name}.tmp")
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, path)
        else:
            with path.open("x", encoding="utf-8") as out:
                out.write(text)
    except FileExistsError:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{path} is already there",
            "Choose another name, or pass --force to replace it.",
        ) from None
    except OSError as exc:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER, f"cannot write {path}: {exc.strerror}", ""
        ) from None
    click.echo(f"wrote {path} (from the {kind} starter)")
    click.echo(f"check it:  dsl validate {path}")
    click.echo(f"run it:    dsl run {path} {STARTERS[kind][1]}")


@group.command(
    "from-run",
    epilog=examples("dsl template from-run RUN_ID --name my_flow --print"),
)
@click.argument("source", metavar="RUN_ID")
@click.option("--name", required=True, help="The template id (lower-case letters, digits, _).")
@click.option("--description", help="What the template does (default: where it came from).")
@click.option("--overwrite", is_flag=True, help="Replace a template saved under this name.")
@click.option("--print", "show", is_flag=True, help="Print the template's text too.")
@user_errors
def from_run(source: str, name: str, description: str | None, overwrite: bool, show: bool) -> None:
    """Save a run's steps as a template.

    Or a session's browser tool calls: pass its ses_… id.

    URLs and typed values become inputs (with the recorded values as defaults), secrets
    password inputs; the file goes to $TASKPLATE_HOME/templates/NAME.yaml."""
    home = data_home()

    async def save() -> Saved:
        async with open_store(home) as store:
            return await save_kept_calls(
                store,
                library(),
                home,
                source,
                name,
                description=description,
                overwrite=overwrite,
            )

    saved = anyio.run(save)
    answer = saved.to_json()
    text = answer.pop("text")
    emit(answer)
    if show:
        click.echo(text, nl=False)
