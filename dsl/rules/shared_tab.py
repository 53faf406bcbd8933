"""The `shared-tab` rule: steps that may run at the same time never share one tab.

A forEach's items running at once, or `needs` branches that do not wait for each other, that
drive one page would read each other's pages. Pure: reads the step graph, reports problems.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

from taskplate.contract import lazy_dataclass

from .._actions import ActionCatalog
from .._check_context import Context, Report, Rule
from .._diagnostics import Severity
from .._model import Step, Template
from .._values import Const, Value, expressions
from ..expr import Attr, Index, Lit, Macro, Name, Node, _children


@lazy_dataclass(frozen=True)
class SharedTab:
    """One problem: what to say, and where (a JSON pointer into the template)."""

    message: str
    pointer: str


def shared_tab_problems(template: Template, catalog: ActionCatalog) -> list[SharedTab]:
    """Every step that would drive one tab together with another step running at once."""
    rule = _Rule(template, catalog)
    return [*rule.loops(), *rule.branches()]


class _Rule:
    def __init__(self, template: Template, catalog: ActionCatalog) -> None:
        self.catalog = catalog
        self.most = template.limits.max_concurrency
        self.template = template
        self.parents: dict[int, Step | None] = {}
        stack: list[tuple[Step, Step | None]] = [(s, None) for s in template.steps]
        while stack:
            step, parent = stack.pop()
            self.parents[id(step)] = parent
            stack.extend((child, step) for child in step.steps)

    # -- forEach items running at once ---------------------------------------------------------
    def loops(self) -> Iterator[SharedTab]:
        for step in self.template.all_steps():
            if step.is_loop and step.tab not in (None, Const("new")) and self.overlap(step):
                yield SharedTab(
                    f"forEach {step.label} runs {self.at_once(step)} at once in {_tab_text(step.tab)}, "
                    "one page for all of them: each would read the page another just navigated. "
                    "Write tab: new (a tab per item)",
                    f"{step.pointer}/tab",
                )
            elif self.uses_browser(step) and step.tab not in (None, Const("new")):
                loop = self.sharing_loop(step)
                if loop is not None:
                    yield SharedTab(
                        f"step {step.label} runs in {_tab_text(step.tab)}, one tab for all the "
                        f"items of forEach {loop.label}, which runs {self.at_once(loop)} at once. "
                        "Drop this tab line so the step runs in its item's own tab (write tab: new "
                        "on the forEach)",
                        f"{step.pointer}/tab",
                    )

    def overlap(self, loop: Step) -> bool:
        return loop.items_overlap(self.most)

    def at_once(self, loop: Step) -> str:
        wanted = loop.concurrency.value if isinstance(loop.concurrency, Const) else None
        return f"up to {wanted} items" if isinstance(wanted, int) else "several items"

    def sharing_loop(self, step: Step) -> Step | None:
        """The nearest forEach running items at once for all of whose items `step`'s tab is
        the same one: `main`, or an expression reading nothing an item owns."""
        assert step.tab is not None
        reads = _reads(step.tab)
        parent = self.parents.get(id(step))
        while parent is not None:
            shared = step.tab == Const("main") or not reads & _owned(parent)
            if parent.is_loop and self.overlap(parent) and shared:
                return parent
            parent = self.parents.get(id(parent))
        return None

    def uses_browser(self, step: Step) -> bool:
        spec = self.catalog.get(step.action) if step.action else None
        return spec is not None and spec.needs_browser and spec.uses_tab

    # -- `needs` branches running at once -------------------------------------------------------
    def branches(self) -> Iterator[SharedTab]:
        """Linear in the siblings and their needs, up to one bitmask operation per tab user: a
        1 MiB template of thousands of `needs` is checked at once (#28), not pair by pair."""
        reported: set[int] = set()
        for siblings in self.sibling_lists():
            if not any(s.needs for s in siblings):
                continue
            enclosing = "their item's tab" if self.in_item_tab(siblings[0]) else "tab main"
            uses = {id(s): list(self.tab_uses(s, enclosing)) for s in siblings}
            if sum(1 for s in siblings if uses[id(s)]) < 2:
                continue
            order, before = _in_order(siblings)
            rank = {id(s): i for i, s in enumerate(siblings)}
            for tab in dict.fromkeys(tab for s in order for tab, _ in uses[id(s)]):
                earlier = changers = (
                    0  # the users of `tab` met so far; those that do more than read
                )
                for position, step in enumerate(order):
                    mine = [one for used, one in uses[id(step)] if used == tab]
                    if not mine:
                        continue
                    reads_only = all(self.pure(one) for one in mine)
                    unordered = (changers if reads_only else earlier) & ~before[id(step)]
                    bit = 1 << position
                    earlier |= bit
                    if not reads_only:
                        changers |= bit
                    if not unordered:
                        continue
                    other = order[(unordered & -unordered).bit_length() - 1]
                    first, second = sorted((other, step), key=lambda s: rank[id(s)])
                    if id(second) in reported:
                        continue
                    problem = self.clash(first, second, uses[id(first)], uses[id(second)])
                    if problem is not None:
                        reported.add(id(second))
                        yield problem

    def sibling_lists(self) -> Iterator[list[Step]]:
        yield self.template.steps
        for step in self.template.all_steps():
            if step.steps:
                yield step.steps

    def in_item_tab(self, step: Step) -> bool:
        parent = self.parents.get(id(step))
        while parent is not None:
            if parent.is_loop and parent.item_tabs(self.most):
                return True
            parent = self.parents.get(id(parent))
        return False

    def tab_uses(self, step: Step, enclosing: str | None) -> Iterator[tuple[str, Step]]:
        """(the tab, the action step) for each browser step under `step` in a tab it shares
        with its siblings; `enclosing` names the tab a step without a tab line runs in (None:
        a tab of its item's own, shared with no sibling)."""
        if step.is_loop and step.item_tabs(self.most):
            enclosing = None  # each item its own tab: only explicit tabs are shared
        if step.steps:
            for child in step.steps:
                yield from self.tab_uses(child, enclosing)
            return
        if not self.uses_browser(step) or step.tab == Const("new"):
            return
        if step.tab is not None:
            yield _tab_text(step.tab), step
        elif enclosing is not None:
            yield enclosing, step

    def clash(
        self,
        first: Step,
        second: Step,
        first_uses: list[tuple[str, Step]],
        second_uses: list[tuple[str, Step]],
    ) -> SharedTab | None:
        for tab, one in first_uses:
            for same, other in second_uses:
                if tab != same or (self.pure(one) and self.pure(other)):
                    continue
                changer = other if not self.pure(other) else one
                at = f"{other.pointer}/tab" if other.tab is not None else f"{other.pointer}/action"
                return SharedTab(
                    f"steps {first.label} and {second.label} may run at once (neither needs the "
                    f"other) and both use {tab}, which {changer.label} ({changer.action}) does "
                    "more than read. Give one a tab of its own (tab: new, or a create_tab tab) "
                    "or make one need the other",
                    at,
                )
        return None

    def pure(self, step: Step) -> bool:
        spec = self.catalog.get(step.action) if step.action else None
        return spec is not None and spec.pure


def _in_order(siblings: list[Step]) -> tuple[list[Step], dict[int, int]]:
    """The siblings in an order where each comes after the steps it needs (ties in the order
    written; steps on a cycle, which the checker reports, last), and for each the steps it waits
    for, directly or not, as a bitmask of positions in that order."""
    index = {s.id: i for i, s in enumerate(siblings) if s.id}
    needed = [{index[n] for n in s.needs if n in index and n != s.id} for s in siblings]
    waiting = [len(n) for n in needed]
    followers: list[list[int]] = [[] for _ in siblings]
    for i, needs in enumerate(needed):
        for n in needs:
            followers[n].append(i)
    ready = [i for i, count in enumerate(waiting) if count == 0]
    heapq.heapify(ready)
    placed: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        placed.append(i)
        for follower in followers[i]:
            waiting[follower] -= 1
            if waiting[follower] == 0:
                heapq.heappush(ready, follower)
    seen = set(placed)
    placed += [i for i in range(len(siblings)) if i not in seen]
    position = {i: p for p, i in enumerate(placed)}
    masks: list[int] = [0] * len(siblings)
    for i in placed:
        mask = 0
        for n in needed[i]:
            mask |= masks[n] | (1 << position[n])
        masks[i] = mask
    return [siblings[i] for i in placed], {id(siblings[i]): masks[i] for i in placed}


def _owned(loop: Step) -> set[str]:
    """Names each item of a loop has of its own: its variables and its steps' results."""
    names = {loop.var, "index", "depth"}
    stack = list(loop.steps)
    while stack:
        step = stack.pop()
        if step.id:
            names.add(f"steps.{step.id}")
        if step.is_loop:
            names.add(step.var)
        stack.extend(step.steps)
    return names


def _reads(value: Value) -> set[str]:
    """The names a value's expressions read (`steps.<id>` for a step's result)."""
    names: set[str] = set()
    for expr in expressions(value):
        names |= _names(expr.node, frozenset())
    return names


def _names(node: Node, bound: frozenset[str]) -> set[str]:
    if isinstance(node, Name):
        return set() if node.name in bound else {node.name}
    if isinstance(node, Attr | Index) and isinstance(node.obj, Name) and node.obj.name == "steps":
        key = node.name if isinstance(node, Attr) else getattr(node.key, "value", None)
        if isinstance(node, Attr) or isinstance(node.key, Lit):
            return {f"steps.{key}"}
    if isinstance(node, Macro):
        inner = bound | {node.var}
        out = _names(node.target, bound) | _names(node.body, inner)
        for extra in node.extra:
            out |= _names(extra, inner)
        return out
    out = set()
    for child in _children(node):
        out |= _names(child, bound)
    return out


def _tab_text(tab: Value) -> str:
    if isinstance(tab, Const):
        return f"tab {tab.value}"
    return "tab " + " ".join(f"${{{{ {e.source.strip()} }}}}" for e in expressions(tab))


def _on_graph(ctx: Context, report: Report) -> None:
    for shared in shared_tab_problems(ctx.template, ctx.catalog):
        report(shared.message, shared.pointer)


RULE = Rule(
    "shared-tab",
    Severity.ERROR,
    "one tab for steps that may run at the same time: a `forEach` whose items may run at once "
    "(`concurrency` above 1, or given by an expression) with `tab: main` or an expression tab, "
    "or a step inside it naming `tab: main` or a tab none of its item's own (a `create_tab` tab "
    "made before the loop); `needs` branches that do not wait for each other and use one tab "
    "where one of them acts on the page (navigate, click, …). Write `tab: new` on the loop (or "
    "no `tab` line: such a loop gives each item a tab of its own), or order the branches with "
    "`needs` — see [authoring.md](authoring.md#parallel-items)",
    on_graph=_on_graph,
)
