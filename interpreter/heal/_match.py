"""How like an element of the live page is to the one a selector matched in the recording (its
text, role, attributes, place among its siblings, its ancestors and the siblings beside it), and the selectors that could name it, the
most stable first (id, data-*, name, aria-label, then classes, then its place).

Pure: compares element descriptions (browser/_element_probe.py), reads no page; no rule names a
site.
"""

from __future__ import annotations

import json
import re
from difflib import SequenceMatcher
from typing import Any

_IDENT = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*")
_GENERATED = re.compile(r"\d{3,}|^(css|sc|jsx|emotion)-|[0-9a-f]{6,}")
_NAMING = ("name", "aria-label", "role", "title", "placeholder", "alt", "for", "type")
LEAST_SCORE = 4.0  # below this, an element is not taken for the recorded one


def likeness(recorded: dict[str, Any], live: dict[str, Any]) -> float:
    """How like `live` is to `recorded`: higher is more alike."""
    score = 2.0 if recorded["tag"] == live["tag"] else 0.0
    score += 4 * _text_likeness(recorded["text"], live["text"])
    if recorded["role"] and recorded["role"] == live["role"]:
        score += 1
    if recorded["id"] and recorded["id"] == live["id"]:
        score += 2
    for key, value in recorded["attrs"].items():
        naming = key.startswith("data-") or key in _NAMING
        if key != "id" and live["attrs"].get(key) == value:
            score += 1.5 if naming else 0.5
        elif naming and live["attrs"].get(key) not in (None, ""):
            score -= 1.5  # named otherwise: another field (`name`, `type`), another item
    score += 1.5 * _overlap(recorded["classes"], live["classes"])
    if (recorded["nth"], recorded["siblings"]) == (live["nth"], live["siblings"]):
        score += 0.5
    was, now = recorded.get("parent") or {}, live.get("parent") or {}
    if was and now:
        score += 0.5 * (was["tag"] == now["tag"]) + 1.0 * bool(was["id"] and was["id"] == now["id"])
        score += 0.5 * _overlap(was["classes"], now["classes"]) * (not _other_ids(was, now))
    score += _context_likeness(recorded, live)
    return score


def _context_likeness(recorded: dict[str, Any], live: dict[str, Any]) -> float:
    """How alike the places of two elements are: the ancestors they share (by id, data
    attribute or class) and the siblings beside them (by text)."""
    score = 0.0
    theirs = live.get("ancestors") or []
    for was in recorded.get("ancestors") or []:
        if any(_same_box(was, now) for now in theirs):
            score += 0.5
    for side in ("before", "after"):
        was, now = recorded.get(side), live.get(side)
        if was and now and was["text"] and was["text"] == now["text"]:
            score += 0.75
    return score


def _same_box(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a["id"] and a["id"] == b["id"]:
        return True
    if _other_ids(a, b):
        return False
    if set(a.get("data", {}).items()) & set(b.get("data", {}).items()):
        return True
    return (
        a["tag"] == b["tag"] and bool(a["classes"]) and _overlap(a["classes"], b["classes"]) >= 0.5
    )


def _other_ids(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two boxes are named by different ids: two boxes, however alike their classes
    (a table's rows, each its own id)."""
    return bool(a["id"] and b["id"] and a["id"] != b["id"])


def _text_likeness(a: str, b: str) -> float:
    if not a or not b:
        return 1.0 if a == b == "" else 0.0
    matcher = SequenceMatcher(None, a.lower(), b.lower())
    return matcher.ratio() if matcher.real_quick_ratio() > 0.5 else 0.0


def _overlap(a: list[str], b: list[str]) -> float:
    both, either = set(a) & set(b), set(a) | set(b)
    return len(both) / len(either) if either else 0.0


def ranked(recorded: dict[str, Any], elements: list[dict[str, Any]]) -> list[tuple[float, int]]:
    """The live elements like enough to the recorded one, most alike first: (score, index)."""
    scored = [(likeness(recorded, e), i) for i, e in enumerate(elements)]
    alike = [
        (s, i)
        for s, i in scored
        if s >= LEAST_SCORE
        and (
            elements[i]["tag"] == recorded["tag"]
            or _text_likeness(recorded["text"], elements[i]["text"]) >= 0.8
        )
    ]
    return sorted(alike, key=lambda pair: (-pair[0], pair[1]))


def selectors_for(element: dict[str, Any]) -> list[str]:
    """CSS selectors that may name the element, the most stable first."""
    tag, attrs = element["tag"], element["attrs"]
    out = []
    if element["id"] and _IDENT.fullmatch(element["id"]) and not _GENERATED.search(element["id"]):
        out.append(f"#{element['id']}")
    out += [_attr(tag, k, v) for k, v in attrs.items() if k.startswith("data-") and _fits(v)]
    out += [_attr(tag, k, attrs[k]) for k in ("name", "aria-label", "role") if _fits(attrs.get(k))]
    classes = [c for c in element["classes"] if _IDENT.fullmatch(c) and not _GENERATED.search(c)]
    out += [f"{tag}.{c}" for c in classes]
    if len(classes) > 1:
        out.append(tag + "".join(f".{c}" for c in classes))
    out += [_attr(tag, k, attrs[k]) for k in ("title", "placeholder", "alt") if _fits(attrs.get(k))]
    own = out[:]
    parent = element.get("parent")
    if parent:
        anchor = anchor_of(parent)
        if anchor:
            out.append(f"{anchor} > {tag}")
    # under an ancestor that names a place (an id, a data attribute, classes): the element's
    # own names there tell it from a look-alike elsewhere
    for box in [parent, *(element.get("ancestors") or [])]:
        anchor = anchor_of(box) if box else None
        if anchor:
            out += [f"{anchor} {name}" for name in own[:3] or [tag]]
    out.append(tag)
    if parent:  # its place in its parent, as each of a list's items has it: the last resort
        nth = f"{tag}:nth-of-type({element['nth']})"
        place = f"{parent['tag']} > {nth}"
        anchors = [anchor_of(b) for b in element.get("ancestors") or []]
        over = anchor_of(parent)
        out += [f"{over} > {nth}"] if over else []
        out += [f"{a} {place}" for a in anchors if a] + [place]
    return list(dict.fromkeys(out))


def excluding(
    selectors: list[str], recorded: dict[str, Any], strays: list[dict[str, Any]]
) -> list[str]:
    """The selectors kept off look-alikes: for each class a stray element (or a box it is in)
    has and the recorded element and its boxes have not, each selector without the elements
    of that class, or without those inside one."""
    mine = set(recorded["classes"]) | {c for box in _boxes(recorded) for c in box["classes"]}
    own: list[str] = []
    inside: list[str] = []
    for stray in strays:
        own += [c for c in stray["classes"] if c not in mine]
        inside += [c for box in _boxes(stray) for c in box["classes"] if c not in mine]
    stable = [
        c for c in dict.fromkeys(own + inside) if _IDENT.fullmatch(c) and not _GENERATED.search(c)
    ]
    return [
        f"{s}:not(.{c})" if c in own else f"{s}:not(.{c} *)"
        for c in stable[:4]
        for s in selectors
        if f":not(.{c}" not in s
    ]


def _boxes(element: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in [element.get("parent"), *(element.get("ancestors") or [])] if b]


_PLACE = re.compile(r":nth-(child|of-type|last-child|last-of-type)\(|:(first|last)-(child|of-type)")
_NAMES = re.compile(r"[.#](-?[A-Za-z_][A-Za-z0-9_-]*)")


def brittle(selector: str) -> str | None:
    """Why a selector is likely to break when the page is redesigned: it names its element by
    its place, or by a generated-looking class or id; None when neither."""
    if _PLACE.search(selector):
        return "its place among its siblings"
    generated = [name for name in _NAMES.findall(selector) if _GENERATED.search(name)]
    if generated:
        return f"a generated-looking name ({generated[0]})"
    return None


def anchor_of(box: dict[str, Any]) -> str | None:
    """A selector naming a box (an element's parent or ancestor, as `brief` describes it) by
    its id, a data attribute or up to two classes; None when it has none of them."""
    if box["id"] and _IDENT.fullmatch(box["id"]) and not _GENERATED.search(box["id"]):
        return f"#{box['id']}"
    for key, value in (box.get("data") or {}).items():
        if _fits(value):
            return _attr(box["tag"], key, value)
    classes = [c for c in box["classes"] if _IDENT.fullmatch(c) and not _GENERATED.search(c)]
    return box["tag"] + "".join(f".{c}" for c in classes[:2]) if classes else None


def _fits(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 80 and value.isprintable()


def _attr(tag: str, name: str, value: str) -> str:
    # a JSON string of printable text escapes only " and \, as a CSS string does
    return f"{tag}[{name}={json.dumps(value, ensure_ascii=False)}]"
