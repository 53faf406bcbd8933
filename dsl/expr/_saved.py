"""Expressions parsed by earlier processes, kept on disk as their ASTs (as Python keeps .pyc
files), so a `dsl validate` of expressions parsed before does not import lark.

One file in the parser's cache folder, named by (and holding) a key made of the size and
modification time of expr.lark, of the modules that build the AST and of lark itself, so a
changed grammar, AST or lark never reads a tree it did not build. Only trees are kept, never a
syntax error. A process reads the file once, at its first expression, and writes it at exit
when it parsed new texts: merged with what is on disk then, cut to MAX_ENTRIES and MAX_BYTES
(the newest kept), written whole to a temporary file and renamed, so processes starting or
ending together read a whole file or none. Where no key can be made (no source files, as in a
zipapp) or nothing can be written, expressions are parsed by lark as before.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import marshal
import os
import sys
import zlib
from pathlib import Path
from typing import Any

from taskplate.contract import write_whole

from . import _ast as _expr_ast
from ._ast import Node

# A process reads the whole file (about 2 ms at MAX_BYTES, against some 25 ms for importing
# lark), so the file stays small: enough for the expressions of a folder of templates.
MAX_ENTRIES = 1024
MAX_BYTES = 128 * 1024
_CLASSES: dict[str, type[Node]] = {
    cls.__name__: cls
    for cls in vars(_expr_ast).values()
    if isinstance(cls, type) and issubclass(cls, Node) and cls is not Node
}


def cache_folder() -> Path:
    """Where built parsers and parsed expressions are kept: $XDG_CACHE_HOME/taskplate, else
    ~/.cache/taskplate."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "taskplate"


def _key() -> str | None:
    here = Path(__file__).parent
    spec = importlib.util.find_spec("lark")
    origin = spec.origin if spec is not None else None
    if origin is None:
        return None
    parts = [f"marshal {marshal.version}", sys.version]
    try:
        for path in (here / "expr.lark", Path(_expr_ast.__file__), here / "_lark.py"):
            parts.append(_stamp(path))
        parts.append(_stamp(Path(origin)))
    except OSError:
        return None
    return "\n".join(parts)


def _stamp(path: Path) -> str:
    stat = path.stat()
    return f"{path} {stat.st_mtime_ns} {stat.st_size}"


class _Store:
    def __init__(self) -> None:
        self.key: str | None = None
        self.path: Path | None = None
        self.trees: dict[str, Any] = {}  # text -> encoded tree, read from the file
        self.new: dict[str, Any] = {}  # parsed by this process, written at exit
        try:
            self.key = _key()
            if self.key is not None:
                name = f"exprs-{zlib.crc32(self.key.encode()):08x}.marshal"
                self.path = cache_folder() / name
                self.trees = self._read()
        except (OSError, RuntimeError):  # no home folder: nothing kept
            self.path = None

    def _read(self) -> dict[str, Any]:
        assert self.path is not None
        try:
            data = self.path.read_bytes()
            if len(data) > MAX_BYTES:  # written with other caps: read as empty, replaced at exit
                return {}
            key, trees = marshal.loads(data)
        except Exception:  # missing, damaged or foreign: (re)written at exit
            return {}
        return trees if key == self.key and isinstance(trees, dict) else {}

    def write(self) -> None:
        if self.path is None or not self.new:
            return
        with contextlib.suppress(OSError, RuntimeError):
            trees = self._read()
            for text in self.new:  # this process's texts are the newest
                trees.pop(text, None)
            items = [*trees.items(), *self.new.items()][-MAX_ENTRIES:]
            data = marshal.dumps((self.key, dict(items)))
            while len(data) > MAX_BYTES and items:
                items = items[len(items) // 2 :] if len(items) > 1 else []
                data = marshal.dumps((self.key, dict(items)))
            write_whole(self.path, data)


_store: _Store | None = None


def _the_store() -> _Store:
    global _store
    if _store is None:
        _store = _Store()
    return _store


def saved(text: str) -> Node | None:
    """The tree an earlier process parsed from `text`, if it kept one."""
    store = _the_store()
    encoded = store.trees.get(text)
    if encoded is None:
        return None
    try:
        return _decode(encoded)  # type: ignore[no-any-return]
    except Exception:  # a tree of another shape than this code's: parse it again
        store.trees.pop(text, None)
        return None


def keep(text: str, node: Node) -> None:
    """Keep a tree this process parsed, to be written at exit."""
    store = _the_store()
    if store.path is None or len(store.new) >= MAX_ENTRIES:
        return
    if not store.new:
        atexit.register(store.write)
    store.new[text] = _encode(node)


def _encode(value: Any) -> Any:
    """A node as a list: its class name, then its fields; a tuple of nodes stays a tuple."""
    if isinstance(value, Node):
        return [type(value).__name__, *(_encode(getattr(value, f)) for f in _fields(value))]
    if isinstance(value, tuple):
        return tuple(_encode(item) for item in value)
    return value


def _fields(node: Node) -> Any:
    return node.__match_args__


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return _CLASSES[value[0]](*(_decode(item) for item in value[1:]))
    if isinstance(value, tuple):
        return tuple(_decode(item) for item in value)
    return value
