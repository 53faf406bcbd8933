"""The step graph: a template's parsed, compiled form, shared by the checker and the interpreter.

Built leniently from loaded YAML (wrong-typed fields are dropped; the meta-schema reports them).
"""

from __future__ import annotations

from typing import Any

from taskplate.contract import ErrorCode, TrustLevel, field, lazy_dataclass

from ._values import BadExpr, Const, ExpressionBudget, Value, compile_value


@lazy_dataclass(frozen=True)
class Retry:
    attempts: int = 1
    backoff_ms: int = 0
    on: frozenset[ErrorCode] | None = None  # None: the action's retryable codes


@lazy_dataclass
class Step:
    pointer: str
    path: str = ""  # the ids from the top down to it, a step without one by its index: sign_in/3
    id: str | None = None
    name: str | None = None
    action: str | None = None
    args: Value = field(default_factory=lambda: Const({}))
    for_each: Value | None = None
    var: str = "item"
    concurrency: Value | None = None
    steps: list[Step] = field(default_factory=list)
    collect: Value | None = None
    enqueue: Value | None = None  # a growing forEach: items each finished item adds
    unique_by: Value | None = None
    max_items: Value | None = None
    when: Value | None = None
    needs: list[str] = field(default_factory=list)
    retry: Retry = field(default_factory=Retry)
    timeout_ms: Value | None = None
    on_error: str | None = None
    tab: Value | None = None
    confirm: Value | None = None  # a question the caller's user answers before the step runs
    on_decline: str = "fail"  # fail | skip: what a declined confirmation does
    # a group's `onResume`: "restart" runs it again whole when its run is resumed elsewhere
    on_resume: str | None = None

    @property
    def is_loop(self) -> bool:
        return self.for_each is not None

    @property
    def is_group(self) -> bool:
        """`steps` without `action` or `forEach`: a block run in order, skipped as a whole."""
        return self.for_each is None and self.action is None and bool(self.steps)

    @property
    def action_count(self) -> int:
        """Action steps this step runs itself (a group's, not a loop's: loops count per item)."""
        if self.is_loop:
            return 0
        if self.is_group:
            return sum(s.action_count for s in self.steps)
        return 1

    def items_overlap(self, max_concurrency: int | None = None) -> bool:
        """Whether this forEach's items may run at the same time: a `concurrency` above 1, or
        one an expression gives (it may be above 1 on some call), unless the template's
        `limits.maxConcurrency` is 1. Decided from the template alone, so a run behaves alike
        whatever the value turns out to be."""
        if not self.is_loop or self.concurrency is None or max_concurrency == 1:
            return False
        if not isinstance(self.concurrency, Const):
            return True
        wanted = self.concurrency.value
        return isinstance(wanted, int | float) and not isinstance(wanted, bool) and wanted > 1

    def item_tabs(self, max_concurrency: int | None = None) -> bool:
        """Whether each item of this forEach runs in a tab of its own: `tab: new`, or no `tab`
        line on a loop whose items may overlap (one shared page would mix their data)."""
        if self.tab == Const("new"):
            return True
        return self.tab is None and self.items_overlap(max_concurrency)

    @property
    def label(self) -> str:
        """The step as a message names it: "open", "sign_in/wait" inside group sign_in, a step
        without an id by its index ("sign_in/3"); with no id on its path, where it stands:
        steps[0].steps[2]."""
        if self.id or not self.path.replace("/", "").isdigit():
            return f'"{self.path or self.id}"'
        return self.pointer.strip("/").replace("steps/", "steps[").replace("/", "].") + "]"


@lazy_dataclass(frozen=True)
class PartialSuccess:
    allowed: bool = False
    threshold: float | None = None


@lazy_dataclass(frozen=True)
class TemplateLimits:
    max_items: int | None = None
    max_concurrency: int | None = None
    max_timeout_ms: int | None = None


@lazy_dataclass
class Template:
    id: str
    version: str
    name: str = ""
    description: str = ""
    trust: tuple[TrustLevel, ...] = (TrustLevel.LOCAL,)
    partial_success: PartialSuccess = field(default_factory=PartialSuccess)
    limits: TemplateLimits = field(default_factory=TemplateLimits)
    mode_default: str = "auto"
    async_when: Value | None = None
    keep_session: bool = False
    profile: Value | None = None
    browser: dict[str, Any] = field(default_factory=dict)  # the identity (docs/networks.md)
    inputs_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    outputs_schema: dict[str, Any] | None = None
    steps: list[Step] = field(default_factory=list)
    output: Value | None = None
    source: str = ""
    # Without `outputs`: the schema of `output` as the checker types it (`dsl validate`), or None
    inferred_outputs: dict[str, Any] | None = None

    def all_steps(self) -> list[Step]:
        out: list[Step] = []
        stack = list(reversed(self.steps))
        while stack:
            step = stack.pop()
            out.append(step)
            stack.extend(reversed(step.steps))
        return out


def _get(data: Any, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
    if not isinstance(data, dict):
        return default
    value = data.get(key, default)
    if value is default:  # missing (the commonest case): what the checks below would give
        return default
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        return default
    return value if isinstance(value, kind) else default


_ERROR_CODES = frozenset(str(c) for c in ErrorCode)


class _GraphBuilder:
    def __init__(self) -> None:
        self.errors: list[BadExpr] = []
        self.budget = ExpressionBudget()

    def value(self, raw: Any, pointer: str) -> Value:
        return compile_value(raw, pointer, self.errors, self.budget)

    def optional(self, data: dict[str, Any], key: str, pointer: str) -> Value | None:
        return self.value(data[key], f"{pointer}/{key}") if key in data else None

    def step(self, data: Any, pointer: str, parent: str = "") -> Step:
        step = Step(pointer=pointer)
        if not isinstance(data, dict):
            return step
        step.id = _get(data, "id", str)
        step.path = parent + (step.id or pointer.rsplit("/", 1)[-1])
        step.name = _get(data, "name", str)
        step.action = _get(data, "action", str)
        step.args = self.value(_get(data, "with", dict, {}), f"{pointer}/with")
        step.for_each = self.optional(data, "forEach", pointer)
        step.var = _get(data, "as", str, "item")
        step.concurrency = self.optional(data, "concurrency", pointer)
        raw_steps = _get(data, "steps", list, [])
        step.steps = [
            self.step(s, f"{pointer}/steps/{i}", f"{step.path}/") for i, s in enumerate(raw_steps)
        ]
        step.collect = self.optional(data, "collect", pointer)
        step.enqueue = self.optional(data, "enqueue", pointer)
        step.unique_by = self.optional(data, "uniqueBy", pointer)
        step.max_items = self.optional(data, "maxItems", pointer)
        step.when = self.optional(data, "when", pointer)
        needs = data.get("needs")
        needs_list = [needs] if isinstance(needs, str) else needs if isinstance(needs, list) else []
        step.needs = [n for n in needs_list if isinstance(n, str)]
        retry = _get(data, "retry", dict, {})
        on = _get(retry, "on", list)
        codes = _ERROR_CODES
        step.retry = Retry(
            attempts=_get(retry, "attempts", int, 1),
            backoff_ms=_get(retry, "backoffMs", int, 0),
            on=frozenset(ErrorCode(c) for c in on if c in codes) if on is not None else None,
        )
        step.timeout_ms = self.optional(data, "timeoutMs", pointer)
        step.on_error = _get(data, "onError", str)
        step.tab = self.optional(data, "tab", pointer)
        step.confirm = self.optional(data, "confirm", pointer)
        step.on_decline = _get(data, "onDecline", str, "fail")
        step.on_resume = _get(data, "onResume", str)
        return step

    def template(self, data: Any, source: str) -> Template:
        data = data if isinstance(data, dict) else {}
        trust = tuple(
            TrustLevel(t) for t in _get(data, "trust", list, ["local"]) if t in ("local", "remote")
        )
        ps = _get(data, "partialSuccess", dict, {})
        limits = _get(data, "limits", dict, {})
        mode = _get(data, "mode", dict, {})
        return Template(
            id=_get(data, "template", str, ""),
            version=_get(data, "version", str, ""),
            name=_get(data, "name", str, ""),
            description=_get(data, "description", str, ""),
            trust=trust or (TrustLevel.LOCAL,),
            partial_success=PartialSuccess(
                allowed=_get(ps, "allowed", bool, False),
                threshold=_get(ps, "threshold", (int, float)),
            ),
            limits=TemplateLimits(
                max_items=_get(limits, "maxItems", int),
                max_concurrency=_get(limits, "maxConcurrency", int),
                max_timeout_ms=_get(limits, "maxTimeoutMs", int),
            ),
            mode_default=_get(mode, "default", str, "auto"),
            async_when=self.optional(mode, "asyncWhen", "/mode"),
            keep_session=_get(_get(data, "session", dict, {}), "keep", bool, False),
            profile=self.optional(_get(data, "session", dict, {}), "profile", "/session"),
            browser=_get(data, "browser", dict, {}),
            inputs_schema=_get(data, "inputs", dict, {"type": "object"}),
            outputs_schema=_get(data, "outputs", dict),
            steps=[
                self.step(s, f"/steps/{i}") for i, s in enumerate(_get(data, "steps", list, []))
            ],
            output=self.optional(data, "output", ""),
            source=source,
        )


def build_template(data: Any, source: str = "") -> tuple[Template, list[BadExpr]]:
    """The step graph of loaded template data, and the expressions that did not parse."""
    builder = _GraphBuilder()
    template = builder.template(data, source)
    return template, builder.errors
