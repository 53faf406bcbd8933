"""The repair benchmark's changes: a seeded generator of the changes redesigns make, one to three
at once (classes renamed, added, removed; ids changed; elements wrapped, unwrapped, moved within
and across containers, retagged; test and data attributes renamed or dropped; look-alikes inserted
before or after with the same classes and other text; siblings reordered; text split).

It knows nothing of the templates: it picks its targets among the page's elements, half of them
among the elements a template reads and their containers (a change elsewhere rarely moves a
value), and never looks at what repair does.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from _repair_drawn import drawn
from _repair_pages import SITES, Node

WORDS = ["item", "box", "unit", "block", "tile", "panel", "cell", "piece", "label", "value"]
OTHER_TEXT = ["Sponsored: garden hose", "$9.99", "Sold out", "Editor's pick", "2.1", "Promo"]
KINDS = [
    "rename_class", "add_class", "remove_class", "change_id", "wrap", "unwrap", "move_within",
    "move_across", "retag", "rename_attr", "drop_attr", "lookalike_before", "lookalike_after",
    "reorder", "split_text",
]  # fmt: skip
RETAG = {"span": "div", "div": "section", "p": "div", "h1": "h2", "h2": "h3", "h3": "h4",
         "a": "span", "li": "div", "td": "td", "section": "div", "time": "span"}  # fmt: skip


def _walk(node: Node, parent: Node | None = None) -> list[tuple[Node, Node | None]]:
    out = [(node, parent)]
    for child in node.children:
        out += _walk(child, node)
    return out


def _reads(node: Node) -> bool:
    return node.read or any(_reads(c) for c in node.children)


def _generated(rng: random.Random) -> str:
    return rng.choice(["css-", "sc-", "jsx-"]) + "".join(
        rng.choice("0123456789abcdef") for _ in range(6)
    )


def _apply(kind: str, body: Node, rng: random.Random) -> str | None:
    """One change of `kind` made to a target the generator picks; what it did, or None when the
    page has no fit target."""
    pairs = [
        (t, p)
        for t, p in _walk(body)
        if p is not None and t.tag not in ("header", "footer", "main")
    ]
    aimed = [(t, p) for t, p in pairs if _reads(t)]
    pool = aimed if aimed and rng.random() < 0.5 else pairs
    fits = {
        "rename_class": lambda t, p: bool(t.classes),
        "remove_class": lambda t, p: bool(t.classes),
        "change_id": lambda t, p: "id" in t.attrs,
        "unwrap": lambda t, p: (
            bool(t.children) and t.tag not in ("tr", "tbody", "table", "form", "ul", "thead")
        ),
        "move_within": lambda t, p: len(p.children) > 1,
        "reorder": lambda t, p: len(t.children) > 1,
        "rename_attr": lambda t, p: any(
            k.startswith("data-") or k in ("name", "datetime") for k in t.attrs
        ),
        "drop_attr": lambda t, p: any(k.startswith("data-") for k in t.attrs),
        "retag": lambda t, p: t.tag in RETAG and t.tag != "td",
        "split_text": lambda t, p: len(t.text) > 3 and not t.children,
        "wrap": lambda t, p: t.tag not in ("tr", "td", "li", "caption", "thead", "tbody"),
        "lookalike_before": lambda t, p: (
            t.tag not in ("tbody", "thead", "caption", "body", "input")
        ),
        "lookalike_after": lambda t, p: t.tag not in ("tbody", "thead", "caption", "body", "input"),
    }
    fit = fits.get(kind, lambda t, p: True)
    pool = [pair for pair in pool if fit(*pair)] or [pair for pair in pairs if fit(*pair)]
    if not pool:
        return None
    target, parent = rng.choice(pool)
    assert parent is not None
    where = f"{target.tag}.{'.'.join(target.classes)}" if target.classes else target.tag
    if kind == "rename_class":
        i = rng.randrange(len(target.classes))
        new = _generated(rng) if rng.random() < 0.4 else f"{rng.choice(WORDS)}-{rng.randrange(9)}"
        target.classes[i] = new
    elif kind == "add_class":
        target.classes.append(_generated(rng) if rng.random() < 0.5 else rng.choice(WORDS))
    elif kind == "remove_class":
        target.classes.pop(rng.randrange(len(target.classes)))
    elif kind == "change_id":
        target.attrs["id"] = f"{rng.choice(WORDS)}-{rng.randrange(100)}"
    elif kind == "wrap":
        wrapper = Node(
            rng.choice(["div", "span", "section"]), [rng.choice(WORDS) + "-wrap"], {}, "", [target]
        )
        parent.children[parent.children.index(target)] = wrapper
    elif kind == "unwrap":
        i = parent.children.index(target)
        parent.children[i : i + 1] = target.children
        if target.text:
            parent.children.insert(i, Node("span", [], {}, target.text))
    elif kind == "move_within":
        parent.children.remove(target)
        parent.children.insert(rng.randrange(len(parent.children) + 1), target)
    elif kind == "move_across":
        containers = [c for c, _ in _walk(body) if c.children and c is not parent and c is not target
                      and target not in [d for d, _ in _walk(c)] and c.tag not in ("tr", "thead", "tbody", "table", "ul", "body")
                      and not any(c is d for d, _ in _walk(target))]  # fmt: skip
        if not containers or target.tag in ("tr", "td", "li", "caption"):
            return None
        parent.children.remove(target)
        into = rng.choice(containers)
        into.children.insert(rng.randrange(len(into.children) + 1), target)
    elif kind == "retag":
        target.tag = RETAG[target.tag]
    elif kind == "rename_attr":
        names = [k for k in target.attrs if k.startswith("data-") or k in ("name", "datetime")]
        old = rng.choice(names)
        new = f"data-{rng.choice(WORDS)}" if old.startswith("data-") else f"data-{old}"
        target.attrs = {new if k == old else k: v for k, v in target.attrs.items()}
    elif kind == "drop_attr":
        target.attrs.pop(rng.choice([k for k in target.attrs if k.startswith("data-")]))
    elif kind in ("lookalike_before", "lookalike_after"):
        twin = copy.deepcopy(target)
        for node, _ in _walk(twin):
            node.read = False
            node.attrs.pop("id", None)
            if node.text:
                node.text = rng.choice(OTHER_TEXT)
        twin.classes = [*twin.classes, "promo"]
        i = parent.children.index(target)
        parent.children.insert(i if kind == "lookalike_before" else i + 1, twin)
    elif kind == "reorder":
        rng.shuffle(target.children)
    elif kind == "split_text":
        cut = rng.randrange(1, len(target.text) - 1)
        target.children = [
            Node("span", [], {}, target.text[:cut]),
            Node("span", [], {}, target.text[cut:]),
        ]
        target.text = ""
    return f"{kind} {where}"


@dataclass
class Change:
    site: str
    seed: int
    kinds: list[str]
    said: list[str]
    html: str
    shown: list[str]  # the texts of the elements a template reads, in the changed page's order
    texts: list[str]  # every element's text, in the changed page's order
    values: frozenset[str]  # every attribute value on the changed page

    def stands(self, reads: list[str | list[Any]]) -> bool:
        """Whether every value a template read when recorded (an element's text or attribute
        value; a list's items) still stands on the changed page as it was read, a list's items
        in the recorded order. After a change that fails it (a value dropped, a list reordered,
        an item moved out of order), no selector gives the recorded output: the case's
        expectation is no longer what the page shows. The generator's knowledge, never
        repair's: the bench sorts its figures by it."""
        texts = [_plain(t) for t in self.texts]
        for read in reads:
            if isinstance(read, list):
                left = iter(texts)
                if not all(any(_plain(str(item)) == t for t in left) for item in read):
                    return False
            elif _plain(read) not in texts and read not in self.values:
                return False
        return True


def _text(node: Node) -> str:
    return node.text + "".join(_text(c) for c in node.children)


def _plain(text: str) -> str:
    return " ".join(text.split())


def as_shown(values: dict[str, Any], shown: list[str]) -> dict[str, Any]:
    """The values a page gave, as the changed page shows them: a list whose items all stand on
    it in another order (the site reordered it), in that order; the rest as they were."""
    out = dict(values)
    for key, value in values.items():
        if not isinstance(value, list) or not value:
            continue
        left, order = Counter(value), []
        for text in shown:
            if left[text] > 0:
                order.append(text)
                left[text] -= 1
        if len(order) == len(value):
            out[key] = order
    return out


def original(site: str) -> str:
    return drawn(
        site, "<!doctype html><meta charset=utf-8><title>bench</title>" + SITES[site][0]().html()
    )


def change(site: str, seed: int) -> Change:
    """One to three changes of the site's page, drawn from `seed` alone."""
    rng = random.Random(f"{site}/{seed}")
    body = SITES[site][0]()
    kinds = rng.sample(KINDS, rng.choice([1, 1, 2, 2, 3]))
    said = [s for kind in kinds if (s := _apply(kind, body, rng))]
    return Change(
        site,
        seed,
        kinds,
        said,
        drawn(site, "<!doctype html><meta charset=utf-8><title>bench</title>" + body.html()),
        [_text(node) for node, _ in _walk(body) if node.read],
        [_text(node) for node, _ in _walk(body)],
        frozenset(v for node, _ in _walk(body) for v in node.attrs.values()),
    )
