"""The page pruned to its kept blocks: the smallest subtree holding them, other text removed,
emptied elements and lone images dropped. Pure functions of a parsed page; no voting."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._blocks import Block


def prune(root: Any, page_blocks: list[Block], kept: list[bool]) -> Any | None:
    """The smallest subtree holding every kept block, with the other blocks' text removed,
    emptied elements dropped, and images kept only next to a kept block."""
    if not any(kept):
        return None
    for block, keep in zip(page_blocks, kept, strict=True):
        if not keep:
            for element, slot in block.pieces:
                setattr(element, slot, None)
    top = _common_ancestor(
        element if slot == "text" else element.getparent()
        for block, keep in zip(page_blocks, kept, strict=True)
        if keep
        for element, slot in block.pieces
    )
    _drop_lone_images(top, page_blocks, kept)
    _drop_empty(top)
    while True:
        children = [c for c in top if isinstance(c.tag, str)]
        if len(children) != 1 or (top.text or "").strip():
            return top
        if any((c.tail or "").strip() for c in children):
            return top
        top = children[0]


def _common_ancestor(elements: Iterable[Any]) -> Any:
    """The deepest element holding all the given ones."""
    path: list[Any] = []
    on_path: dict[Any, int] = {}
    for element in elements:
        if not path:
            path = [element, *element.iterancestors()][::-1]
            on_path = {e: depth for depth, e in enumerate(path)}
            continue
        while element not in on_path:
            element = element.getparent()
        depth = on_path[element]
        for gone in path[depth + 1 :]:
            del on_path[gone]
        del path[depth + 1 :]
    return path[-1]


_KEEP_EMPTY = frozenset({"img", "br", "hr"})


def _drop_lone_images(root: Any, page_blocks: list[Block], kept: list[bool]) -> None:
    owner: dict[Any, int] = {}
    for index, block in enumerate(page_blocks):
        for element, _ in block.pieces:
            owner.setdefault(element, index)
    previous = -1
    images = []
    for element in root.iter():
        if element in owner:
            previous = owner[element]
        elif element.tag == "img":
            images.append((element, previous))
    for image, before in images:
        after = before + 1
        near = (before >= 0 and kept[before]) or (after < len(kept) and kept[after])
        if not near or not image.get("src"):
            image.drop_tree()


def _drop_empty(element: Any) -> bool:
    """Remove descendants with neither text nor kept images, keeping the spaces they held; True
    when element is empty."""
    empty = not (element.text or "").strip()
    children = [c for c in element if isinstance(c.tag, str)]
    for comment in [c for c in element if not isinstance(c.tag, str)]:
        comment.drop_tree()
    emptied = [_drop_empty(child) and child.tag not in _KEEP_EMPTY for child in children]
    in_row = element.tag == "tr" and not all(emptied)  # a row keeps its empty cells in place
    for child, gone in zip(children, emptied, strict=True):
        if gone and not in_row:
            # an element holding only a space (a code line's `<span> </span>`) leaves the space
            child.tail = (child.text or "") + (child.tail or "")
            child.drop_tree()
        else:
            empty = False
        if (child.tail or "").strip():
            empty = False
    return empty and element.tag not in _KEEP_EMPTY
