"""How a `dsl` command's --help shows its examples: one helper, so every command shows them
the same way (tests/cli/test_help.py walks the command tree). Imports click only.
"""

from __future__ import annotations


def examples(*lines: str) -> str:
    """An epilog of example command lines, kept as written (click's \\b: no re-wrapping)."""
    shown = "\n".join(f"  {line}" for line in lines)
    return f"\b\nExample{'s' if len(lines) > 1 else ''}:\n{shown}"
