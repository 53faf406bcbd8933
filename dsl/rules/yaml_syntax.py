"""`yaml-syntax`: a file that is not YAML the checker reads, or passes its bounds.

The loader (`dsl/_yaml.py`) finds these before there is a template to check; `_checker.py`
reports its one error under this rule. No hook: nothing else is read.
"""

from __future__ import annotations

from .._check_context import Rule
from .._diagnostics import Severity

RULE = Rule(
    "yaml-syntax",
    Severity.ERROR,
    "YAML that does not parse; duplicate keys; tabs used to indent; custom tags; merge keys; "
    "a document of more than 20,000 values (anchors and aliases expanded); nesting deeper than "
    "100; a number of more than 4,300 digits",
)
