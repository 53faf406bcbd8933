"""expr.lark as a lark LALR parser, built once per process and kept on disk between processes
(lark's own serialization), and lark's terminal names said as a user reads them.

The cache file is named by a hash of the grammar text, lark's version and the options, so a
changed grammar or another lark never loads a stale parser; it is written whole or not at all
(a temporary file renamed), so processes starting together read it safely. Where nothing can be
written (a read-only home), each process builds the parser itself.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import pkgutil
import sys
from collections.abc import Collection
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from taskplate.contract import write_whole

from ._saved import cache_folder


def _import_lark() -> ModuleType:
    """lark imports the `regex` module whenever it is installed, for Unicode categories in a
    grammar's patterns; expr.lark has none, and checking a template should not pay for it.
    (Once per process, while taskplate.dsl loads: no other import of `regex` runs meanwhile.)"""
    if "regex" in sys.modules:
        import lark
    else:
        sys.modules["regex"] = None  # type: ignore[assignment]  # lark falls back to `re`
        try:
            import lark
        finally:
            del sys.modules["regex"]
    return lark


if TYPE_CHECKING:
    import lark as lark
else:
    lark = _import_lark()

OPTIONS = {
    "parser": "lalr",
    "lexer": "basic",
    "propagate_positions": True,
    "maybe_placeholders": False,
}
# Terminals said as words; the others are punctuation and keywords, said as their text.
_WORDS = {"NAME": "a name", "NUMBER": "a number", "STRING": "a string", "$END": "the end"}
_KEYWORDS = ("IN", "TRUE", "FALSE", "NULL")  # names too, after "." and as a map's key
_VALUE_START = frozenset(
    {"NAME", "NUMBER", "STRING", "TRUE", "FALSE", "NULL", "LPAR", "LSQB", "LBRACE", "BANG", "MINUS"}
)


def grammar_text() -> str:
    # pkgutil, as _json_schema_check.py: importlib.resources would load zipfile for its readers
    data = pkgutil.get_data(__package__, "expr.lark")
    assert data is not None, "expr.lark is shipped beside this module"
    return data.decode("utf-8")


def cache_file(grammar: str) -> Path:
    key = f"{grammar}\0{lark.__version__}\0{sorted(OPTIONS.items())}\0{sys.version_info[:2]}"
    return cache_folder() / f"expr-{hashlib.sha256(key.encode()).hexdigest()[:24]}.lark"


def _load(path: Path) -> lark.Lark | None:
    try:
        with path.open("rb") as file:
            return lark.Lark.load(file)
    except FileNotFoundError:
        return None
    except Exception:  # a damaged or foreign file: build the parser again and replace it
        return None


def _save(built: lark.Lark, path: Path) -> None:
    buffer = io.BytesIO()
    built.save(buffer)
    with contextlib.suppress(OSError):  # read-only or full: the next process builds it again
        write_whole(path, buffer.getvalue())


@functools.cache
def parser() -> lark.Lark:
    """The one parser of expr.lark in this process."""
    grammar = grammar_text()
    try:
        path: Path | None = cache_file(grammar)
    except RuntimeError:  # no home folder to keep a cache in
        path = None
    built = _load(path) if path else None
    if built is None:
        built = lark.Lark(grammar, **OPTIONS)
        if path:
            _save(built, path)
    return built


@functools.cache
def _literal(terminal: str) -> str:
    pattern = parser().get_terminal(terminal).pattern
    return f"'{pattern.value}'"


def expected_words(expected: Collection[str]) -> str:
    """lark's expected terminals in words: `',', ')' or an operator`."""
    left = set(expected)
    words = []
    if left >= _VALUE_START:
        left -= _VALUE_START
        words.append("a value")
    if "NAME" in left:
        left -= {"NAME", *_KEYWORDS}
        words.append("a name")
    for word in ("NUMBER", "STRING"):
        if word in left:
            left.discard(word)
            words.append(_WORDS[word])
    operators = {t for t in left if t not in _WORDS and _literal(t) not in _CLOSERS}
    if len(operators) > 3:
        left -= operators
        words.append("an operator")
    end = "$END" in left
    left.discard("$END")
    words = sorted(_literal(t) for t in left) + words
    if end:
        words.append("the end of the expression")
    if not words:
        return "something else"
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


_CLOSERS = frozenset({"')'", "']'", "'}'", "','", "':'"})
