"""What a static rule sees and how it reports: `Rule`, the `Context` of one check, `Report`.

Rules read the context and never change it; only the checker's driver and its scope walk fill
it in. Knows no rule: the rules are in `dsl/rules/`, the order they run in is `_checker.py`'s.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from taskplate.contract import field, lazy_dataclass

from ._actions import ActionCatalog, ActionSpec
from ._diagnostics import Diagnostic, Severity, Span
from ._json_schema_check import schema_errors
from ._model import Step, Template
from ._needs_graph import NeedsGraph
from ._types import ANY, Type
from ._values import BadExpr
from ._yaml import LoadedYaml

if TYPE_CHECKING:
    import jsonschema


@lazy_dataclass(frozen=True)
class Rule:
    """One static rule: its id in diagnostics, their severity, its line in docs/validate.md,
    and what it checks at each point of the one pass (each hook optional):

    - `on_graph(ctx, report)`: once the step graph is built, before any expression is typed;
    - `on_step(ctx, report, step, types)`: each step, as the scope walk has typed its values;
    - `on_template(ctx, report)`: once, after the walk: every type and every use known.
    """

    name: str
    severity: Severity
    docs: str
    on_graph: Callable[[Context, Report], None] | None = None
    on_step: Callable[[Context, Report, Step, StepTypes], None] | None = None
    on_template: Callable[[Context, Report], None] | None = None


@lazy_dataclass(frozen=True)
class ExprProblem:
    """A problem `_expr_infer` found in one expression, named by the rule it breaks."""

    rule: str
    message: str
    pointer: str
    start: int  # offsets into the value's text
    end: int


@lazy_dataclass
class StepTypes:
    """What the scope walk found in one step (ANY where it typed nothing)."""

    result: Type = ANY
    spec: ActionSpec | None = None  # an action step's action, when the catalog has it
    args: Type = ANY  # an action's `with`
    literal_args: Any = None  # `with` as a plain value, expressions as DYNAMIC
    items: Type = ANY  # a forEach's list
    item: Type = ANY  # each item (the loop's variable)
    enqueue: Type | None = None  # what a growing forEach adds
    numbers: dict[str, Type] = field(default_factory=dict)  # timeoutMs, concurrency, maxItems


@lazy_dataclass
class Context:
    """One template under check, shared by every rule."""

    file: str
    loaded: LoadedYaml  # the YAML with positions
    raw: dict[str, Any]  # the template as meant: misspelt keys read as their one suggestion
    catalog: ActionCatalog
    template: Template
    bad_expressions: list[BadExpr]  # expressions that did not parse
    steps: list[Step] = field(init=False)  # every step, in template order
    step_ids: set[str] = field(init=False)
    # Filled by the walks: what expressions and `needs` read, and what typing found.
    used_inputs: set[str] = field(default_factory=set)
    used_steps: set[str] = field(default_factory=set)
    expr_problems: list[ExprProblem] = field(default_factory=list)
    output_type: Type = ANY
    _graphs: dict[int, NeedsGraph] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.steps = self.template.all_steps()
        self.step_ids = {s.id for s in self.steps if s.id}

    def needs_graph(self, siblings: list[Step]) -> NeedsGraph:
        """The `needs` graph of one list of siblings, built once for the walk and the rules."""
        graph = self._graphs.get(id(siblings))
        if graph is None or graph.siblings is not siblings:
            graph = self._graphs[id(siblings)] = NeedsGraph(siblings)
        return graph

    def node(self, pointer: str) -> Any:
        """The raw value at a JSON pointer of the template as meant, None when there is none."""
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

    @functools.cached_property
    def step_maps(self) -> list[tuple[Step, dict[str, Any]]]:
        """Each step written as a map, with its map (a step written otherwise is a
        template-schema error already)."""
        found = []
        for step in self.steps:
            data = self.node(step.pointer)
            if isinstance(data, dict):
                found.append((step, data))
        return found

    def sibling_lists(self) -> Iterator[list[Step]]:
        """The template's steps, then each step's own steps: every list of siblings."""
        yield self.template.steps
        for step in self.steps:
            if step.steps:
                yield step.steps

    @functools.cached_property
    def schema_errors(self) -> dict[str, list[jsonschema.ValidationError]]:
        """`inputs` and `outputs` against JSON Schema 2020-12: what breaks it, by key."""
        found = {}
        for key in ("inputs", "outputs"):
            schema = self.raw.get(key)
            if isinstance(schema, dict):
                found[key] = list(schema_errors(schema))
        return found


class Diagnostics:
    """Every diagnostic of one check, placed in the file as written: a pointer into the
    template as meant is moved back past the misspelt keys it was read through."""

    def __init__(self, file: str, loaded: LoadedYaml) -> None:
        self.file = file
        self.loaded = loaded
        self.found: list[Diagnostic] = []
        self.renames: dict[str, str] = {}  # pointer as meant -> pointer in the file

    def add(
        self,
        rule: str,
        severity: Severity,
        message: str,
        pointer: str,
        *,
        key: bool = False,
        span: Span | None = None,
    ) -> None:
        pointer = self.in_file(pointer)
        span = span or self.loaded.span(pointer, key=key)
        self.found.append(Diagnostic(self.file, span, severity, rule, message, pointer))

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

    def add_in_expr(
        self, rule: str, severity: Severity, message: str, pointer: str, start: int, end: int
    ) -> None:
        """A problem at offsets `start:end` of the text at `pointer`: the exact columns when
        the text is one plain or quoted line, else where the value starts."""
        info = self.loaded.nodes.get(self.in_file(pointer))
        if info is None:
            self.add(rule, severity, message, pointer)
            return
        s = info.span
        if s.line == s.end_line and info.style in (None, "'", '"'):
            column = s.column + start + (1 if info.style else 0)
            span = Span(s.line, column, s.line, column + max(1, end - start))
        else:
            span = Span.point(s.line, s.column)
        self.add(rule, severity, message, pointer, span=span)


class Report:
    """How one rule reports: its name and severity on each diagnostic, spans from pointers."""

    __slots__ = ("_sink", "rule", "severity")

    def __init__(self, sink: Diagnostics, rule: Rule) -> None:
        self._sink = sink
        self.rule = rule.name
        self.severity = rule.severity

    def __call__(
        self, message: str, pointer: str, *, key: bool = False, span: Span | None = None
    ) -> None:
        """A problem at a JSON pointer: at its value, or its key with `key=True`."""
        self._sink.add(self.rule, self.severity, message, pointer, key=key, span=span)

    def in_expr(self, message: str, pointer: str, start: int, end: int) -> None:
        """A problem at offsets `start:end` of the text at `pointer`."""
        self._sink.add_in_expr(self.rule, self.severity, message, pointer, start, end)

    def expr_problems(self, ctx: Context) -> None:
        """The problems typing found in expressions that this rule names."""
        for p in ctx.expr_problems:
            if p.rule == self.rule:
                self.in_expr(p.message, p.pointer, p.start, p.end)
