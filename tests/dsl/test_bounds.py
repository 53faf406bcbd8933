"""Static checks are bounded: any template up to maxInputBytes (1 MiB) is checked in well under
2 s of CPU, whatever its shape (issue #28); cycles come once per strongly connected component."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from taskplate.dsl import check_source
from taskplate.stdlib import REGISTRY

HEAD = "template: t\nversion: 1.0.0\n"
MAX_INPUT_BYTES = 1 << 20
CPU_BOUND_S = 2.0


def all_need_all(n: int) -> str:
    ids = [f"s{i}" for i in range(n)]
    steps = "".join(
        f"  - id: {i}\n    needs: [{', '.join(x for x in ids if x != i)}]\n"
        "    action: wait\n    with: {ms: 1}\n"
        for i in ids
    )
    return f"{HEAD}steps:\n{steps}"


def sequential(n: int) -> str:
    return (
        HEAD
        + "steps:\n"
        + "".join(f"  - {{id: s{i}, action: wait, with: {{ms: 1}}}}\n" for i in range(n))
    )


def reading_the_one_before(n: int) -> str:
    return (
        HEAD
        + "steps:\n  - {id: s0, action: wait, with: {ms: 1}}\n"
        + "".join(
            f"  - {{id: s{i}, action: wait, with: {{ms: '${{{{ steps.s{i - 1}.waitedMs }}}}'}}}}\n"
            for i in range(1, n)
        )
    )


def needs_ring(n: int) -> str:
    return (
        HEAD
        + "steps:\n"
        + "".join(
            f"  - {{id: s{i}, needs: [s{(i + 1) % n}], action: wait, with: {{ms: 1}}}}\n"
            for i in range(n)
        )
    )


def needs_chain_reading(n: int) -> str:
    return (
        HEAD
        + "steps:\n"
        + "".join(
            f"  - {{id: s{i}, needs: [s{i + 1}], action: wait, "
            f"with: {{ms: '${{{{ steps.s{i + 1}.waitedMs }}}}'}}}}\n"
            for i in range(n - 1)
        )
        + f"  - {{id: s{n - 1}, action: wait, with: {{ms: 1}}}}\n"
    )


def nested_groups(depth: int) -> str:
    text, indent = HEAD + "steps:\n", "  "
    for i in range(depth):
        text += f"{indent}- id: g{i}\n{indent}  forEach: [1]\n{indent}  steps:\n"
        indent += "    "
    return text + f"{indent}- {{action: wait, with: {{ms: '${{{{ item }}}}'}}}}\n"


def loop_of_many(n: int) -> str:
    return (
        HEAD
        + "steps:\n  - id: l\n    forEach: [1, 2]\n    steps:\n"
        + "".join(
            f"      - {{id: s{i}, steps: [{{action: wait, with: {{ms: '${{{{ item }}}}'}}}}]}}\n"
            for i in range(n)
        )
        + "output: {x: '${{ steps.l.items }}'}\n"
    )


def wide_inputs(n: int) -> str:
    props = ", ".join(f"p{i}: {{type: string}}" for i in range(n))
    return f"{HEAD}inputs: {{type: object, properties: {{{props}}}}}\nsteps:\n  - {{action: wait, with: {{ms: 1}}}}\n"


def wide_outputs(n: int) -> str:
    props = ", ".join(f"o{i}: {{type: [string, number]}}" for i in range(n))
    names = ", ".join(f"o{i}" for i in range(n))
    out = ", ".join(f"x{i}: 1" for i in range(n))
    return (
        f"{HEAD}outputs: {{type: object, additionalProperties: false, properties: {{{props}}}, "
        f"required: [{names}]}}\noutput: {{{out}}}\nsteps:\n  - {{action: wait, with: {{ms: 1}}}}\n"
    )


def unknown_names(n: int) -> str:
    return (
        HEAD
        + "steps:\n"
        + "".join(
            f"  - {{id: s{i}, action: wait, with: {{ms: '${{{{ steps.x{i}.a + inputs.y{i} }}}}'}}}}\n"
            for i in range(n)
        )
    )


def unknown_needs(n: int) -> str:
    return (
        HEAD
        + "steps:\n"
        + "".join(
            f"  - {{id: s{i}, needs: [x{i}], action: wait, with: {{ms: 1}}}}\n" for i in range(n)
        )
    )


def misspelt_keys(n: int) -> str:
    return (
        HEAD
        + "steps:\n"
        + "".join(f"  - {{id: s{i}, actoin: wait, wiht: {{ms: 1}}}}\n" for i in range(n))
    )


def unknown_actions(n: int) -> str:
    return (
        HEAD
        + "steps:\n"
        + "".join(f"  - {{id: a{i}, action: wiat{i}, with: {{ms: x}}}}\n" for i in range(n))
    )


def long_expressions(n: int) -> str:
    def expression(i: int) -> str:  # each its own: no cache may help
        return f"[{i}, " + ", ".join(["inputs.a"] * 400) + "]"

    return (
        HEAD
        + "steps:\n"
        + "".join(
            f"  - {{action: evaluate, with: {{script: x, arg: '${{{{ {expression(i)} }}}}'}}}}\n"
            for i in range(n)
        )
    )


def flat_list(n: int) -> str:
    return HEAD + "steps: [" + "1, " * n + "]\n"


def loop_sharing_main(n: int) -> str:
    """A concurrent loop whose many steps each name tab main: every one is a shared-tab problem."""
    return (
        HEAD
        + "steps:\n  - id: l\n    forEach: [1, 2]\n    concurrency: 2\n    steps:\n"
        + "".join(
            f"      - {{id: s{i}, tab: main, action: navigate, with: {{url: 'https://a.test/{i}'}}}}\n"
            for i in range(n)
        )
    )


def loop_of_parallel_branches(n: int) -> str:
    """Steps of one item that need nothing of each other, all navigating the item's tab."""
    return (
        HEAD
        + "steps:\n  - id: l\n    forEach: [1, 2]\n    steps:\n"
        + "      - {id: s0, action: navigate, with: {url: 'https://a.test/'}}\n"
        + "".join(
            f"      - {{id: s{i}, needs: [s0], action: navigate, with: {{url: 'https://a.test/{i}'}}}}\n"
            for i in range(1, n)
        )
    )


SHAPES: dict[str, Callable[[], str]] = {
    "9 steps each needing all": lambda: all_need_all(9),
    "10 steps each needing all": lambda: all_need_all(10),
    "100 steps each needing all": lambda: all_need_all(100),
    "3,900 steps in a row": lambda: sequential(3900),
    "3,300 steps each reading the one before": lambda: reading_the_one_before(3300),
    "a ring of 2,800 needs": lambda: needs_ring(2800),
    "a chain of 2,400 needs, each read": lambda: needs_chain_reading(2400),
    "forEach nested 30 deep": lambda: nested_groups(30),
    "a loop of 2,400 groups": lambda: loop_of_many(2400),
    "9,000 inputs": lambda: wide_inputs(9000),
    "3,000 outputs, all of them wrong": lambda: wide_outputs(3000),
    "3,300 unknown steps and inputs": lambda: unknown_names(3300),
    "2,800 unknown needs": lambda: unknown_needs(2800),
    "3,900 steps with misspelt keys": lambda: misspelt_keys(3900),
    "3,900 unknown actions": lambda: unknown_actions(3900),
    "250 long expressions": lambda: long_expressions(250),
    "2,400 steps naming tab main in a concurrent loop": lambda: loop_sharing_main(2400),
    "2,400 parallel branches in one item's tab": lambda: loop_of_parallel_branches(2400),
    "a flat list of 500,000 values": lambda: flat_list(340_000),
}


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_any_template_up_to_max_input_bytes_is_checked_within_two_seconds(shape: str) -> None:
    text = SHAPES[shape]()
    assert len(text.encode()) <= MAX_INPUT_BYTES
    # CPU: other processes on a loaded machine do not count. What they leave is one-sided noise
    # (cores and caches shared: in CI one check of a shape that takes 0.4-1.4 s measured 2.31
    # s), so the least of up to three checks is the check's own cost.
    spent = float("inf")
    for _ in range(3):
        started = time.process_time()
        result = check_source(text, "t.yaml", REGISTRY)
        spent = min(spent, time.process_time() - started)
        if spent < CPU_BOUND_S:
            break
    assert result.diagnostics is not None
    assert spent < CPU_BOUND_S, f"{shape}: {spent:.2f} s of CPU"


@pytest.mark.parametrize("n", [9, 10, 100])
def test_steps_that_all_need_one_another_make_one_cycle_diagnostic(n: int) -> None:
    result = check_source(all_need_all(n), "t.yaml", REGISTRY)
    cycles = [d for d in result.diagnostics if d.rule == "cycle"]
    assert len(cycles) == 1
    assert cycles[0].message.startswith("needs form a cycle: s0 → s1 → s0; ")
    assert f"{n - 2} more steps wait on these and on one another" in cycles[0].message


def test_a_long_ring_of_needs_is_shown_shortened() -> None:
    result = check_source(needs_ring(2800), "t.yaml", REGISTRY)
    (cycle,) = [d for d in result.diagnostics if d.rule == "cycle"]
    assert "… (2800 steps)" in cycle.message and len(cycle.message) < 200


def test_expressions_past_the_template_budget_are_reported_once_and_not_parsed() -> None:
    steps = "".join(
        f"  - {{id: s{i}, action: wait, with: {{ms: '${{{{ inputs.n + {i:04} + 1000 }}}}'}}}}\n"
        for i in range(1500)
    )
    inputs = "inputs: {type: object, properties: {n: {type: number}}}\n"
    result = check_source(f"{HEAD}{inputs}steps:\n{steps}", "t.yaml", REGISTRY)
    (problem,) = result.diagnostics
    assert problem.rule == "expr-syntax"
    assert "expressions hold more than 32768 characters in all" in problem.message
    assert problem.pointer.startswith("/steps/") and problem.pointer.endswith("/with/ms")


def test_a_document_of_too_many_values_stops_being_read_where_it_passes_the_bound() -> None:
    result = check_source(flat_list(340_000), "t.yaml", REGISTRY)
    (problem,) = result.diagnostics
    assert problem.rule == "yaml-syntax"
    assert "more than 20000 values" in problem.message
    assert problem.span.column < 200_000  # read no further than the bound, not to the end


def test_dsl_validate_shows_a_window_of_a_long_line_for_each_of_its_problems(
    tmp_path: Path,
) -> None:
    from click.testing import CliRunner

    from taskplate.cli.main import cli

    given = tmp_path / "wide.yaml"
    given.write_text(wide_inputs(9000), encoding="utf-8")  # 9,000 warnings on one 200 KB line
    started = time.process_time()
    result = CliRunner().invoke(cli, ["validate", str(given)])
    assert time.process_time() - started < 2 * CPU_BOUND_S
    lines = result.output.splitlines()
    assert sum("[unused-input]" in line for line in lines) == 9000
    assert max(len(line) for line in lines) < 200  # was the whole line, 9,000 times
