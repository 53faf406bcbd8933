"""Diagnostics: what the checker reports, where in the user's file, and how it is printed.

Plain values only; no knowledge of templates or of the rules that produce them.
"""

from __future__ import annotations

import enum
import functools
import json

from taskplate.contract import lazy_dataclass


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


@lazy_dataclass(frozen=True, order=True)
class Span:
    """A region of a source file, 1-based lines and columns; end is exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int

    @staticmethod
    def point(line: int, column: int, length: int = 1) -> Span:
        return Span(line, column, line, column + max(length, 1))


UNKNOWN_SPAN = Span(1, 1, 1, 2)


@lazy_dataclass(frozen=True)
class Diagnostic:
    file: str
    span: Span
    severity: Severity
    rule: str
    message: str
    pointer: str = ""

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.span.line, self.span.column, self.rule, self.message)

    def header(self) -> str:
        s = self.span
        return f"{self.file}:{s.line}:{s.column}: {self.severity}: {self.message} [{self.rule}]"

    def to_json(self) -> dict[str, object]:
        s = self.span
        return {
            "file": self.file,
            "line": s.line,
            "column": s.column,
            "endLine": s.end_line,
            "endColumn": s.end_column,
            "severity": str(self.severity),
            "rule": self.rule,
            "message": self.message,
            "pointer": self.pointer,
        }


# A source line is shown up to this wide around its span: a one-line template of a megabyte
# must not print a megabyte for each of its problems.
_SHOWN = 120


@functools.lru_cache(maxsize=8)
def _lines(source: str) -> list[str]:
    """The source's lines, split once for all of its diagnostics (a str keeps its hash)."""
    return source.splitlines()


def format_text(diagnostic: Diagnostic, source: str | None) -> str:
    """actionlint's style: the header, then the source line with ^~~~ under the span."""
    lines = [diagnostic.header()]
    if source is None:
        return lines[0]
    source_lines = _lines(source)
    s = diagnostic.span
    if not 1 <= s.line <= len(source_lines):
        return lines[0]
    text = source_lines[s.line - 1]  # a tab shows as one space (expandtabs(1)), below
    width = len(str(s.line))
    end = s.end_column if s.end_line == s.line else len(text) + 1
    length = max(1, min(end, len(text) + 1) - s.column)
    column = s.column
    if len(text) > _SHOWN:  # a window of the line around the span's start
        start = max(0, min(column - 1 - _SHOWN // 3, len(text) - _SHOWN))
        after = "…" if start + _SHOWN < len(text) else ""
        text = ("…" if start else "") + text[start : start + _SHOWN] + after
        column = column - start + (1 if start else 0)
        length = max(1, min(length, _SHOWN - column + 1))
    lines.append(f"{s.line:>{width + 3}} | {text.expandtabs(1)}")
    lines.append(f"{'':>{width + 3}} | {' ' * (column - 1)}^{'~' * (length - 1)}")
    return "\n".join(lines)


def format_json(diagnostics: list[Diagnostic]) -> str:
    return json.dumps([d.to_json() for d in diagnostics], indent=2, ensure_ascii=False)


def has_errors(diagnostics: list[Diagnostic], strict: bool = False) -> bool:
    return any(d.severity is Severity.ERROR or strict for d in diagnostics)


__all__ = [
    "UNKNOWN_SPAN",
    "Diagnostic",
    "Severity",
    "Span",
    "format_json",
    "format_text",
    "has_errors",
]
