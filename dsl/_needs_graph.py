"""The `needs` of one list of sibling steps as a graph: what runs before what, and its cycles.

Shared by the scope walk (which results a step may read) and the `cycle` rule; reads steps only.
"""

from __future__ import annotations

from ._model import Step


class NeedsGraph:
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
