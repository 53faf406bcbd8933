"""A case's expectations against a finished run: `status`, `output` (equals, subset, JSON
pointers or a JSON Schema) and `items` (counts, and each item's success), each broken one with
a readable diff; and the expectations `dsl record` takes from a run.

Pure: compares JSON values, runs nothing.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

from taskplate.dsl import schema_failures


@dataclass(frozen=True)
class Broken:
    """One expectation the run did not meet: what was expected, and the diff or reason."""

    what: str  # status, output, output /a/b, items.count, ...
    detail: str

    def as_json(self) -> dict[str, str]:
        return {"expectation": self.what, "detail": self.detail}


def items_of(answer: dict[str, Any], loop: str | None = None) -> tuple[str | None, list[bool]]:
    """The items of `loop` (a forEach's path of ids, `pages` or `pages/rows`; default the
    outermost that ran) and each one's success, in item order, read from where the steps ran
    (`stepPath`, pages[3]/rows[0]/open): an item failed when a step in it did. A loop inside
    another has an item for each of its items in each outer item."""
    found: dict[tuple[int, ...], bool] = {}
    for step in answer.get("steps", []):
        place = _item_of(step.get("stepPath") or "", loop)
        if place is None:
            continue
        loop = loop or place[0]
        found[place[1]] = found.get(place[1], False) or step.get("status") == "failed"
    return loop, [not found[i] for i in sorted(found)]


def _item_of(path: str, loop: str | None) -> tuple[str, tuple[int, ...]] | None:
    """The loop (the first on the path, or `loop`) and the item indexes down to its item."""
    ids: list[str] = []
    indexes: list[int] = []
    for part in path.split("/"):
        name, bracket, index = part.partition("[")
        ids.append(name)
        if bracket:
            indexes.append(int(index.rstrip("]")))
            if loop is None or "/".join(ids) == loop:
                return "/".join(ids), tuple(indexes)
    return None


def expectations_from(answer: dict[str, Any], again: dict[str, Any]) -> dict[str, Any]:
    """What `dsl record` writes from the recorded run and its replay: the status, the result
    (exactly, or, where a value changed from one run to the other, such as a session's id, the
    rest of it as a subset), and the items."""
    expect: dict[str, Any] = {"status": answer["status"]}
    if "result" in answer:
        result = answer["result"]
        stable = steady(result, again.get("result"))
        expect["output"] = {"equals": result} if stable == result else {"subset": stable}
    loop, items = items_of(answer)
    if items:
        expect["items"] = {
            "loop": loop,
            "count": len(items),
            "succeeded": sum(items),
            "failed": len(items) - sum(items),
            "success": items,
        }
    return expect


def steady(a: Any, b: Any) -> Any:
    """`a` without the values that differ in `b`, as a subset expectation reads it: an object
    keeps its keys whose values agree (in part), a list of the same length its items that agree
    (in part); MISSING when nothing agrees."""
    if a == b:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        kept = {k: steady(v, b[k]) for k, v in a.items() if k in b}
        return {k: v for k, v in kept.items() if v is not MISSING}
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        kept_items = [steady(x, y) for x, y in zip(a, b, strict=True)]
        return [item for item in kept_items if item is not MISSING]
    return MISSING


MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()


def broken(expect: dict[str, Any], answer: dict[str, Any]) -> list[Broken]:
    """Every expectation of `expect` that `answer` (get_task_run's, with steps) breaks."""
    out: list[Broken] = []
    if "status" in expect and answer.get("status") != expect["status"]:
        error = answer.get("error") or {}
        why = f" ({error.get('errorCode')}: {error.get('error')})" if error else ""
        out.append(
            Broken("status", f"expected {expect['status']}, got {answer.get('status')}{why}")
        )
    if "output" in expect:
        out += _output(expect["output"], answer.get("result"))
    if "items" in expect:
        loop, items = items_of(answer, expect["items"].get("loop"))
        out += _items(expect["items"], items, loop)
    return out


def in_recorded_order(want: Any, got: Any, path: str = "") -> tuple[Any, list[str]]:
    """`got` with each list that holds the items of the list at its place in `want`, all of
    them and no other, in another order, put back in `want`'s order; with the places of those
    lists (a JSON pointer each). What a case would read had the site not reordered them."""
    if isinstance(want, dict) and isinstance(got, dict):
        out, moved = dict(got), []
        for key in [k for k in want if k in got]:
            out[key], here = in_recorded_order(want[key], got[key], f"{path}/{_escape(key)}")
            moved += here
        return out, moved
    if isinstance(want, list) and isinstance(got, list) and want != got and same_items(want, got):
        return list(want), [path or "/"]
    return got, []


def said_once(drift_lines: list[str], broken_now: list[Broken]) -> list[str]:
    """The drift as a summary says it: the diff of the output only under a failed case whose
    broken expectations show none (one diff per failing case, none under a case that passed);
    the records that lost fields always."""
    shows = not broken_now or any(
        b.what == "output" or b.what.startswith("output /") for b in broken_now
    )
    kept = [line for line in drift_lines if not (shows and line.startswith(DRIFT_DIFF))]
    if not broken_now and drift_lines and not kept:
        kept = [
            "the output differs from the recording's where the case expects nothing (--format json has the diff)"
        ]
    return kept


def _output(want: dict[str, Any], got: Any) -> list[Broken]:
    if "equals" in want:
        return [] if got == want["equals"] else [Broken("output", diff(want["equals"], got))]
    if "subset" in want:
        missing = _not_within(want["subset"], got, "")
        return [Broken("output (subset)", m) for m in missing[:20]]
    if "at" in want:
        out = []
        for pointer, value in want["at"].items():
            found, here = _at(got, pointer)
            if not found:
                out.append(Broken(f"output {pointer}", "nothing there"))
            elif here != value:
                out.append(Broken(f"output {pointer}", diff(value, here)))
        return out
    return [
        Broken(
            "output (schema)",
            f"{'/'.join(map(str, e.absolute_path)) or 'the output'}: {e.message}",
        )
        for e in schema_failures(want["schema"], got, 20)
    ]


DRIFT_DIFF = "output recorded -> now:"  # the first line of drift's diff of the output


def drift(recorded: Any, now: Any) -> list[str]:
    """How the output now differs from the output the recording gives: a diff of the two, and
    for each list of records in it the share of records whose fields went missing (a value the
    recording had, null or gone now)."""
    if recorded == now:
        return []
    lines = [f"{DRIFT_DIFF}\n{diff(recorded, now, ('recorded', 'now'))}"]
    for path, before, after in _record_lists(recorded, now, ""):
        lost = [
            i
            for i, (old, new) in enumerate(zip(before, after, strict=False))
            if any(
                v is not None and (not isinstance(new, dict) or new.get(k) is None)
                for k, v in old.items()
            )
        ]
        lost += list(range(len(after), len(before)))  # records gone altogether
        if lost:
            share = len(lost) / len(before)
            lines.append(
                f"{path or '/'}: {len(lost)} of {len(before)} records ({share:.0%}) lost fields"
                f" they had when recorded (records {', '.join(map(str, lost[:10]))})"
            )
    return lines


def _record_lists(a: Any, b: Any, path: str) -> list[tuple[str, list[dict[str, Any]], list[Any]]]:
    """Every list of objects in `a` with the list at the same place in `b`."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [
            found
            for k in a
            if k in b
            for found in _record_lists(a[k], b[k], f"{path}/{_escape(k)}")
        ]
    if isinstance(a, list) and a and all(isinstance(x, dict) for x in a):
        return [(path, a, b if isinstance(b, list) else [])]
    return []


def _items(want: dict[str, Any], success: list[bool], loop: str | None) -> list[Broken]:
    got = {"count": len(success), "succeeded": sum(success), "failed": len(success) - sum(success)}
    of = f" of loop {loop}" if loop else ""
    out = [
        Broken(f"items.{key}{of}", f"expected {want[key]}, got {got[key]}")
        for key in ("count", "succeeded", "failed")
        if key in want and want[key] != got[key]
    ]
    if "success" in want and want["success"] != success:
        changed = [
            f"item {i}: expected {'success' if w else 'failure'}, got "
            f"{'success' if g else 'failure' if g is not None else 'no item'}"
            for i, (w, g) in enumerate(_padded(want["success"], success))
            if w != g
        ]
        out.append(Broken(f"items.success{of}", "; ".join(changed[:20])))
    return out


def _padded(a: list[bool], b: list[bool]) -> list[tuple[bool | None, bool | None]]:
    size = max(len(a), len(b))
    return [(a[i] if i < len(a) else None, b[i] if i < len(b) else None) for i in range(size)]


def _not_within(want: Any, got: Any, path: str) -> list[str]:
    """Where `want` is not found in `got`: a mapping's keys with their values within, a list's
    items each within some item, other values equal."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{path or '/'}: expected an object, got {_short(got)}"]
        out = []
        for key, value in want.items():
            where = f"{path}/{_escape(key)}"
            if key not in got:
                out.append(f"{where}: missing")
            else:
                out += _not_within(value, got[key], where)
        return out
    if isinstance(want, list):
        if not isinstance(got, list):
            return [f"{path or '/'}: expected a list, got {_short(got)}"]
        return [
            f"{path}: no item holds {_short(item)}"
            for item in want
            if not any(not _not_within(item, candidate, path) for candidate in got)
        ]
    return [] if want == got else [f"{path or '/'}: expected {_short(want)}, got {_short(got)}"]


def _escape(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _at(value: Any, pointer: str) -> tuple[bool, Any]:
    """RFC 6901: the value at `pointer`, and whether there is one."""
    if pointer == "":
        return True, value
    for raw in pointer.split("/")[1:]:
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return False, None
    return True, value


def same_items(a: list[Any], b: list[Any]) -> bool:
    """Whether two lists of JSON values hold the same items, as many times each, in any order."""
    return sorted(map(_canonical, a)) == sorted(map(_canonical, b))


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def diff(want: Any, got: Any, labels: tuple[str, str] = ("expected", "got")) -> str:
    """A unified diff of the two values as indented JSON (`want` first)."""
    a = json.dumps(want, indent=2, ensure_ascii=False, sort_keys=True).splitlines()
    b = json.dumps(got, indent=2, ensure_ascii=False, sort_keys=True).splitlines()
    lines = list(difflib.unified_diff(a, b, *labels, lineterm="", n=2))
    return "\n".join(lines[:200]) + ("\n..." if len(lines) > 200 else "")
