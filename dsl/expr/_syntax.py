"""Reading `${{ }}` text: the AST of _expr_ast.py, as lark's parser of expr.lark builds it
(_expr_lark.py), or as an earlier process built it (_expr_saved.py), so a template whose
expressions were all parsed before is checked without importing lark.
"""

from __future__ import annotations

import functools

from . import _saved as _expr_saved
from ._ast import MAX_SOURCE, ExpressionError, Node


@functools.lru_cache(maxsize=4096)
def parse_expression(text: str) -> Node:
    """Parse the text between `${{` and `}}`; raises ExpressionError with offsets."""
    if len(text) > MAX_SOURCE:
        raise ExpressionError(f"expression is longer than {MAX_SOURCE} characters", 0, len(text))
    if not text.strip():
        raise ExpressionError("empty expression", 0, len(text))
    node = _expr_saved.saved(text)
    if node is None:
        from ._lark import read_expression

        node = read_expression(text)  # a syntax error is not kept: lark says it each time
        _expr_saved.keep(text, node)
    return node
