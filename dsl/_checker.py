"""Static checks of a template (SPEC §3): every rule, every problem of a file in one pass.

Pure: reads YAML text and an action catalog, returns the step graph and diagnostics.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taskplate.contract import Level, TrustLevel

from ._actions import ActionCatalog, ActionSpec
from ._diagnostics import Diagnostic, Severity, Span
from ._expr_infer import ExprScope, StepRef, closest, hint_budget, infer, suggest
from ._json_schema_check import schema_errors
from ._metaschema import MAX_RUN_TIMEOUT_MS, MAX_TABS_PER_SESSION, TEMPLATE
from ._model import Step, Template, build_template
from ._rule_shared_tab import RULE as SHARED_TAB
from ._rule_shared_tab import shared_tab_problems
from ._schema_errors import explain, kinds_text, pointer_of
from ._schema_fast import is_valid
from ._types import (
    ANY,
    BOOLEAN,
    NULL,
    NUMBER,
    STRING,
    Type,
    array_of,
    fits,
    from_schema,
    join_all,
    object_of,
    of_value,
)
from ._values import (
    DYNAMIC,
    Const,
    Expr,
    Interp,
    ListValue,
    MapValue,
    Single,
    Value,
    literal,
)
from ._yaml import LoadedYaml, YamlError, escape_pointer, load_yaml

if TYPE_CHECKING:  # jsonschema is imported only to explain a template that has problems
    import jsonschema


_VALIDATORS: dict[int, tuple[dict[str, Any], jsonschema.Draft202012Validator]] = {}


# jsonschema explains an error in about a millisecond: a check reads this many of one
# instance's errors (its first ones; a file with more has others to fix first).
MAX_SCHEMA_ERRORS = 200


def _errors(schema: dict[str, Any], instance: Any) -> list[jsonschema.ValidationError]:
    """jsonschema's errors, asked for only when the quick check finds the instance invalid."""
    if is_valid(schema, instance):
        return []
    kept = _VALIDATORS.get(id(schema))
    if kept is None or kept[0] is not schema:
        import jsonschema

        kept = _VALIDATORS[id(schema)] = (schema, jsonschema.Draft202012Validator(schema))
    return list(itertools.islice(kept[1].iter_errors(instance), MAX_SCHEMA_ERRORS))


_RUN_TYPE = object_of(
    {
        k: STRING
        for k in ("runId", "templateId", "templateVersion", "sessionId", "profileId", "startedAt")
    }
)
_ITEM_ERROR = object_of({"code": STRING, "message": STRING})
_SUMMARY = object_of({k: NUMBER for k in ("total", "succeeded", "failed", "skipped")})
_GROWING = ("enqueue", "uniqueBy", "maxItems")
_FOREACH_ONLY = ("as", "concurrency", "steps", "collect", *_GROWING)
_ACTION_ONLY = ("confirm", "onDecline")
_NOT_IN_GROUPS = (
    "with",
    "as",
    "concurrency",
    "collect",
    *_GROWING,
    "retry",
    "timeoutMs",
    "onError",
    "tab",
)


@dataclass
class CheckResult:
    file: str
    template: Template | None
    diagnostics: list[Diagnostic]
    source: str = ""

    @property
    def ok(self) -> bool:
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)


@dataclass(frozen=True)
class _Visible:
    """The step ids readable at one point of the step tree, one layer per enclosing step list:
    no place copies the ids before it, so a template's places cost its size, not its square."""

    exposers: Mapping[str, int]  # step id -> bits of the siblings that expose it
    bits: int  # the siblings readable here
    outer: _Visible | None = None

    def __contains__(self, step_id: object) -> bool:
        layer: _Visible | None = self
        while layer is not None:
            if layer.exposers.get(step_id, 0) & layer.bits:  # type: ignore[call-overload]
                return True
            layer = layer.outer
        return False

    def __iter__(self) -> Iterator[str]:
        layer: _Visible | None = self
        while layer is not None:
            yield from (i for i, bits in layer.exposers.items() if bits & layer.bits)
            layer = layer.outer


_NOTHING_VISIBLE = _Visible({}, 0)


@dataclass
class _Place:
    """What is in scope at one point of the step tree."""

    names: dict[str, Type]
    visible: _Visible
    loops: tuple[str, ...] = ()  # pointers of the enclosing forEach steps


@dataclass
class _StepInfo:
    step: Step
    loop: str | None  # pointer of the nearest enclosing forEach, if any
    loop_id: str | None
    type: Type = field(default_factory=lambda: ANY)


# An action's declared result schema → its Type, keyed by the schema object itself (kept alive
# here, so its id cannot be reused). Catalog schemas are constants: a catalog that changes is
# made of new objects. Types are never mutated.
_RESULT_TYPES: dict[int, tuple[Any, Type]] = {}


def _dynamic(value: Any) -> bool:
    """Whether a literal holds a value only an expression computes (or is missing)."""
    if value is DYNAMIC or value is None:
        return True
    if isinstance(value, dict):
        return any(_dynamic(v) for v in value.values() if v is not None)
    if isinstance(value, list):
        return any(_dynamic(v) for v in value if v is not None)
    return False


def _result_type(schema: Any) -> Type:
    hit = _RESULT_TYPES.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    if len(_RESULT_TYPES) >= 1024:
        _RESULT_TYPES.clear()
    result = from_schema(schema)
    _RESULT_TYPES[id(schema)] = (schema, result)
    return result


class _StepRefs(Mapping[str, StepRef]):
    """The step ids an expression may name at one place; each ref is made only when asked for.

    Lives for one expression's inference, during which the checker's state does not change.
    """

    __slots__ = ("_checker", "_current", "_place")

    def __init__(self, checker: _Checker, place: _Place, current: Step | None) -> None:
        self._checker = checker
        self._place = place
        self._current = current

    def __getitem__(self, step_id: str) -> StepRef:
        ref = self._checker.step_ref(step_id, self._place, self._current)
        if ref is None:
            raise KeyError(step_id)
        return ref

    def get(self, step_id: str, default: Any = None) -> Any:
        ref = self._checker.step_ref(step_id, self._place, self._current)
        return default if ref is None else ref

    def __iter__(self) -> Iterator[str]:
        seen = dict.fromkeys(self._checker.infos)
        for step in self._checker.steps:
            if step.id and step.id not in seen:
                seen[step.id] = None
        return iter(list(seen))

    def __len__(self) -> int:
        return len(self._checker.step_ids)


class _Checker:
    def __init__(self, file: str, loaded: LoadedYaml, catalog: ActionCatalog) -> None:
        self.file = file
        self.loaded = loaded
        self.raw: Any = loaded.data
        self.catalog = catalog
        self.diagnostics: list[Diagnostic] = []
        self.infos: dict[str, _StepInfo] = {}
        self.used_inputs: set[str] = set()
        self.used_steps: set[str] = set()
        # Misspelt keys read as their suggestion: corrected pointer -> pointer in the file.
        self.renames: dict[str, str] = {}

    # -- reporting ---------------------------------------------------------------------------
    def add(
        self,
        rule: str,
        message: str,
        pointer: str,
        *,
        key: bool = False,
        severity: Severity = Severity.ERROR,
        span: Span | None = None,
    ) -> None:
        pointer = self.in_file(pointer)
        span = span or self.loaded.span(pointer, key=key)
        self.diagnostics.append(Diagnostic(self.file, span, severity, rule, message, pointer))

    def in_file(self, pointer: str) -> str:
        """Where a pointer of the corrected template stands in the file as written: its
        longest renamed prefix written back (its value already has the outer renames)."""
        end = len(pointer)
        while self.renames and end > 0:
            written = self.renames.get(pointer[:end])
            if written is not None:
                return written + pointer[end:]
            end = pointer.rfind("/", 0, end)
        return pointer

    def add_in_expr(self, rule: str, message: str, pointer: str, start: int, end: int) -> None:
        info = self.loaded.nodes.get(self.in_file(pointer))
        if info is None:
            self.add(rule, message, pointer)
            return
        s = info.span
        if s.line == s.end_line and info.style in (None, "'", '"'):
            column = s.column + start + (1 if info.style else 0)
            span = Span(s.line, column, s.line, column + max(1, end - start))
        else:
            span = Span.point(s.line, s.column)
        self.add(rule, message, pointer, span=span)

    # -- the rules ---------------------------------------------------------------------------
    def run(self) -> Template | None:
        if not isinstance(self.raw, dict):
            got = "an empty file" if self.raw is None else f"a {type(self.raw).__name__}"
            self.add("template-schema", f"a template must be a YAML map of keys, got {got}", "")
            return None
        self.raw = self.check_meta_schema()
        self.check_json_schemas()
        template, bad = build_template(self.raw, self.file)
        self.template = template
        self.steps = template.all_steps()
        self.step_ids = {s.id for s in self.steps if s.id}
        self.loop_ids = {s.pointer: s.id for s in self.steps if s.is_loop}
        for b in bad:
            self.add_in_expr("expr-syntax", b.message, b.pointer, b.start, b.end)
            self.note_mentions(self.node(b.pointer))
        self.check_structure(template)
        self.check_scopes(template)
        self.check_template_level(template)
        for shared in shared_tab_problems(template, self.catalog):
            self.add(SHARED_TAB, shared.message, shared.pointer)
        self.check_unused(template)
        return template

    def check_meta_schema(self) -> Any:
        """Report what breaks the meta-schema; return the template with every misspelt key
        that has one close suggestion renamed to it, so that the other checks see what the
        author meant and report every other mistake in the same run."""
        data = self.raw
        errors: list[jsonschema.ValidationError] = []
        for _ in range(16):  # each round may uncover keys inside a renamed one
            errors = _errors(TEMPLATE, data)
            fixes = [fix for error in errors for fix in _renames(error)]
            if not fixes:
                break
            for error in errors:
                if error.validator == "additionalProperties":
                    self.report_schema_error(error, data)
            data = _renamed(data, fixes)
            for path, old, new in fixes:
                at = pointer_of(path)
                self.renames[f"{at}/{escape_pointer(new)}"] = self.in_file(
                    f"{at}/{escape_pointer(old)}"
                )
        for error in errors:
            self.report_schema_error(error, data)
            if error.validator == "additionalProperties" and isinstance(error.instance, dict):
                known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
                for extra in set(error.instance) - set(known):
                    self.note_mentions(error.instance[extra])
        return data

    def report_schema_error(self, error: jsonschema.ValidationError, data: Any) -> None:
        where = self.where(list(error.absolute_path), data)
        for problem in explain(error, where, "the template"):
            self.add("template-schema", problem.message, problem.pointer, key=problem.at_key)

    def note_mentions(self, value: Any) -> None:
        """Count inputs and steps named in text no check could read (an unknown key, an
        expression that does not parse) as used: their unused warning would be the error's."""
        texts = [value] if isinstance(value, str) else []
        stack = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                stack.extend(node.values())
                texts.extend(k for k in node if isinstance(k, str))
            elif isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, str):
                texts.append(node)
        for text in texts:
            self.used_inputs.update(_MENTION_INPUT.findall(text))
            self.used_steps.update(_MENTION_STEP.findall(text))

    def where(self, path: list[Any], data: Any = None) -> str:
        if not path:
            return "the template"
        node: Any = self.raw if data is None else data
        for p in path:
            node = node[p] if isinstance(node, dict | list) else None
        if len(path) >= 2 and path[-2] == "steps" and isinstance(node, dict):
            return f'step "{node["id"]}"' if isinstance(node.get("id"), str) else "step"
        return f'"{path[-1]}"'

    def check_json_schemas(self) -> None:
        self.invalid_schemas: set[str] = set()  # what other checks must not read as a schema
        for key in ("inputs", "outputs"):
            schema = self.raw.get(key)
            if not isinstance(schema, dict):
                continue
            for error in schema_errors(schema):
                self.invalid_schemas.add(key)
                pointer = f"/{key}{pointer_of(error.absolute_path)}"
                self.add(
                    "json-schema", f"{key} is not a valid JSON Schema: {error.message}", pointer
                )
            if schema.get("type", "object") != "object":
                self.add(
                    "json-schema",
                    f"{key} must describe a map (type: object), got type {schema.get('type')!r}",
                    f"/{key}/type",
                )

    def check_structure(self, template: Template) -> None:
        seen: dict[str, Step] = {}
        for step in template.all_steps():
            data = self.node(step.pointer)
            if not isinstance(data, dict):
                continue
            if step.id is not None and step.id in seen:
                first = self.loaded.span(f"{seen[step.id].pointer}/id")
                self.add(
                    "duplicate-id",
                    f'duplicate step id "{step.id}" (first used at line {first.line})',
                    f"{step.pointer}/id",
                )
            elif step.id is not None:
                seen[step.id] = step
            self.check_step_shape(step, data)
        for siblings in self.sibling_lists(template):
            self.check_needs(siblings)

    def node(self, pointer: str) -> Any:
        node: Any = self.raw
        for token in pointer.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node

    def check_step_shape(self, step: Step, data: dict[str, Any]) -> None:
        has_action, has_loop = "action" in data, "forEach" in data
        if has_action and has_loop:
            self.add(
                "template-schema",
                f"step {step.label} has both action and forEach; a step is one or the other",
                f"{step.pointer}/forEach",
                key=True,
            )
        elif not has_action and not has_loop and "steps" not in data:
            self.add(
                "template-schema",
                f"step {step.label} needs action, forEach, or steps (a group)",
                step.pointer,
            )
        elif has_action:
            for key in _FOREACH_ONLY:
                if key in data:
                    self.add(
                        "template-schema",
                        f'"{key}" only applies to forEach steps',
                        f"{step.pointer}/{key}",
                        key=True,
                    )
            if isinstance(step.action, str) and self.catalog.get(step.action) is None:
                why = getattr(self.catalog, "why_unknown", lambda name: None)(step.action)
                self.add(
                    "unknown-action",
                    why
                    or f'unknown action "{step.action}"{suggest(step.action, list(self.catalog.names()), "actions")}',
                    f"{step.pointer}/action",
                )
            elif isinstance(step.action, str):
                self.check_provider_lock(step)
        elif has_loop:
            for key in ("with", *_ACTION_ONLY):
                if key in data:
                    self.add(
                        "template-schema",
                        f'"{key}" only applies to action steps',
                        f"{step.pointer}/{key}",
                        key=True,
                    )
            if "steps" not in data:
                self.add(
                    "template-schema",
                    f"forEach step {step.label} needs steps to run for each item",
                    step.pointer,
                )
        else:
            for key in (*_NOT_IN_GROUPS, *_ACTION_ONLY):
                if key in data:
                    self.add(
                        "template-schema",
                        f'"{key}" does not apply to a step group (steps without action or '
                        "forEach); put it on the steps inside",
                        f"{step.pointer}/{key}",
                        key=True,
                    )
        if (
            isinstance(step.tab, Const)
            and step.tab.value not in ("new", "main")
            and isinstance(step.tab.value, str)
        ):
            self.add(
                "template-schema",
                f'"tab" must be new, main or an expression yielding a tab id, got "{step.tab.value}"',
                f"{step.pointer}/tab",
            )

    def check_provider_lock(self, step: Step) -> None:
        """A provider's tool checked against a lock file written for another configuration."""
        spec = self.catalog.get(step.action) if step.action else None
        stale = getattr(self.catalog, "stale", None)
        why = stale(spec.provider) if spec is not None and stale is not None else None
        if why:
            self.add("provider-lock", why, f"{step.pointer}/action", severity=Severity.WARNING)

    def sibling_lists(self, template: Template) -> Iterable[list[Step]]:
        yield template.steps
        for step in template.all_steps():
            if step.steps:
                yield step.steps

    def check_needs(self, siblings: list[Step]) -> None:
        ids = {s.id: s for s in siblings if s.id}
        for step in siblings:
            self.used_steps.update(step.needs)
            listed = isinstance(self.node(f"{step.pointer}/needs"), list)
            for i, need in enumerate(step.needs):
                pointer = f"{step.pointer}/needs" + (f"/{i}" if listed else "")
                if need == step.id:
                    self.add("cycle", f'step "{need}" needs itself', pointer)
                elif need not in ids:
                    if need in self.step_ids:
                        self.add(
                            "unknown-ref",
                            f'needs can only name sibling steps; "{need}" is not a sibling of {step.label}',
                            pointer,
                        )
                    else:
                        self.add(
                            "unknown-ref",
                            f'needs names no step "{need}"{suggest(need, ids, "siblings")}',
                            pointer,
                        )
        if not any(s.needs for s in siblings):
            return
        for cycle, others in _NeedsGraph(siblings).cycles():
            first = siblings[cycle[0]]
            names = [siblings[i].id or "" for i in cycle]
            if len(names) > _SHOWN_IN_CYCLE:
                names = [*names[: _SHOWN_IN_CYCLE - 2], f"… ({len(cycle)} steps)", names[-1]]
            message = f"needs form a cycle: {' → '.join([*names, names[0]])}"
            if others:
                shown = ", ".join(siblings[i].id or "" for i in others[:_SHOWN_IN_CYCLE])
                more = ", …" if len(others) > _SHOWN_IN_CYCLE else ""
                message += (
                    f"; {len(others)} more steps wait on these and on one another: {shown}{more}"
                )
            self.add("cycle", message, f"{first.pointer}/needs")

    # -- scopes, references and types ---------------------------------------------------------
    def check_scopes(self, template: Template) -> None:
        self.inputs_type = from_schema(template.inputs_schema)
        names = {"inputs": self.inputs_type, "run": _RUN_TYPE}
        self.walk(template.steps, _Place(names, _NOTHING_VISIBLE), None, None)
        for value in (template.async_when, template.profile):
            if value is not None:
                self.check_value(value, _Place({"inputs": self.inputs_type}, _NOTHING_VISIBLE))
        if template.output is not None:
            top = _all_of(template.steps, _NOTHING_VISIBLE)
            self.output_type = self.check_value(template.output, _Place(names, top))
            self.check_output(template)

    def walk(
        self, siblings: list[Step], outer: _Place, loop: str | None, loop_id: str | None
    ) -> None:
        for step in siblings:
            if step.id and step.id not in self.infos:
                self.infos[step.id] = _StepInfo(step, loop, loop_id)
        exposers = _exposers(siblings)
        graph = _NeedsGraph(siblings) if any(s.needs for s in siblings) else None
        for index, step in enumerate(siblings):
            before = graph.ancestors(index) if graph else (1 << index) - 1
            visible = _Visible(exposers, before, outer.visible)
            self.check_step(step, _Place(outer.names, visible, outer.loops))

    def step_refs(self, place: _Place, current: Step | None) -> _StepRefs:
        return _StepRefs(self, place, current)

    def step_ref(self, step_id: str, place: _Place, current: Step | None) -> StepRef | None:
        """What an expression at `place` may know of `step_id`; None when no step has that id."""
        later = "is used before it is guaranteed to have run; move it earlier or list it in needs"
        info = self.infos.get(step_id)
        if info is None:
            if step_id not in self.step_ids:
                return None
            # a step not walked yet (later siblings, later loops)
            return StepRef(ANY, visible=False, why_not=f'step "{step_id}" {later}')
        if step_id in place.visible:
            return StepRef(info.type, info.step.action)
        if current is not None and step_id == current.id:
            return StepRef(
                ANY, visible=False, why_not=f'step "{step_id}" cannot use its own result'
            )
        if info.loop is not None and info.loop not in place.loops:
            return StepRef(
                ANY,
                visible=False,
                rule="unknown-ref",
                why_not=f'step "{step_id}" runs inside forEach "{info.loop_id or info.loop}"; read its results through steps.{info.loop_id or "<loop>"}.items',
            )
        return StepRef(ANY, visible=False, why_not=f'step "{step_id}" {later}')

    def check_value(self, value: Value, place: _Place, current: Step | None = None) -> Type:
        match value:
            case Const(value=v):
                return of_value(v)
            case Single(expr=expr):
                return self.check_expr(expr, place, current)
            case Interp(parts=parts):
                for part in parts:
                    if isinstance(part, Expr):
                        self.check_expr(part, place, current)
                return STRING
            case ListValue(items=items):
                return array_of(join_all([self.check_value(i, place, current) for i in items]))
            case MapValue(entries=entries):
                return object_of({k: self.check_value(v, place, current) for k, v in entries})
        return ANY

    def check_expr(self, expr: Expr, place: _Place, current: Step | None) -> Type:
        scope = ExprScope(place.names, self.step_refs(place, current))
        result, problems = infer(expr.node, scope)
        self.used_inputs |= scope.used_inputs
        self.used_steps |= scope.used_steps
        for p in problems:
            self.add_in_expr(
                p.rule, p.message, expr.pointer, expr.offset + p.start, expr.offset + p.end
            )
        return result

    def check_step(self, step: Step, place: _Place) -> None:
        if step.when is not None:
            self.check_value(step.when, place, step)
        if step.timeout_ms is not None:
            self.check_number(
                step.timeout_ms, place, step, f"{step.pointer}/timeoutMs", "timeoutMs"
            )
        if step.tab is not None and step.tab != Const("new"):
            self.check_value(step.tab, place, step)
        if step.confirm is not None:
            self.check_value(step.confirm, place, step)
        info = self.infos.get(step.id) if step.id else None
        if step.is_group:
            loop = place.loops[-1] if place.loops else None
            loop_id = self.loop_ids.get(loop) if loop else None
            self.walk(step.steps, place, loop, loop_id)
            result = NULL
        elif step.is_loop:
            result = self.check_loop(step, place)
        else:
            result = self.check_action(step, place)
        if info is not None and info.step is step:
            info.type = result

    def check_number(
        self, value: Value, place: _Place, step: Step, pointer: str, name: str
    ) -> None:
        kind = self.check_value(value, place, step).kind
        if kind not in ("number", "any", "null"):
            self.add("type", f"{name} must be a number, got {kind}", pointer)

    def check_action(self, step: Step, place: _Place) -> Type:
        spec = self.catalog.get(step.action) if step.action else None
        args_type = self.check_value(step.args, place, step)
        if spec is None:
            return ANY
        self.check_args(step, spec, args_type)
        self.check_schema_args(step, spec)
        if spec.level is Level.L2 and TrustLevel.REMOTE in self.template.trust:
            self.add(
                "trust",
                f'action "{spec.name}" needs host access (L2), which remote callers may not use; '
                'remove "remote" from trust or use another action',
                f"{step.pointer}/action",
            )
        if spec.result_from_args:
            return args_type if args_type.kind == "object" else ANY
        schema = spec.result_schema
        args = literal(step.args)
        if spec.result_schema_for is not None and isinstance(args, dict):
            schema = spec.result_schema_for(args)
        result = _result_type(schema) if schema is spec.result_schema else from_schema(schema)
        if result.kind == "object":
            props = dict(result.props)
            props.setdefault("warnings", array_of(STRING))
            result = object_of(props, result.closed)
        return result

    def check_args(self, step: Step, spec: ActionSpec, args_type: Type) -> None:
        pointer = f"{step.pointer}/with"
        if isinstance(step.args, Single):
            return
        args = literal(step.args)
        if not isinstance(args, dict):
            return
        for error in _errors(spec.args_schema, args):
            if is_valid(error.schema, error.instance) or error.instance is DYNAMIC:
                continue  # it fails only for a value an expression computes: unknown until run
            for problem in explain(
                error, f'action "{spec.name}"', "the arguments", key_word="argument"
            ):
                self.add(
                    "action-args", problem.message, pointer + problem.pointer, key=problem.at_key
                )
        props = spec.args_schema.get("properties", {})
        for name, value in step.args.entries if isinstance(step.args, MapValue) else ():
            if isinstance(value, Single | Interp) and name in props:
                value_type = args_type.props.get(name, ANY)
                where = f"{pointer}/{escape_pointer(name)}"
                self.check_fits(f'argument "{name}" of {spec.name}', value_type, props[name], where)

    def check_schema_args(self, step: Step, spec: ActionSpec) -> None:
        """Arguments that are JSON Schemas themselves (`x-json-schema`, llm_extract's `schema`)
        are checked against the 2020-12 meta-schema when written out."""
        args = literal(step.args)
        if not isinstance(args, dict):
            return
        for name, prop in spec.args_schema.get("properties", {}).items():
            value = args.get(name)
            if not (isinstance(prop, dict) and prop.get("x-json-schema")) or _dynamic(value):
                continue
            for error in schema_errors(value):
                where = (
                    f"{step.pointer}/with/{escape_pointer(name)}{pointer_of(error.absolute_path)}"
                )
                message = (
                    f'argument "{name}" of {spec.name} is not a valid JSON Schema: {error.message}'
                )
                self.add("json-schema", message, where)

    def check_fits(self, what: str, value_type: Type, schema: Any, pointer: str) -> None:
        if not fits(value_type, schema):
            want = kinds_text(schema.get("type"))
            message = f"{what} must be {want}, but the expression gives {value_type.describe()}"
            self.add("type", message, pointer)

    def check_loop(self, step: Step, place: _Place) -> Type:
        assert step.for_each is not None
        items_type = self.check_value(step.for_each, place, step)
        if items_type.kind not in ("array", "any", "null"):
            self.add(
                "type",
                f"forEach needs a list, got {items_type.describe()}",
                f"{step.pointer}/forEach",
            )
        if step.concurrency is not None:
            self.check_number(
                step.concurrency, place, step, f"{step.pointer}/concurrency", "concurrency"
            )
        self.check_loop_limits(step)
        names = dict(place.names)
        names[step.var] = items_type.items or ANY if items_type.kind == "array" else ANY
        names["index"] = NUMBER
        names["depth"] = NUMBER
        inner = _Place(names, place.visible, (*place.loops, step.pointer))
        self.walk(step.steps, inner, step.pointer, step.id)
        after = _Place(names, _all_of(step.steps, inner.visible), inner.loops)
        collect_type = ANY
        if step.collect is not None:
            collect_type = self.check_value(step.collect, after, step)
        self.check_growing(step, names[step.var], inner, after)
        props = dict(collect_type.props) if collect_type.kind == "object" else {}
        props.update({"success": BOOLEAN, "error": _ITEM_ERROR})
        closed = step.collect is None or isinstance(step.collect, MapValue)
        item = object_of(props, closed)
        summary = _SUMMARY
        if step.enqueue is not None:  # a growing loop also counts the items its bound dropped
            summary = object_of({**_SUMMARY.props, "dropped": NUMBER})
        return object_of({"items": array_of(item), "summary": summary})

    def check_growing(self, step: Step, item_type: Type, before: _Place, after: _Place) -> None:
        """A growing forEach: what it enqueues has its items' type, and it has a bound."""
        if step.enqueue is None:
            for key, value in (("uniqueBy", step.unique_by), ("maxItems", step.max_items)):
                if value is not None:
                    self.add(
                        "enqueue",
                        f'"{key}" only applies to a forEach that grows (with enqueue)',
                        f"{step.pointer}/{key}",
                        key=True,
                    )
            return
        added = self.check_value(step.enqueue, after, step)
        if added.kind not in ("array", "any", "null"):
            self.add(
                "enqueue-type",
                f"enqueue needs a list of items, got {added.describe()}",
                f"{step.pointer}/enqueue",
            )
        elif added.kind == "array" and not _same_shape(added.items or ANY, item_type):
            self.add(
                "enqueue-type",
                f"enqueue adds {(added.items or ANY).describe()} items to a forEach of "
                f"{item_type.describe()} items; enqueue items of the same type",
                f"{step.pointer}/enqueue",
            )
        if step.unique_by is not None:
            self.check_value(step.unique_by, before, step)
        if step.max_items is None:
            self.add(
                "enqueue-bound",
                f"forEach {step.label} grows (enqueue) but has no maxItems; give it a bound, "
                "such as maxItems: ${{ inputs.maxPages }}",
                f"{step.pointer}/enqueue",
                key=True,
            )
            return
        self.check_number(step.max_items, after, step, f"{step.pointer}/maxItems", "maxItems")
        most = step.max_items.value if isinstance(step.max_items, Const) else None
        limit = self.template.limits.max_items
        if isinstance(most, int) and limit and most > limit:
            self.add(
                "limits",
                f"maxItems {most} is above limits.maxItems ({limit})",
                f"{step.pointer}/maxItems",
            )

    def check_loop_limits(self, step: Step) -> None:
        limits = self.template.limits
        concurrency = step.concurrency.value if isinstance(step.concurrency, Const) else None
        if (
            isinstance(concurrency, int)
            and limits.max_concurrency
            and concurrency > limits.max_concurrency
        ):
            self.add(
                "limits",
                f"concurrency {concurrency} is above limits.maxConcurrency ({limits.max_concurrency})",
                f"{step.pointer}/concurrency",
            )
        items = step.for_each.value if isinstance(step.for_each, Const) else None
        if isinstance(items, list) and limits.max_items and len(items) > limits.max_items:
            self.add(
                "limits",
                f"forEach lists {len(items)} items, above limits.maxItems ({limits.max_items})",
                f"{step.pointer}/forEach",
            )

    # -- template-wide ------------------------------------------------------------------------
    def check_template_level(self, template: Template) -> None:
        limits = template.limits
        if limits.max_concurrency and limits.max_concurrency > MAX_TABS_PER_SESSION:
            self.add(
                "limits",
                f"limits.maxConcurrency {limits.max_concurrency} is above the {MAX_TABS_PER_SESSION} tabs a session may have",
                "/limits/maxConcurrency",
            )
        if limits.max_timeout_ms and limits.max_timeout_ms > MAX_RUN_TIMEOUT_MS:
            self.add(
                "limits",
                f"limits.maxTimeoutMs {limits.max_timeout_ms} is above the runtime's maximum ({MAX_RUN_TIMEOUT_MS} ms)",
                "/limits/maxTimeoutMs",
            )
        for step in template.all_steps():
            t = step.timeout_ms.value if isinstance(step.timeout_ms, Const) else None
            if isinstance(t, int) and limits.max_timeout_ms and t > limits.max_timeout_ms:
                self.add(
                    "limits",
                    f"timeoutMs {t} is above limits.maxTimeoutMs ({limits.max_timeout_ms})",
                    f"{step.pointer}/timeoutMs",
                )
        props = template.inputs_schema.get("properties")
        if limits.max_items and isinstance(props, dict):
            for name, schema in props.items():
                most = schema.get("maxItems") if isinstance(schema, dict) else None
                if isinstance(most, int) and most > limits.max_items:
                    self.add(
                        "limits",
                        f'input "{name}" allows {most} items, above limits.maxItems ({limits.max_items})',
                        f"/inputs/properties/{escape_pointer(name)}/maxItems",
                    )
        ps = template.partial_success
        has_loop = any(s.is_loop for s in template.all_steps())
        if ps.allowed and not has_loop:
            self.add(
                "partial-success",
                "partialSuccess is allowed but the template has no forEach whose items could fail alone",
                "/partialSuccess/allowed",
            )
        if not ps.allowed and ps.threshold is not None:
            self.add(
                "partial-success",
                "partialSuccess.threshold has no effect while allowed is false",
                "/partialSuccess/threshold",
            )
        if (
            template.outputs_schema is not None
            and template.output is None
            and isinstance(self.raw, dict)
        ):
            self.add(
                "template-schema",
                "outputs is declared but there is no output to check against it",
                "/outputs",
                key=True,
            )

    def check_output(self, template: Template) -> None:
        schema = template.outputs_schema
        if not isinstance(schema, dict) or not isinstance(template.output, MapValue):
            return
        if "outputs" in self.invalid_schemas:
            return  # reported as json-schema; its keywords mean nothing to check against
        given = dict(template.output.entries)
        for name in schema.get("required", []) if isinstance(schema.get("required"), list) else []:
            if name not in given:
                self.add(
                    "type", f'output has no "{name}", which outputs requires', "/output", key=True
                )
        props = schema.get("properties", {}) if isinstance(schema.get("properties"), dict) else {}
        for name, _value in given.items():
            if name not in props:
                if schema.get("additionalProperties") is False:
                    self.add(
                        "type",
                        f'output "{name}" is not declared in outputs{suggest(name, props)}',
                        f"/output/{escape_pointer(name)}",
                        key=True,
                    )
                continue
            value_type = self.output_type.props.get(name, ANY)
            self.check_fits(
                f'output "{name}"', value_type, props[name], f"/output/{escape_pointer(name)}"
            )

    def check_unused(self, template: Template) -> None:
        props = template.inputs_schema.get("properties")
        if isinstance(props, dict):
            for name in props:
                if name not in self.used_inputs:
                    self.add(
                        "unused-input",
                        f'input "{name}" is never used',
                        f"/inputs/properties/{escape_pointer(name)}",
                        key=True,
                        severity=Severity.WARNING,
                    )
        for step in template.all_steps():
            spec = self.catalog.get(step.action) if step.action else None
            if step.id and step.id not in self.used_steps and spec is not None and spec.pure:
                self.add(
                    "unused-step",
                    f'the result of step "{step.id}" ({spec.name}) is never used',
                    f"{step.pointer}/id",
                    severity=Severity.WARNING,
                )


_MENTION_INPUT = re.compile(r"\binputs\s*(?:\.\s*|\[\s*['\"])([A-Za-z_][A-Za-z0-9_]*)")
_MENTION_STEP = re.compile(r"\bsteps\s*(?:\.\s*|\[\s*['\"])([A-Za-z_][A-Za-z0-9_]*)")


def _renames(error: jsonschema.ValidationError) -> list[tuple[list[Any], str, str]]:
    """(path, misspelt key, key meant) for each unknown key with exactly one close match."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return []
    known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    fixes = []
    for extra in sorted(set(error.instance) - set(known)):
        if not isinstance(extra, str):
            continue
        meant = closest(extra, known)
        if meant is not None and meant not in error.instance:
            fixes.append((list(error.absolute_path), extra, meant))
    return fixes


def _renamed(data: Any, fixes: list[tuple[list[Any], str, str]]) -> Any:
    """A copy of `data` with each fix's key renamed in the map at its path, its place kept;
    only the maps and lists on the fixes' paths are copied, each once."""
    tree: dict[Any, Any] = {}  # path token -> subtree; "" -> {old key: new key} at that map
    for path, old, new in fixes:
        node = tree
        for token in path:
            node = node.setdefault(("at", token), {})
        node.setdefault("", {})[old] = new
    return _copy_renamed(data, tree)


def _copy_renamed(data: Any, tree: dict[Any, Any]) -> Any:
    keys = tree.get("", {})
    if isinstance(data, dict):
        return {
            keys.get(k, k): _copy_renamed(v, tree[("at", k)]) if ("at", k) in tree else v
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [
            _copy_renamed(v, tree[("at", i)]) if ("at", i) in tree else v
            for i, v in enumerate(data)
        ]
    return data


def _exposed(step: Step) -> set[str]:
    """The step ids a step makes readable after it: its own, and a group's steps' ids."""
    own = {step.id} if step.id else set()
    if step.is_group:
        return own | {i for s in step.steps for i in _exposed(s)}
    return own


def _same_shape(added: Type, items: Type) -> bool:
    """Whether enqueued items can be items of the loop: same kind, arrays and objects alike."""
    if "any" in (added.kind, items.kind) or "null" in (added.kind, items.kind):
        return True
    if added.kind != items.kind:
        return False
    if added.kind == "array":
        return _same_shape(added.items or ANY, items.items or ANY)
    if added.kind == "object":
        shared = set(added.props) & set(items.props)
        if items.closed and set(added.props) - set(items.props):
            return False
        return all(_same_shape(added.props[k], items.props[k]) for k in shared)
    return True


def _exposers(siblings: list[Step]) -> dict[str, int]:
    """Each step id exposed by a list of siblings -> the bits of the siblings exposing it."""
    exposers: dict[str, int] = {}
    for index, step in enumerate(siblings):
        for step_id in _exposed(step):
            exposers[step_id] = exposers.get(step_id, 0) | 1 << index
    return exposers


def _all_of(siblings: list[Step], outer: _Visible) -> _Visible:
    """What is readable after all of `siblings` ran."""
    return _Visible(_exposers(siblings), (1 << len(siblings)) - 1, outer)


_SHOWN_IN_CYCLE = 10


class _NeedsGraph:
    """The `needs` of one list of siblings as a graph of their indexes, cut into strongly
    connected components (Tarjan, iterative) once: cycles and ancestors in linear time.

    A step id names the last sibling with that id (the others are duplicate-id errors).
    """

    def __init__(self, siblings: list[Step]) -> None:
        node_of = {s.id: i for i, s in enumerate(siblings) if s.id}
        self.node_of = node_of
        self.siblings = siblings
        self.edges: list[list[int]] = [
            sorted({node_of[n] for n in s.needs if n in node_of and n != s.id}) for s in siblings
        ]
        self.components = self._components()
        self.reach = self._reach()

    def _components(self) -> list[list[int]]:
        """Strongly connected components, each listed after every one it needs."""
        count = len(self.edges)
        order, low = [-1] * count, [0] * count
        on_stack = [False] * count
        stack: list[int] = []
        components: list[list[int]] = []
        seen = 0
        for root in range(count):
            if order[root] >= 0:
                continue
            work = [(root, 0)]
            while work:
                node, edge = work.pop()
                if edge == 0:
                    order[node] = low[node] = seen
                    seen += 1
                    stack.append(node)
                    on_stack[node] = True
                else:
                    low[node] = min(low[node], low[self.edges[node][edge - 1]])
                while edge < len(self.edges[node]):
                    nxt = self.edges[node][edge]
                    edge += 1
                    if order[nxt] < 0:
                        work.append((node, edge))
                        work.append((nxt, 0))
                        break
                    if on_stack[nxt]:
                        low[node] = min(low[node], order[nxt])
                else:
                    if low[node] == order[node]:
                        component = []
                        while True:
                            member = stack.pop()
                            on_stack[member] = False
                            component.append(member)
                            if member == node:
                                break
                        components.append(sorted(component))
        return components

    def _reach(self) -> list[int]:
        """For each sibling, the bits of the siblings it needs, directly or not."""
        reach = [0] * len(self.edges)
        for component in self.components:  # every component after those it needs
            bits = 0
            for node in component:
                for nxt in self.edges[node]:
                    bits |= reach[nxt] | 1 << nxt
            for node in component:
                reach[node] = bits
        return reach

    def ancestors(self, index: int) -> int:
        """The bits of the siblings that run before sibling `index` (all it needs, not itself)."""
        step = self.siblings[index]
        own = self.node_of.get(step.id) if step.id else None
        if own == index:
            return self.reach[index] & ~(1 << index)
        bits = 0
        for need in step.needs:
            node = self.node_of.get(need)
            if node is not None and need != step.id:
                bits |= self.reach[node] | 1 << node
        return bits & ~(1 << own) if own is not None else bits

    def cycles(self) -> list[tuple[list[int], list[int]]]:
        """One cycle per strongly connected component of more than one step (a shortest one
        through its smallest id), with the component's other steps."""
        found = []
        for component in self.components:
            if len(component) < 2:
                continue
            members = set(component)
            start = min(component, key=lambda i: self.siblings[i].id or "")
            came_from = {start: start}
            queue, at, end = [start], 0, -1
            while end < 0:
                node = queue[at]
                at += 1
                for nxt in self.edges[node]:
                    if nxt == start:
                        end = node
                        break
                    if nxt in members and nxt not in came_from:
                        came_from[nxt] = node
                        queue.append(nxt)
            cycle = [end]
            while cycle[-1] != start:
                cycle.append(came_from[cycle[-1]])
            cycle.reverse()
            in_cycle = set(cycle)
            others = sorted(
                (i for i in component if i not in in_cycle),
                key=lambda i: self.siblings[i].id or "",
            )
            found.append((cycle, others))
        found.sort(key=lambda c: self.siblings[c[0][0]].id or "")
        return found


def check_source(text: str, file: str, catalog: ActionCatalog) -> CheckResult:
    """Check one template's YAML text; never raises on bad input."""
    try:
        loaded = load_yaml(text)
    except YamlError as exc:
        diag = Diagnostic(file, exc.span, Severity.ERROR, "yaml-syntax", exc.message)
        return CheckResult(file, None, [diag], text)
    checker = _Checker(file, loaded, catalog)
    with hint_budget():
        template = checker.run()
    unique = {(d.span, d.rule, d.message): d for d in checker.diagnostics}
    diagnostics = sorted(unique.values(), key=Diagnostic.sort_key)
    return CheckResult(file, template, diagnostics, text)


def check_file(path: Path, catalog: ActionCatalog, display: str | None = None) -> CheckResult:
    """Check one file; raises OSError/UnicodeDecodeError when it cannot be read."""
    text = path.read_text(encoding="utf-8")
    return check_source(text, display or str(path), catalog)
