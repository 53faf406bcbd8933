"""`extract`'s records' fields that matched in none of them (a misspelt `.prcie` reads null in
every card): found at every depth and named by path, `products[].price`, `a[].b[].c`.

Judges values already read; extract.py reports them (missing, warnings, required).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from taskplate.contract import ErrorCode, TaskplateError, lazy_dataclass

# One record could just lack the field; from two, none having it is the selector's doing.
LEAST_RECORDS = 2


@lazy_dataclass(frozen=True)
class Unmatched:
    """An inner field null (or an empty list) in every record of its list."""

    path: str
    records: int
    selector: str | None

    def warning(self) -> str:
        where = f' ("{self.selector}")' if self.selector else ""
        return (
            f"{self.path}{where} matched in none of the {self.records} records: check its "
            f"selector, or name it in required to fail the step"
        )


def _empty(value: Any) -> bool:
    return value is None or value == []


def _below(values: list[Any]) -> list[dict[str, Any]]:
    """The records inside a field's values: a list's items, or one record."""
    out: list[dict[str, Any]] = []
    for value in values:
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                out.append(item)
    return out


def _walk(
    records: list[dict[str, Any]], fields: dict[str, dict[str, Any]], at: str, least: int
) -> Iterator[Unmatched]:
    for name, field in fields.items():
        path, found = f"{at}{name}", [r.get(name) for r in records]
        # A boolean's absence is its answer (false): it never says its selector matched nothing.
        judged = field.get("type") != "boolean" or "fields" in field
        if judged and len(records) >= least and all(_empty(v) for v in found):
            yield Unmatched(path, len(records), field.get("selector"))
        elif isinstance(field.get("fields"), dict):
            inner = path + ("[]." if field.get("all") else ".")
            yield from _walk(_below(found), field["fields"], inner, least)


def unmatched(
    values: dict[str, Any], fields: dict[str, dict[str, Any]], least: int = LEAST_RECORDS
) -> list[Unmatched]:
    """The records' fields (not the top-level ones: `missing` has those) that matched in none
    of at least `least` records, outermost first."""
    out: list[Unmatched] = []
    for name, field in fields.items():
        if isinstance(field.get("fields"), dict):
            records = _below([values.get(name)])
            inner = name + ("[]." if field.get("all") else ".")
            out += _walk(records, field["fields"], inner, least)
    return out


def record_paths(fields: dict[str, Any], at: str = "") -> Iterator[str]:
    """Every records' field by path, as `required` may name it (fields as written)."""
    for name, field in fields.items():
        inner = field.get("fields") if isinstance(field, dict) else None
        if isinstance(inner, dict):
            below = f"{at}{name}" + ("[]." if field.get("all") is True else ".")
            for key in inner:
                yield below + key
            yield from record_paths(inner, below)


def not_in_records(absent: list[Unmatched]) -> TaskplateError:
    named = "; ".join(
        f'{u.path} ("{u.selector}") in none of the {u.records} records' for u in absent
    )
    return TaskplateError(
        ErrorCode.ELEMENT_NOT_FOUND,
        f"required field{'s' if len(absent) > 1 else ''} not found: {named}",
        "Check the selectors against one record's element (snapshot, get_page_content), or "
        "leave the field out of required to accept nulls.",
        {"fields": [u.path for u in absent]},
    )
