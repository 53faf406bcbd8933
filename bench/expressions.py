"""The costliest expressions (each costly function at its bound, or past its budget): how long
one evaluation holds the thread, CPU and wall time, against the 100 ms bound of #40 item 2.
Rounds interleaved; the median and the largest of each, with the spread.

Run: .venv/bin/python bench/expressions.py [rounds]
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from typing import Any

from taskplate.dsl import ExpressionError, evaluate, parse_expression


def _xs(power: int) -> str:
    text = "'xxxxxxxxxx'"
    for _ in range(power - 1):
        text = f"replace({text}, 'x', 'xxxxxxxxxx')"
    return text


SCOPE: dict[str, Any] = {
    "big": evaluate(parse_expression(_xs(6)), {}),  # 10**6 characters
    "items": list(range(50_000)),
    "hundred": list(range(100_000)),
}
WORST = {
    "round at ±308": "round(1, -308) + round(2.5, 308)",
    "operations: map x + 1": "map(items, x, x + 1)",
    "operations: x in list": "map(items, x, x in items)",
    "operations: unique": "unique(hundred)",
    "operations: ==": "hundred == hundred",
    "characters: contains": "map(items, x, contains(big, 'zz'))",
    "characters: lower": "map(items, x, lower(big))",
    "regex (a|aa)+$": "map(items, x, regexMatch('" + "a" * 30 + "!', '(a|aa)+$'))",
    "regexReplace 1M matches": "regexReplace(big, 'x', '')",
    "format 1 MiB": "format(big + '{0}', 1)",
    "join 50,000": "join(items, ',')",
    "sortBy 50,000": "sortBy(items, x, -x)",
}


def _once(text: str) -> tuple[float, float]:
    node = parse_expression(text)
    cpu, wall = time.process_time(), time.perf_counter()
    with contextlib.suppress(ExpressionError):
        evaluate(node, SCOPE)
    return time.process_time() - cpu, time.perf_counter() - wall


def main(rounds: int) -> None:
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in WORST}
    for _ in range(rounds):
        for name, text in WORST.items():
            samples[name].append(_once(text))
    print(
        f"{'expression':28} {'cpu median':>10} {'wall median':>11} {'wall max':>9}  ({rounds} rounds)"
    )
    for name, got in samples.items():
        cpu = statistics.median(c for c, _ in got) * 1000
        wall = [w * 1000 for _, w in got]
        print(f"{name:28} {cpu:8.1f} ms {statistics.median(wall):8.1f} ms {max(wall):6.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
