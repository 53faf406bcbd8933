"""How much a generated or fuzz test runs: a bounded, fixed-seed run in `make test`, a longer
random one under `make fuzz` (TASKPLATE_FUZZ=long). Tests mark themselves `@pytest.mark.fuzz`."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings

LONG = os.environ.get("TASKPLATE_FUZZ") == "long"
LONG_FACTOR = 20  # `make fuzz` runs this many times the examples of `make test`


def fuzz_settings(examples: int, **overrides: Any) -> settings:
    """`examples` with a fixed seed in `make test`; LONG_FACTOR times as many, random, in
    `make fuzz`. No deadline: Chromium and a loaded machine make single examples slow."""
    options: dict[str, Any] = {
        "max_examples": examples * LONG_FACTOR if LONG else examples,
        "deadline": None,
        "derandomize": not LONG,
        "database": None,
        "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    }
    options.update(overrides)
    return settings(**options)
