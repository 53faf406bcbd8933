"""Writing a template's test cases (`dsl record`): a case added to the template's case file
(replacing one of the same name), its inputs stored with each secret as a reference to an
environment variable. Reading and checking them is dsl/_cases.py's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from taskplate.contract import write_whole
from taskplate.dsl import ENV_KEY, SECRET_PREFIX, case_file_data, case_file_of

from ..runs import secret_names


def secret_reference(name: str) -> dict[str, str]:
    return {ENV_KEY: SECRET_PREFIX + "".join(c if c.isalnum() else "_" for c in name.upper())}


def stored_inputs(inputs: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The inputs as a case file keeps them: each secret as a reference to its variable."""
    secrets = secret_names(schema)
    return {k: secret_reference(k) if k in secrets else v for k, v in inputs.items()}


def save_case(template: Path, case: dict[str, Any]) -> Path:
    """Adds the case to the template's case file (replacing one of the same name), creating the
    file if need be; written whole (a temporary file renamed into place)."""
    file = case_file_of(template)
    # a broken file is not extended blindly
    data: dict[str, Any] = (
        case_file_data(file) if file.exists() else {"template": template.name, "cases": []}
    )
    data["cases"] = [c for c in data["cases"] if c.get("name") != case["name"]] + [case]
    header = (
        f"# Test cases of {template.name}: `dsl test` replays them offline from their "
        "recordings,\n# `dsl test --live` against the sites. Edit or loosen the expectations "
        "(docs/testing.md).\n"
    )
    text = header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    write_whole(file, text.encode("utf-8"))
    return file
