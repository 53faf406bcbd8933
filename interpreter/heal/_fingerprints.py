"""A fingerprint: what a template's literal selector matched on a page (`Seen`: how many, the
first one described, what its field read), where a step's arguments keep that selector, and the
fingerprint as plain JSON for a recording or the run store, bounded and without secrets.

Plain data only: the pages are read by the callers (_repair.py's PageReader, the run's Healer).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

Candidate = tuple[str, str | None]  # a selector, and the attribute to read instead (None: kept)
MAX_BYTES = 8_000  # a fingerprint kept in the run store, at most (its read dropped first)
MASK = "***"


@dataclass
class Seen:
    """What a selector matched on a page: how many, the first one, the value a field reads of it
    (its attribute or its text), whether the field reads every match, and live, when it no
    longer names the recorded element, the candidates that name the element most like it."""

    count: int
    element: dict[str, Any] | None
    read: str | None = None
    many: bool = False
    candidates: list[Candidate] = field(default_factory=list)
    stabler: str | None = None  # recording: a stabler selector for a brittle one, if any
    left: int | None = None  # a list: the elements of its items' kind it left out (None: unknown)
    bare: int | None = None  # a list: its items holding no match (None: unknown)

    def strayed(self, was: Seen) -> bool:
        """Whether the selector lost the element it matched in the recording (`was`)."""
        if was.element is None:
            return False
        return self.count == 0 or self.read != was.read or (was.many and self.count != was.count)

    def to_json(self) -> dict[str, Any]:
        out = {"count": self.count, "element": self.element, "read": self.read, "many": self.many}
        counts = {"left": self.left, "bare": self.bare}
        return {**out, **{k: v for k, v in counts.items() if v is not None}}

    @classmethod
    def from_json(cls, kept: dict[str, Any]) -> Seen:
        left, bare = kept.get("left"), kept.get("bare")
        return cls(
            kept["count"],
            kept["element"],
            kept.get("read"),
            bool(kept.get("many")),
            left=left if isinstance(left, int) else None,
            bare=bare if isinstance(bare, int) else None,
        )


def selector_of(args: dict[str, Any], path: tuple[str, ...]) -> tuple[str | None, str | None, Any]:
    """The selector at `path` of a step's arguments as rendered, the root it is under (for a
    record's field, inside the first match of the records that hold it: `:is(main) :is(.card)`,
    where the field is read), and the field it is of (None for a step's own selector)."""
    if path[0] in ("selector", "root"):
        value = args.get(path[0])
        return (value if isinstance(value, str) else None), None, None
    if path[-1] == "attr":
        path = path[:-1]
    root = args.get("root")
    within = [root] if isinstance(root, str) else []
    fields, selector, field_ = args.get("fields"), None, None
    for at in range(1, len(path), 2):
        field_ = fields.get(path[at]) if isinstance(fields, dict) else None
        selector = field_.get("selector") if isinstance(field_, dict) else field_
        if at + 2 < len(path):  # a record: what follows is read inside its match
            if not isinstance(selector, str) or not isinstance(field_, dict):
                return None, None, None
            within.append(selector)
            fields = field_.get("fields")
    if len(path) > 2:
        root = " ".join(f":is({part})" for part in within)
    return (
        (selector if isinstance(selector, str) else None),
        (root if isinstance(root, str) else None),
        field_,
    )


def with_selector(
    args: dict[str, Any], path: tuple[str, ...], selector: str, attr: str | None = None
) -> dict[str, Any]:
    """A copy of a step's rendered arguments with the selector at `path` replaced (and the
    attribute its field reads, when `attr` is given)."""
    out: dict[str, Any] = json.loads(json.dumps(args))
    if path[0] in ("selector", "root"):
        out[path[0]] = selector
        return out
    fields = out.get("fields")
    for at in range(1, len(path), 2):
        if not isinstance(fields, dict):
            return out
        name, found = path[at], fields.get(path[at])
        if at + 2 < len(path):
            fields = found.get("fields") if isinstance(found, dict) else None
            continue
        if isinstance(found, dict):
            found["selector"] = selector
            if attr:
                found["attr"] = attr
        else:
            fields[name] = {"selector": selector, "attr": attr} if attr else selector
    return out


def attr_reading(element: dict[str, Any], attr: str | None, value: str | None) -> str | bool | None:
    """For a field reading `attr`: None when the element holds the recorded value there (or
    the field reads text), the attribute holding it now, or False when none does."""
    if attr is None or element["attrs"].get(attr) == value:
        return None
    return next((k for k, v in element["attrs"].items() if v == value and k != "id"), False)


def kept_without_secrets(seen: Seen, secrets: list[str]) -> dict[str, Any] | None:
    """The fingerprint as the run store keeps it: no `value` attribute (what a field holds, typed
    or not), every secret (and every value typed into a field) masked wherever it shows (a
    password field's own attributes too), at most MAX_BYTES (the value read dropped first);
    None when it is not kept at all."""
    if seen.element is None or not seen.count:
        return None
    kept: dict[str, Any] = _scrubbed(seen.to_json(), [s for s in secrets if s])
    if len(json.dumps(kept, ensure_ascii=False)) > MAX_BYTES:
        kept["read"] = None
        if len(json.dumps(kept, ensure_ascii=False)) > MAX_BYTES:
            return None
    return kept


def _scrubbed(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, dict):
        return {k: _scrubbed(v, secrets) for k, v in value.items() if k != "value"}
    if isinstance(value, list):
        return [_scrubbed(v, secrets) for v in value]
    if isinstance(value, str):
        for secret in sorted(secrets, key=len, reverse=True):
            value = value.replace(secret, MASK)
        return value
    return value
