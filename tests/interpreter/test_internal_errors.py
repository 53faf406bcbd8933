"""An internal error names what went wrong and where, even inside a task group's exception group
(the run's error says it; the whole traceback goes to the log)."""

from __future__ import annotations

from taskplate.interpreter.runs._execution import internal


def fails(message: str) -> None:
    raise KeyError(message)


def test_each_exception_of_a_group_is_named_with_where_it_was_raised() -> None:
    caught: list[BaseException] = []
    for message in ("tab_3", "tab_4"):
        try:
            fails(message)
        except KeyError as exc:
            caught.append(exc)
    group = ExceptionGroup(
        "unhandled errors in a TaskGroup", [caught[0], ExceptionGroup("inner", [caught[1]])]
    )
    said = internal(group)
    assert said.startswith("KeyError: 'tab_3' (at test_internal_errors.py:")
    assert "; KeyError: 'tab_4' (at test_internal_errors.py:" in said
    assert "TaskGroup" not in said
    assert internal(RuntimeError("plain")) == "RuntimeError: plain"  # never raised: no place
