"""A template's test cases (NAME.test.yaml beside NAME.yaml): read and checked against
docs/test-case.schema.json with the file and line of each problem, checked against their
template without running it (`dsl validate`, the language server), their inputs resolved (a
secret from its environment variable, or masked offline).

Reads case files only; writing them (`dsl record`) and running them are the interpreter's.
jsonschema loads only to explain a problem.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from taskplate.contract import ErrorCode, FileRefused, TaskplateError, lazy_dataclass, read_bounded

if TYPE_CHECKING:
    import jsonschema

from ._case_schema import CASE_SCHEMA
from ._validators import schema_failures
from ._yaml import LoadedYaml, YamlError, escape_pointer, load_yaml

SUFFIX = ".test.yaml"
ENV_KEY = "$env"
SECRET_PREFIX = "TASKPLATE_SECRET_"
MAX_CASE_FILE_BYTES = 4 * 1024 * 1024  # refused before it is read: docs/testing.md


@lazy_dataclass(frozen=True)
class Case:
    """One case: the template it runs, its inputs as written, its recording and expectations."""

    file: Path  # the case file
    line: int  # where the case starts in it
    template: Path
    name: str
    inputs: dict[str, Any]
    recording: Path
    clock: str | None
    expect: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.template.stem}/{self.name}"


def _bad(file: Path, line: int, problem: str, hint: str) -> TaskplateError:
    return TaskplateError(
        ErrorCode.INVALID_PARAMETER,
        f"{file}:{line}: {problem}",
        hint,
        {"file": str(file), "line": line, "problem": problem},
    )


def _line_of(loaded: LoadedYaml, path: list[Any], at_key: bool = False) -> int:
    """The 1-based line of the value at `path` in the case file, or of its key (`at_key`); its
    nearest parent's when the path goes further than the file."""
    pointer = "".join(f"/{escape_pointer(key)}" for key in path)
    return loaded.span(pointer, key=at_key).line


def _errors(schema: dict[str, Any], value: Any) -> list[jsonschema.ValidationError]:
    """How `value` breaks `schema`, first by place; jsonschema is asked only when the fast
    check finds a problem or cannot tell."""
    found = schema_failures(schema, value)
    return sorted(found, key=lambda e: list(map(str, e.absolute_path)))


def _explain(error: jsonschema.ValidationError) -> tuple[list[Any], str]:
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.schema, dict):
        allowed = list(error.schema.get("properties", {}))
        instance: Any = error.instance
        extra = [k for k in instance if k not in allowed]
        name = extra[0] if extra else "?"
        close = difflib.get_close_matches(str(name), allowed, n=1)
        guess = f" (did you mean {close[0]!r}?)" if close else ""
        return [*path, name], f"unknown key {name!r}{guess}; allowed: {', '.join(allowed)}"
    where = "/".join(str(p) for p in path) or "the file"
    return path, f"{where}: {error.message}"


def _text(file: Path) -> str:
    """The case file's text: a regular file of at most MAX_CASE_FILE_BYTES, UTF-8."""
    try:
        return read_bounded(file, MAX_CASE_FILE_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _bad(file, 1, f"cannot read the case file ({exc})", "Check the path.") from None
    except FileRefused as exc:
        raise _bad(file, 1, f"cannot read the case file: {exc}", "Give a case file.") from None


def case_file_data(file: Path) -> dict[str, Any]:
    """A case file's data, read and checked as `load_cases` reads it (`dsl record` extends
    it)."""
    text = _text(file)
    load_cases(file, text)
    data: dict[str, Any] = load_yaml(text).data
    return data


def load_cases(file: Path, text: str | None = None) -> list[Case]:
    """Every case of a case file (its `text`, if given: an editor's unsaved one), or a clear
    error naming the file and line."""
    text = _text(file) if text is None else text
    try:  # as a template is read: YAML 1.2, no alias bombs, bounded in values and depth
        tree = load_yaml(text)
    except YamlError as exc:
        raise _bad(file, exc.span.line, f"not valid YAML: {exc.message}", "Fix the YAML.") from None
    data = tree.data
    errors = _errors(CASE_SCHEMA, data)
    if errors:
        path, problem = _explain(errors[0])
        raise _bad(
            file,
            _line_of(tree, path, errors[0].validator == "additionalProperties"),
            problem,
            "See docs/test-case.schema.json and docs/testing.md.",
        )
    template = _inside(file, tree, ["template"], data["template"])
    if not template.is_file():
        raise _bad(
            file,
            _line_of(tree, ["template"]),
            f"the template {data['template']} does not exist",
            "Name the template's file, relative to the case file.",
        )
    cases = []
    for index, raw in enumerate(data["cases"]):
        cases.append(
            Case(
                file=file,
                line=_line_of(tree, ["cases", index]),
                template=template,
                name=raw["name"],
                inputs=raw.get("inputs", {}),
                recording=_inside(file, tree, ["cases", index, "recording"], raw["recording"]),
                clock=raw.get("clock"),
                expect=raw["expect"],
            )
        )
    for case in cases:
        for name, value in case.inputs.items():
            if isinstance(value, dict) and ENV_KEY in value and not _secret_ref(value):
                raise _bad(
                    file,
                    case.line,
                    f"case {case.name!r}: the input {name!r} must be "
                    f"{{{ENV_KEY}: {SECRET_PREFIX}<NAME>}} alone, got {value}",
                    "A secret is read from an environment variable named TASKPLATE_SECRET_….",
                )
    names = [c.name for c in cases]
    for case in cases:
        if names.count(case.name) > 1:
            raise _bad(file, case.line, f"two cases are named {case.name!r}", "Rename one.")
    return cases


def _inside(file: Path, tree: LoadedYaml, path: list[Any], given: str) -> Path:
    """A path the case file names (`given`, at `path` in it), resolved in the case file's
    folder; an error when it leads out of the folder: absolute, through `..`, or by a symlink
    that points out (or holds a NUL, which no file name does)."""
    folder, named = file.parent.resolve(), PurePath(given)
    outside = "\0" in given or named.is_absolute() or ".." in named.parts
    resolved = folder if outside else (folder / named).resolve()
    if outside or not resolved.is_relative_to(folder):
        raise _bad(
            file,
            _line_of(tree, path),
            f"{'/'.join(map(str, path))}: {given!r} is not inside the case file's folder",
            "Name a file in the case file's folder or below it, relative to the case file.",
        )
    return resolved


def check_inputs_known(case: Case, schema: dict[str, Any]) -> None:
    """A case may only name inputs its template declares."""
    known = list(schema.get("properties", {})) if isinstance(schema, dict) else []
    for name in case.inputs:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            guess = f" (did you mean {close[0]!r}?)" if close else ""
            raise _bad(
                case.file,
                case.line,
                f"case {case.name!r} names the input {name!r}, which {case.template.name} "
                f"does not declare{guess}",
                f"Its inputs: {', '.join(known) or 'none'}.",
            )


def static_problems(
    case: Case, inputs_schema: Any, outputs_schema: Any, loops: list[str] | None = None
) -> list[str]:
    """What `dsl validate` finds wrong in a case without running it: inputs its template does
    not declare, a recording that is not there, expectations its outputs schema rules out, an
    item expectation naming a loop that is none of the template's `loops` (their step paths)."""
    problems = []
    loop = case.expect.get("items", {}).get("loop")
    if loops is not None and loop is not None and loop not in loops:
        named = ", ".join(loops) or "none"
        problems.append(
            f"case {case.name!r}: expects the items of loop {loop}, which the template does not "
            f"have (its forEach steps: {named})"
        )
    try:
        check_inputs_known(case, inputs_schema if isinstance(inputs_schema, dict) else {})
    except TaskplateError as exc:
        problems.append(f"{exc.details.get('problem', exc.message)} {exc.recover_hint}")
    if not case.recording.is_file():
        problems.append(
            f"case {case.name!r}: its recording {case.recording.name} is not there "
            "(record it with `dsl record`)"
        )
    output = case.expect.get("output", {})
    if isinstance(outputs_schema, dict):
        for pointer in output.get("at", {}):
            if not _can_hold(outputs_schema, pointer):
                problems.append(
                    f"case {case.name!r}: expects output {pointer}, which the template's outputs "
                    "schema does not allow"
                )
        if "equals" in output:
            for error in _errors(outputs_schema, output["equals"])[:5]:
                where = "/" + "/".join(map(str, error.absolute_path))
                problems.append(
                    f"case {case.name!r}: the expected output cannot match the template's "
                    f"outputs schema at {where}: {error.message}"
                )
    return problems


def _can_hold(schema: Any, pointer: str) -> bool:
    """Whether a value may be at `pointer` in an instance of `schema`, as far as its
    `properties`, `additionalProperties` and `items` tell."""
    for raw in pointer.split("/")[1:]:
        key = raw.replace("~1", "/").replace("~0", "~")
        if not isinstance(schema, dict):
            return True
        properties = schema.get("properties", {})
        if key in properties:
            schema = properties[key]
        elif "items" in schema and key.isdigit():
            schema = schema["items"]
        else:
            return schema.get("additionalProperties") is not False and schema.get("type") not in (
                "string",
                "number",
                "integer",
                "boolean",
                "null",
            )
    return True


def resolved_inputs(case: Case, *, offline: bool, mask: str) -> dict[str, Any]:
    """The case's inputs to run with: a secret from its environment variable live; offline, the
    mask the recording holds in its place (so the recorded requests match), whatever is set."""
    out = {}
    for name, value in case.inputs.items():
        if isinstance(value, dict) and set(value) == {ENV_KEY}:
            variable = value[ENV_KEY]
            if offline:
                out[name] = mask
            elif variable in os.environ:
                out[name] = os.environ[variable]
            else:
                raise _bad(
                    case.file,
                    case.line,
                    f"case {case.name!r} needs the secret {name!r} from ${variable}, not set",
                    f"Set {variable} to run the case live.",
                )
        else:
            out[name] = value
    return out


def _secret_ref(value: dict[str, Any]) -> bool:
    variable = value.get(ENV_KEY)
    return (
        set(value) == {ENV_KEY}
        and isinstance(variable, str)
        and variable.startswith(SECRET_PREFIX)
        and len(variable) > len(SECRET_PREFIX)
        and all(c.isupper() or c.isdigit() or c == "_" for c in variable)
    )


def case_file_of(template: Path) -> Path:
    return template.with_name(template.name.rsplit(".", 1)[0] + SUFFIX)


def find_case_files(paths: list[Path]) -> list[Path]:
    """The case files named, or under the folders named (a template names its case file)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(path.rglob(f"*{SUFFIX}"))
        elif path.name.endswith(SUFFIX):
            found.append(path)
        elif path.suffix in (".yaml", ".yml"):
            found.append(case_file_of(path))
        else:
            found.append(path)
    return found
