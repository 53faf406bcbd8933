"""Where taskplate keeps its data: TASKPLATE_HOME (default ~/.taskplate).

Paths only; creating and securing them is the caller's business.
"""

from __future__ import annotations

import os
from pathlib import Path


def data_home() -> Path:
    return Path(os.environ.get("TASKPLATE_HOME") or Path.home() / ".taskplate").expanduser()
