"""The scope walk: one pass over the step tree in the order steps run, typing every value.

Each expression is typed where it stands (which names and step results it may read there), its
problems kept in the context; each step's types go to the rules' `on_step`. Reports nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from taskplate.contract import field, lazy_dataclass

from ._check_context import Context, ExprProblem, StepTypes
from ._model import Step
from ._types import (
    ANY,
    BOOLEAN,
    NULL,
    NUMBER,
    STRING,
    Type,
    array_of,
    from_schema,
    join_all,
    object_of,
    of_value,
)
from ._values import Const, Expr, Interp, ListValue, MapValue, Single, Value, literal
from .expr import ExprScope, StepRef, infer

_RUN_TYPE = object_of(
    {
        k: STRING
        for k in ("runId", "templateId", "templateVersion", "sessionId", "profileId", "startedAt")
    }
)
_ITEM_ERROR = object_of({"code": STRING, "message": STRING})
_SUMMARY = object_of({k: NUMBER for k in ("total", "succeeded", "failed", "skipped")})
_LATER = "is used before it is guaranteed to have run; move it earlier or list it in needs"


@lazy_dataclass(frozen=True)
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


@lazy_dataclass
class _Place:
    """What is in scope at one point of the step tree."""

    names: dict[str, Type]
    visible: _Visible
    loops: tuple[str, ...] = ()  # pointers of the enclosing forEach steps


@lazy_dataclass
class _StepInfo:
    step: Step
    loop: str | None  # pointer of the nearest enclosing forEach, if any
    loop_id: str | None
    type: Type = field(default_factory=lambda: ANY)


# An action's declared result schema → its Type, keyed by the schema object itself (kept alive
# here, so its id cannot be reused). Catalog schemas are constants: a catalog that changes is
# made of new objects. Types are never mutated.
_RESULT_TYPES: dict[int, tuple[Any, Type]] = {}


def _result_type(schema: Any) -> Type:
    hit = _RESULT_TYPES.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    if len(_RESULT_TYPES) >= 1024:
        _RESULT_TYPES.clear()
    result = from_schema(schema)
    _RESULT_TYPES[id(schema)] = (schema, result)
    return result


def _exposed(step: Step) -> set[str]:
    """The step ids a step makes readable after it: its own, and a group's steps' ids."""
    own = {step.id} if step.id else set()
    if step.is_group:
        return own | {i for s in step.steps for i in _exposed(s)}
    return own


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


class _StepRefs(Mapping[str, StepRef]):
    """The step ids an expression may name at one place; each ref is made only when asked for.

    Lives for one expression's inference, during which the walk's state does not change.
    """

    __slots__ = ("_current", "_place", "_walk")

    def __init__(self, walk: ScopeWalk, place: _Place, current: Step | None) -> None:
        self._walk = walk
        self._place = place
        self._current = current

    def __getitem__(self, step_id: str) -> StepRef:
        ref = self._walk.step_ref(step_id, self._place, self._current)
        if ref is None:
            raise KeyError(step_id)
        return ref

    def get(self, step_id: str, default: Any = None) -> Any:
        ref = self._walk.step_ref(step_id, self._place, self._current)
        return default if ref is None else ref

    def __iter__(self) -> Iterator[str]:
        seen = dict.fromkeys(self._walk.infos)
        for step in self._walk.ctx.steps:
            if step.id and step.id not in seen:
                seen[step.id] = None
        return iter(list(seen))

    def __len__(self) -> int:
        return len(self._walk.ctx.step_ids)


class ScopeWalk:
    """Types a template's values in the context, handing each typed step to `on_step`."""

    def __init__(self, ctx: Context, on_step: Callable[[Step, StepTypes], None]) -> None:
        self.ctx = ctx
        self.on_step = on_step
        self.infos: dict[str, _StepInfo] = {}
        self.loop_ids = {s.pointer: s.id for s in ctx.steps if s.is_loop}

    def run(self) -> None:
        template = self.ctx.template
        inputs_type = from_schema(template.inputs_schema)
        names = {"inputs": inputs_type, "run": _RUN_TYPE}
        self.walk(template.steps, _Place(names, _NOTHING_VISIBLE), None, None)
        for value in (template.async_when, template.profile):
            if value is not None:
                self.value(value, _Place({"inputs": inputs_type}, _NOTHING_VISIBLE))
        if template.output is not None:
            top = _all_of(template.steps, _NOTHING_VISIBLE)
            self.ctx.output_type = self.value(template.output, _Place(names, top))

    def walk(
        self, siblings: list[Step], outer: _Place, loop: str | None, loop_id: str | None
    ) -> None:
        for step in siblings:
            if step.id and step.id not in self.infos:
                self.infos[step.id] = _StepInfo(step, loop, loop_id)
        exposers = _exposers(siblings)
        graph = self.ctx.needs_graph(siblings) if any(s.needs for s in siblings) else None
        for index, step in enumerate(siblings):
            before = graph.ancestors(index) if graph else (1 << index) - 1
            visible = _Visible(exposers, before, outer.visible)
            self.step(step, _Place(outer.names, visible, outer.loops))

    def step_ref(self, step_id: str, place: _Place, current: Step | None) -> StepRef | None:
        """What an expression at `place` may know of `step_id`; None when no step has that id."""
        info = self.infos.get(step_id)
        if info is None:
            if step_id not in self.ctx.step_ids:
                return None
            # a step not walked yet (later siblings, later loops)
            return StepRef(ANY, visible=False, why_not=f'step "{step_id}" {_LATER}')
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
        return StepRef(ANY, visible=False, why_not=f'step "{step_id}" {_LATER}')

    def value(self, value: Value, place: _Place, current: Step | None = None) -> Type:
        match value:
            case Const(value=v):
                return of_value(v)
            case Single(expr=expr):
                return self.expr(expr, place, current)
            case Interp(parts=parts):
                for part in parts:
                    if isinstance(part, Expr):
                        self.expr(part, place, current)
                return STRING
            case ListValue(items=items):
                return array_of(join_all([self.value(i, place, current) for i in items]))
            case MapValue(entries=entries):
                return object_of({k: self.value(v, place, current) for k, v in entries})
        return ANY

    def expr(self, expr: Expr, place: _Place, current: Step | None) -> Type:
        scope = ExprScope(place.names, _StepRefs(self, place, current))
        result, problems = infer(expr.node, scope)
        self.ctx.used_inputs |= scope.used_inputs
        self.ctx.used_steps |= scope.used_steps
        for p in problems:
            self.ctx.expr_problems.append(
                ExprProblem(
                    p.rule, p.message, expr.pointer, expr.offset + p.start, expr.offset + p.end
                )
            )
        return result

    def step(self, step: Step, place: _Place) -> None:
        self.ctx.used_steps.update(step.needs)
        types = StepTypes()
        if step.when is not None:
            self.value(step.when, place, step)
        if step.timeout_ms is not None:
            types.numbers["timeoutMs"] = self.value(step.timeout_ms, place, step)
        if step.tab is not None and step.tab != Const("new"):
            self.value(step.tab, place, step)
        if step.confirm is not None:
            self.value(step.confirm, place, step)
        info = self.infos.get(step.id) if step.id else None
        if step.is_group:
            loop = place.loops[-1] if place.loops else None
            loop_id = self.loop_ids.get(loop) if loop else None
            self.walk(step.steps, place, loop, loop_id)
            types.result = NULL
        elif step.is_loop:
            types.result = self.loop(step, place, types)
        else:
            types.result = self.action(step, place, types)
        if info is not None and info.step is step:
            info.type = types.result
        self.on_step(step, types)

    def action(self, step: Step, place: _Place, types: StepTypes) -> Type:
        spec = self.ctx.catalog.get(step.action) if step.action else None
        types.args = self.value(step.args, place, step)
        if spec is None:
            return ANY
        types.spec = spec
        types.literal_args = args = literal(step.args)
        if spec.result_from_args:
            return types.args if types.args.kind == "object" else ANY
        schema = spec.result_schema
        if spec.result_schema_for is not None and isinstance(args, dict):
            schema = spec.result_schema_for(args)
        result = _result_type(schema) if schema is spec.result_schema else from_schema(schema)
        if result.kind == "object":
            props = dict(result.props)
            props.setdefault("warnings", array_of(STRING))
            result = object_of(props, result.closed)
        return result

    def loop(self, step: Step, place: _Place, types: StepTypes) -> Type:
        assert step.for_each is not None
        types.items = self.value(step.for_each, place, step)
        if step.concurrency is not None:
            types.numbers["concurrency"] = self.value(step.concurrency, place, step)
        names = dict(place.names)
        items = types.items
        names[step.var] = types.item = items.items or ANY if items.kind == "array" else ANY
        names["index"] = NUMBER
        names["depth"] = NUMBER
        inner = _Place(names, place.visible, (*place.loops, step.pointer))
        self.walk(step.steps, inner, step.pointer, step.id)
        after = _Place(names, _all_of(step.steps, inner.visible), inner.loops)
        collect_type = ANY
        if step.collect is not None:
            collect_type = self.value(step.collect, after, step)
        if step.enqueue is not None:  # a growing forEach; its bound and key are typed with it
            types.enqueue = self.value(step.enqueue, after, step)
            if step.unique_by is not None:
                self.value(step.unique_by, inner, step)
            if step.max_items is not None:
                types.numbers["maxItems"] = self.value(step.max_items, after, step)
        props = dict(collect_type.props) if collect_type.kind == "object" else {}
        props.update({"success": BOOLEAN, "error": _ITEM_ERROR})
        closed = step.collect is None or isinstance(step.collect, MapValue)
        item = object_of(props, closed)
        summary = _SUMMARY
        if step.enqueue is not None:  # a growing loop also counts the items its bound dropped
            summary = object_of({**_SUMMARY.props, "dropped": NUMBER})
        return object_of({"items": array_of(item), "summary": summary})
