"""Dataclasses without their cost at import: `lazy_dataclass` makes the methods `dataclasses.dataclass`
makes without compiling five of them for each class (about 1 ms a class); only `__init__` is
compiled, on a class's first instance. For the classes a cold `dsl validate` loads.

mypy reads `lazy_dataclass` and `field` as `dataclasses.dataclass` and `field` (see
`taskplate.contract`), so it checks them as dataclasses; tests/contract/test_lazy_dataclass.py holds
their behaviour to the real ones'. It supports the options taskplate uses, no more.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

_MISSING: Any = object()


class FrozenInstanceError(AttributeError):
    """An assignment to a field of a frozen lazy dataclass."""


class Field:
    """`field(...)`: a default or a default factory, and whether the field is in `__init__`,
    `__repr__` and the comparisons."""

    __slots__ = ("compare", "default", "factory", "init", "name", "repr")

    def __init__(
        self,
        default: Any = _MISSING,
        default_factory: Callable[[], Any] = _MISSING,
        init: bool = True,
        repr: bool = True,
        compare: bool = True,
    ) -> None:
        if default is not _MISSING and default_factory is not _MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.default, self.factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare
        self.name = ""


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] = _MISSING,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    return Field(default, default_factory, init, repr, compare)


def lazy_dataclass(cls: type | None = None, /, *, frozen: bool = False, order: bool = False) -> Any:
    """`@lazy_dataclass`, `@lazy_dataclass(frozen=True)`, `@lazy_dataclass(frozen=True, order=True)`."""

    def wrap(cls: type) -> type:
        return _make(cls, frozen, order)

    return wrap if cls is None else wrap(cls)


def _make(cls: type, frozen: bool, order: bool) -> type:
    fields: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__lazy_fields__", ()):
            fields[f.name] = f
    for name, annotation in (getattr(cls, "__annotations__", None) or {}).items():
        if _is_class_var(annotation):
            continue
        value = cls.__dict__.get(name, _MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        f.name = name
        fields[name] = f
        if isinstance(value, Field):
            if f.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    _check_defaults_order(cls, fields.values())
    own = tuple(fields.values())
    compared = tuple(f.name for f in own if f.compare)
    made: dict[str, Any] = {
        "__lazy_fields__": own,
        "__match_args__": tuple(f.name for f in own if f.init),
        "__init__": _init(cls, own, frozen, getattr(cls, "__post_init__", None)),
        "__repr__": _repr(own),
        "__eq__": _eq(compared),
    }
    if frozen:
        made |= {
            "__hash__": _hash(compared),
            "__setattr__": _frozen_setattr,
            "__delattr__": _frozen_delattr,
        }
    elif "__hash__" not in cls.__dict__:
        made["__hash__"] = None
    if order:
        made |= {name: _compare(compared, test) for name, test in _ORDER.items()}
    for name, value in made.items():
        setattr(cls, name, value)
    return cls


def _is_class_var(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


def _check_defaults_order(cls: type, fields: Any) -> None:
    seen_default = False
    for f in fields:
        if not f.init:
            continue
        has_default = f.default is not _MISSING or f.factory is not _MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        seen_default = seen_default or has_default


def _init(
    cls: type, fields: tuple[Field, ...], frozen: bool, post: Callable[[Any], None] | None
) -> Callable[..., None]:
    """An `__init__` that compiles the class's own on its first call (as dataclasses compiles
    it, but only for the classes a run makes) and hands over to it."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made = _compiled_init(cls, fields, frozen, post)
        type.__setattr__(cls, "__init__", made)
        made(self, *args, **kwargs)

    return __init__


def _compiled_init(
    cls: type, fields: tuple[Field, ...], frozen: bool, post: Callable[[Any], None] | None
) -> Callable[..., None]:
    scope: dict[str, Any] = {"__put": object.__setattr__, "__missing": _MISSING, "__post": post}
    params, body = ["self"], []
    for f in fields:
        scope[f"__default_{f.name}"], scope[f"__factory_{f.name}"] = f.default, f.factory
        if f.factory is not _MISSING:
            value = (
                f"__factory_{f.name}() if {f.name} is __missing else {f.name}"
                if f.init
                else f"__factory_{f.name}()"
            )
        else:
            value = f.name if f.init else f"__default_{f.name}"
        if f.init:
            has_default = f.default is not _MISSING or f.factory is not _MISSING
            params.append(
                f"{f.name}=__default_{f.name}"
                if f.default is not _MISSING
                else f"{f.name}=__missing"
                if has_default
                else f.name
            )
        elif f.default is _MISSING and f.factory is _MISSING:
            continue
        body.append(f"__put(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    if post is not None:
        body.append("__post(self)")
    source = f"def __init__({', '.join(params)}):\n    " + "\n    ".join(body or ["pass"])
    exec(source, scope)
    made: Callable[..., None] = scope["__init__"]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    return made


def _repr(fields: tuple[Field, ...]) -> Callable[[Any], str]:
    shown = tuple(f.name for f in fields if f.repr)

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__qualname__}({inner})"

    return __repr__


def _values(compared: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The compared fields' values as a tuple, read in C by `attrgetter`."""
    if len(compared) == 1:
        one = attrgetter(compared[0])
        return lambda thing: (one(thing),)
    if not compared:
        return lambda thing: ()
    return attrgetter(*compared)


def _eq(compared: tuple[str, ...]) -> Callable[[Any, Any], Any]:
    values = _values(compared)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return values(self) == values(other)

    return __eq__


def _hash(compared: tuple[str, ...]) -> Callable[[Any], int]:
    values = _values(compared)

    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


_ORDER: dict[str, Callable[[tuple[Any, ...], tuple[Any, ...]], bool]] = {
    "__lt__": lambda a, b: a < b,
    "__le__": lambda a, b: a <= b,
    "__gt__": lambda a, b: a > b,
    "__ge__": lambda a, b: a >= b,
}


def _compare(
    compared: tuple[str, ...], test: Callable[[tuple[Any, ...], tuple[Any, ...]], bool]
) -> Callable[[Any, Any], Any]:
    values = _values(compared)

    def method(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return test(values(self), values(other))

    return method


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def replace(thing: Any, /, **changes: Any) -> Any:
    """A copy of a lazy dataclass with some fields changed, made through its `__init__` (as
    `dataclasses.replace` makes one of a dataclass)."""
    fields = getattr(type(thing), "__lazy_fields__", None)
    if fields is None:
        raise TypeError("replace() should be called on lazy dataclass instances")
    args = {}
    for f in fields:
        if not f.init:
            if f.name in changes:
                raise ValueError(
                    f"field {f.name} is declared with init=False, it cannot be specified with replace()"
                )
            continue
        args[f.name] = changes.pop(f.name) if f.name in changes else getattr(thing, f.name)
    if changes:
        raise TypeError(
            f"{type(thing).__qualname__}.__init__() got an unexpected keyword argument {next(iter(changes))!r}"
        )
    return type(thing)(**args)
