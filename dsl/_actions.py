"""What the language needs to know of an action: its schemas, capability level and retry codes.

An interface only: `stdlib/` declares the actions, the checker and interpreter read them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from taskplate.contract import ErrorCode, Level, field, lazy_dataclass


@lazy_dataclass(frozen=True)
class ActionSpec:
    name: str
    level: Level
    summary: str
    args_schema: dict[str, Any]
    result_schema: dict[str, Any]
    retryable: frozenset[ErrorCode] = frozenset()
    needs_browser: bool = True
    uses_tab: bool = True  # acts on the step's tab (create_tab, close_tab: on the session)
    pure: bool = False  # no side effects: a result nobody reads is dead code
    result_from_args: bool = False  # `set`: the result is the arguments
    provider: str = "builtin"  # who serves it: builtin, or a configured MCP server's name
    requires_confirm: bool = False  # has side effects a remote caller must confirm
    # A result schema made exact by the step's literal arguments (values of expressions are
    # DYNAMIC): `extract` declares each field's type. None: `result_schema` as it is.
    result_schema_for: Callable[[dict[str, Any]], dict[str, Any]] | None = field(
        default=None, compare=False
    )
    # What the schema cannot say of the literal arguments: (JSON pointer, message) pairs.
    check_args: Callable[[dict[str, Any]], list[tuple[str, str]]] | None = field(
        default=None, compare=False
    )
    run: Callable[..., Awaitable[Any]] | None = field(default=None, compare=False)


class ActionCatalog(Protocol):
    def get(self, name: str) -> ActionSpec | None: ...

    def names(self) -> Iterable[str]: ...
