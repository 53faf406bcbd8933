"""`${{ }}` expressions: their AST (`_ast`), read by lark's parser of expr.lark (`_grammar`,
`_lark`) or from the AST an earlier process kept (`_saved`, `_syntax`), their types inferred
(`_infer`), evaluated under a budget (`_eval`), and the functions they call (`_functions`,
`_function`, `_fn_*`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._ast import Attr, ExpressionError, Index, Lit, Macro, Name, Node, _children
    from ._eval import Budget, evaluate, truthy
    from ._functions import FUNCTIONS, check_size, to_text, url_normalize
    from ._infer import ExprScope, StepRef, closest, hint_budget, infer, suggest
    from ._saved import cache_folder
    from ._syntax import parse_expression

# Public names: the TYPE_CHECKING imports above, loaded on first use: `dsl validate` of a
# template whose expressions were read before loads no parser.
__getattr__ = lazy_names(__name__, globals())

__all__ = [
    "FUNCTIONS",
    "Attr",
    "Budget",
    "ExprScope",
    "ExpressionError",
    "Index",
    "Lit",
    "Macro",
    "Name",
    "Node",
    "StepRef",
    "_children",
    "cache_folder",
    "check_size",
    "closest",
    "evaluate",
    "hint_budget",
    "infer",
    "parse_expression",
    "suggest",
    "to_text",
    "truthy",
    "url_normalize",
]
