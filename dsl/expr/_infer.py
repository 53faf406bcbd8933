"""Static checks of one expression: names, step references, properties and operand types.

Reports problems with offsets into the expression; never evaluates anything.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from taskplate.contract import field, lazy_dataclass

from .._types import (
    ANY,
    BOOLEAN,
    NUMBER,
    STRING,
    Type,
    array_of,
    join,
    join_all,
    object_of,
    of_value,
)
from ._ast import (
    Attr,
    Binary,
    Call,
    Cond,
    Index,
    ListLit,
    Lit,
    Macro,
    MapLit,
    Name,
    Node,
    Unary,
)
from ._functions import FUNCTIONS

# Did-you-mean hints compare a name with each candidate; one check may make this many
# comparisons in all, so that a file of thousands of unknown names stays linear to check
# (the first names get hints, the rest none).
HINT_BUDGET = 20_000
_HINTS_LEFT: ContextVar[list[int] | None] = ContextVar("hints_left", default=None)


@contextmanager
def hint_budget() -> Iterator[None]:
    """Within: suggest and closest share HINT_BUDGET comparisons (one check)."""
    token = _HINTS_LEFT.set([HINT_BUDGET])
    try:
        yield
    finally:
        _HINTS_LEFT.reset(token)


def affords_hint(comparisons: int) -> bool:
    """Whether a hint costing `comparisons` fits what is left of the budget (and spend it)."""
    left = _HINTS_LEFT.get()
    if left is None:
        return True
    if comparisons > left[0]:
        left[0] = 0
        return False
    left[0] -= comparisons
    return True


def suggest(name: str, candidates: Collection[str], noun: str = "") -> str:
    """'; did you mean "x"?' or '; available: a, b' (or nothing when there is nothing)."""
    if not affords_hint(len(candidates)):
        return ""
    import difflib  # only for a problem: a clean template is checked without it

    options = sorted(set(candidates))
    close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    if close:
        return f'; did you mean "{close[0]}"?'
    if not options:
        return ""
    shown = ", ".join(options[:12]) + (", …" if len(options) > 12 else "")
    return f"; available{' ' + noun if noun else ''}: {shown}"


def closest(name: str, candidates: Collection[str]) -> str | None:
    """The one candidate `suggest` would name in its did-you-mean, if any."""
    if not affords_hint(len(candidates)):
        return None
    import difflib

    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return close[0] if close else None


@lazy_dataclass(frozen=True)
class Problem:
    """A static problem in an expression, with the rule that reports it."""

    rule: str
    message: str
    start: int
    end: int


@lazy_dataclass
class StepRef:
    """What an expression may know of a step id at one place in the template."""

    type: Type
    action: str | None = None
    visible: bool = True
    why_not: str = ""  # the message when not visible
    rule: str = "ref-order"


@lazy_dataclass
class ExprScope:
    """What the names of an expression mean where it stands."""

    names: Mapping[str, Type]
    steps: Mapping[str, StepRef]
    used_inputs: set[str] = field(default_factory=set)
    used_steps: set[str] = field(default_factory=set)


class _Inferer:
    def __init__(self, scope: ExprScope) -> None:
        self.scope = scope
        self.problems: list[Problem] = []
        self.locals: dict[str, Type] = {}  # the item names of enclosing list operations

    def report(self, rule: str, message: str, node: Node, end: int | None = None) -> Type:
        self.problems.append(
            Problem(rule, message, node.start, end if end is not None else node.end)
        )
        return ANY

    def infer(self, node: Node) -> Type:
        # The commonest nodes first; the match below handles every node the same way.
        if isinstance(node, Attr):
            obj = node.obj
            if isinstance(obj, Name) and obj.name == "steps":
                return self._step(node, node.name)
            return self._property(node, obj, node.name)
        if isinstance(node, Name):
            return self._name(node, node.name)
        if isinstance(node, Lit):
            return of_value(node.value)
        if isinstance(node, Binary):
            return self._binary(node, node.op, self.infer(node.left), self.infer(node.right))
        if isinstance(node, Call):
            return self._call(node, node.func, [self.infer(a) for a in node.args])
        match node:
            case Lit(value=value):
                return of_value(value)
            case Name(name=name):
                return self._name(node, name)
            case Attr(obj=Name(name="steps"), name=step_id):
                return self._step(node, step_id)
            case Index(obj=Name(name="steps"), key=Lit(value=str() as step_id)):
                return self._step(node, step_id)
            case Attr(obj=obj, name=name):
                return self._property(node, obj, name)
            case Index(obj=obj, key=key):
                base, key_type = self.infer(obj), self.infer(key)
                if isinstance(key, Lit) and isinstance(key.value, str):
                    return self._property(node, obj, key.value, base)
                if base.kind == "array":
                    if key_type.kind not in ("number", "any"):
                        return self.report(
                            "type", f"list index must be a number, got {key_type.kind}", key
                        )
                    return base.items or ANY
                return ANY
            case Unary(op="!", operand=operand):
                self.infer(operand)
                return BOOLEAN
            case Unary(op="-", operand=operand):
                kind = self.infer(operand).kind
                if kind not in ("number", "any"):
                    return self.report("type", f"cannot negate {kind}", node)
                return NUMBER
            case Binary(op=op, left=left, right=right):
                return self._binary(node, op, self.infer(left), self.infer(right))
            case Cond(test=test, then=then, other=other):
                self.infer(test)
                return join(self.infer(then), self.infer(other))
            case Call(func=func, args=args):
                return self._call(node, func, [self.infer(a) for a in args])
            case Macro():
                return self._macro(node)
            case ListLit(items=items):
                return array_of(join_all([self.infer(i) for i in items]))
            case MapLit(pairs=pairs):
                return object_of({k: self.infer(v) for k, v in pairs})
        return ANY

    def _name(self, node: Node, name: str) -> Type:
        if name in self.locals:
            return self.locals[name]
        if name == "steps":
            return ANY
        if name in self.scope.names:
            return self.scope.names[name]
        known = [*self.scope.names, *self.locals, "steps"]
        return self.report("unknown-ref", f'unknown name "{name}"{suggest(name, known)}', node)

    def _macro(self, node: Macro) -> Type:
        target = self.infer(node.target)
        if target.kind not in ("array", "any", "null"):
            self.report("type", f"{node.func}() needs a list, got {target.describe()}", node.target)
            target = ANY
        item = target.items or ANY if target.kind == "array" else ANY
        outer = self.locals
        self.locals = {**outer, node.var: item}
        try:
            body = self.infer(node.body)
        finally:
            self.locals = outer
        for extra in node.extra:
            if isinstance(extra, Lit) and extra.value not in ("asc", "desc"):
                self.report(
                    "type", f"sortBy() order must be 'asc' or 'desc', got {extra.value!r}", extra
                )
            else:
                self.infer(extra)
        if node.func == "map":
            return array_of(body)
        if node.func in ("exists", "all"):
            return BOOLEAN
        if node.func == "sortBy" and body.kind not in ("number", "string", "any", "null"):
            self.report(
                "type", f"sortBy() key must be a number or a text, got {body.describe()}", node.body
            )
        return target if target.kind == "array" else ANY

    def _step(self, node: Node, step_id: str) -> Type:
        ref = self.scope.steps.get(step_id)
        if ref is None:
            steps = self.scope.steps
            visible = [k for k, v in steps.items() if v.visible] if affords_hint(len(steps)) else []
            meant = closest(step_id, visible)
            if meant is not None:  # its unused warning would be this mistake's
                self.scope.used_steps.add(meant)
            return self.report(
                "unknown-ref", f'no step "{step_id}"{suggest(step_id, visible, "steps")}', node
            )
        self.scope.used_steps.add(step_id)
        if not ref.visible:
            return self.report(ref.rule, ref.why_not, node)
        return ref.type

    def _property(self, node: Node, obj: Node, name: str, base: Type | None = None) -> Type:
        base = self.infer(obj) if base is None else base
        is_inputs = isinstance(obj, Name) and obj.name == "inputs"
        if is_inputs:
            self.scope.used_inputs.add(name)
        if base.kind in ("any", "null"):
            return ANY
        if base.kind != "object":
            return self.report("type", f'cannot read property "{name}" of {base.describe()}', node)
        found = base.prop(name)
        if found is not None:
            return found
        if is_inputs:
            meant = closest(name, base.props)
            if meant is not None:
                self.scope.used_inputs.add(meant)
            return self.report(
                "unknown-ref", f'inputs has no property "{name}"{suggest(name, base.props)}', node
            )
        owner = _describe_owner(obj, self.scope)
        return self.report(
            "type", f'{owner} has no property "{name}"{suggest(name, base.props)}', node
        )

    def _binary(self, node: Node, op: str, a: Type, b: Type) -> Type:
        if op in ("==", "!=", "in"):
            if op == "in" and b.kind not in ("array", "string", "object", "any", "null"):
                return self.report("type", f"cannot test membership in {b.kind}", node)
            return BOOLEAN
        if op in ("&&", "||"):
            return join(a, b)
        known = a.kind != "any" and b.kind != "any"
        if op == "+":
            if a.kind == b.kind and a.kind in ("number", "string", "array"):
                return a if a.kind != "array" else array_of(join(a.items or ANY, b.items or ANY))
            if known and "null" not in (a.kind, b.kind):
                return self.report("type", f"cannot add {a.kind} and {b.kind}", node)
            return STRING if "string" in (a.kind, b.kind) else ANY
        if op in ("<", "<=", ">", ">="):
            if (
                known
                and "null" not in (a.kind, b.kind)
                and (a.kind != b.kind or a.kind not in ("number", "string"))
            ):
                self.report("type", f"cannot compare {a.kind} with {b.kind}", node)
            return BOOLEAN
        for side in (a, b):
            if side.kind not in ("number", "any", "null"):
                return self.report("type", f"'{op}' needs numbers, got {side.describe()}", node)
        return NUMBER

    def _call(self, node: Call, func: str, args: list[Type]) -> Type:
        spec = FUNCTIONS.get(func)
        if spec is None:
            return self.report(
                "unknown-ref",
                f'unknown function "{func}"{suggest(func, FUNCTIONS, "functions")}',
                node,
                node.name_end,
            )
        high = spec.max_args
        if len(args) < spec.min_args or (high is not None and len(args) > high):
            want = (
                f"{spec.min_args}"
                if spec.min_args == high
                else f"{spec.min_args} to {high}"
                if high
                else f"at least {spec.min_args}"
            )
            return self.report("type", f"{func}() takes {want} argument(s), got {len(args)}", node)
        if spec.returns == "arg0":
            return args[0] if args else ANY
        if func == "split":
            return array_of(STRING)
        if func == "keys":
            return array_of(STRING)
        if func in ("unique",) and args and args[0].kind == "array":
            return args[0]
        if func == "regexFind":
            return _MATCH
        return Type(spec.returns) if spec.returns != "any" else ANY


_MATCH = object_of(
    {
        "match": STRING,
        "groups": array_of(STRING),
        "named": object_of({}, closed=False),
        "start": NUMBER,
    }
)


def _describe_owner(obj: Node, scope: ExprScope) -> str:
    if isinstance(obj, Attr) and isinstance(obj.obj, Name) and obj.obj.name == "steps":
        ref = scope.steps.get(obj.name)
        kind = f" ({ref.action})" if ref and ref.action else ""
        return f'the result of step "{obj.name}"{kind}'
    path = _dotted(obj)
    return f'"{path}"' if path else "this object"


def _dotted(node: Node) -> str | None:
    """`steps.data.values` for a chain of names, or None when something else stands in it."""
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Attr):
        head = _dotted(node.obj)
        return f"{head}.{node.name}" if head else None
    return None


def infer(node: Node, scope: ExprScope) -> tuple[Type, list[Problem]]:
    inferer = _Inferer(scope)
    result = inferer.infer(node)
    return result, inferer.problems
