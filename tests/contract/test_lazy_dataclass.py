"""`record` against `dataclasses.dataclass`: the same class, made both ways from generated field
layouts, must build, compare, hash, order, print and refuse the same."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import taskplate.dsl
from taskplate.contract import _lazy_dataclass as _record
from tests.fuzzing import fuzz_settings

VALUES = st.one_of(st.integers(-3, 3), st.text(max_size=2), st.none(), st.floats(allow_nan=True))


@st.composite
def layouts(draw: st.DrawFn) -> dict[str, Any]:
    """A class's fields: each a plain field or a `field(...)` with some of its options."""
    count = draw(st.integers(0, 5))
    fields = []
    for index in range(count):
        kind = draw(st.sampled_from(["plain", "default", "factory", "field"]))
        fields.append(
            {
                "name": f"f{index}",
                "kind": kind,
                "default": draw(VALUES),
                "init": kind != "field" or draw(st.booleans()),
                "repr": draw(st.booleans()),
                "compare": draw(st.booleans()),
            }
        )
    return {
        "fields": fields,
        "frozen": draw(st.booleans()),
        "order": draw(st.booleans()),
    }


def make(layout: dict[str, Any], decorator: Any, field: Any, base: type = object) -> type:
    namespace: dict[str, Any] = {"__annotations__": {}}
    for f in layout["fields"]:
        namespace["__annotations__"][f["name"]] = "Any"
        if f["kind"] == "default":
            namespace[f["name"]] = f["default"]
        elif f["kind"] == "factory":
            value = f["default"]
            namespace[f["name"]] = field(default_factory=lambda value=value: [value])
        elif f["kind"] == "field":
            default = {"default": f["default"]} if f["init"] or f["repr"] else {}
            namespace[f["name"]] = field(
                init=f["init"], repr=f["repr"], compare=f["compare"], **default
            )
    cls = type("Thing", (base,), namespace)
    return decorator(cls, frozen=layout["frozen"], order=layout["order"])  # type: ignore[no-any-return]


def outcome(action: Any) -> Any:
    try:
        return ("value", action())
    except (TypeError, AttributeError, ValueError) as error:
        return (
            "raises",
            type(error).__mro__[1] if "Frozen" in type(error).__name__ else type(error),
        )


def message(action: Any) -> str:
    try:
        action()
    except TypeError as error:
        return str(error)
    return ""


def both(layout: dict[str, Any]) -> tuple[Any, Any] | None:
    """The class made both ways, or None when both refuse it with the same error."""
    real = outcome(lambda: make(layout, dataclasses.dataclass, dataclasses.field))
    ours = outcome(lambda: make(layout, _record.lazy_dataclass, _record.field))
    assert real[0] == ours[0], (real, ours)
    if real[0] == "raises":
        assert real[1] == ours[1]
        return None
    return real[1], ours[1]


@pytest.mark.fuzz
@fuzz_settings(200)
@given(
    layouts(),
    st.lists(VALUES, max_size=6),
    st.dictionaries(st.sampled_from(["f0", "f1", "f4", "x"]), VALUES, max_size=2),
)
def test_a_record_behaves_as_its_dataclass(
    layout: dict[str, Any], args: list[Any], kwargs: dict[str, Any]
) -> None:
    made = both(layout)
    if made is None:
        return
    real_cls, our_cls = made
    assert our_cls.__match_args__ == real_cls.__match_args__
    real, ours = (
        outcome(lambda: real_cls(*args, **kwargs)),
        outcome(lambda: our_cls(*args, **kwargs)),
    )
    assert real[0] == ours[0]
    if real[0] != "value":
        assert real[1] == ours[1]
        assert message(lambda: our_cls(*args, **kwargs)) == message(
            lambda: real_cls(*args, **kwargs)
        )
        return
    real_a, our_a = real[1], ours[1]
    real_b, our_b = real_cls(*args, **kwargs), our_cls(*args, **kwargs)

    def shown(cls: type, thing: Any) -> Any:
        return outcome(lambda: repr(thing).replace(cls.__qualname__, "X"))

    assert shown(our_cls, our_a) == shown(real_cls, real_a)
    assert outcome(lambda: our_a == our_b) == outcome(lambda: real_a == real_b)
    assert (our_a == 3) == (real_a == 3)
    assert outcome(lambda: hash(our_a))[0] == outcome(lambda: hash(real_a))[0]
    if outcome(lambda: hash(our_a))[0] == "value":
        assert hash(our_a) == hash(our_b)
    for op in ("__lt__", "__le__", "__gt__", "__ge__"):
        assert outcome(lambda op=op: getattr(our_a, op)(our_b)) == outcome(
            lambda op=op: getattr(real_a, op)(real_b)
        )
    for name in [f["name"] for f in layout["fields"]] + ["other"]:
        copied = outcome(lambda name=name: _record.replace(our_a, **{name: 7}))
        assert copied[0] == outcome(lambda name=name: dataclasses.replace(real_a, **{name: 7}))[0]
        if copied[0] == "value":
            assert getattr(copied[1], name) == 7

        assert (
            outcome(lambda name=name: setattr(our_a, name, 1))[0]
            == outcome(lambda name=name: setattr(real_a, name, 1))[0]
        )


@pytest.mark.fuzz
@fuzz_settings(100)
@given(layouts(), layouts(), st.lists(VALUES, max_size=8))
def test_a_record_subclass_adds_its_fields_after_its_base(
    base: dict[str, Any], child: dict[str, Any], args: list[Any]
) -> None:
    child = {**child, "fields": [{**f, "name": "c" + f["name"]} for f in child["fields"]]}
    child["frozen"] = base["frozen"]
    bases = both(base)
    if bases is None:
        return
    real_base, our_base = bases
    real = outcome(lambda: make(child, dataclasses.dataclass, dataclasses.field, real_base))
    ours = outcome(lambda: make(child, _record.lazy_dataclass, _record.field, our_base))
    assert real[0] == ours[0]
    if real[0] != "value":
        return
    assert ours[1].__match_args__ == real[1].__match_args__
    made = outcome(lambda: ours[1](*args)), outcome(lambda: real[1](*args))
    assert made[0][0] == made[1][0]


def test_post_init_runs_after_the_fields_are_set() -> None:
    @_record.lazy_dataclass
    class Pair:
        a: int
        both: int = _record.field(init=False)

        def __post_init__(self) -> None:
            self.both = self.a * 2

    assert Pair(3).both == 6
    assert repr(Pair(3)) == f"{Pair.__qualname__}(a=3, both=6)"


def test_every_record_of_taskplate_is_a_record_and_no_dataclass_is_left_on_the_cold_path() -> None:
    """The cold path's modules use `record`, so a cold `dsl validate` compiles no dataclass."""
    cold = [
        name
        for _, name, _ in pkgutil.walk_packages(taskplate.dsl.__path__, "taskplate.dsl.")
        if not name.endswith("__main__")
    ]
    left = []
    for name in cold:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == name
                and dataclasses.is_dataclass(value)
            ):
                left.append(f"{name}.{value.__qualname__}")
    assert left == []
