"""Playwright's device descriptors (devices.json, taken from `playwright.devices`; a test holds
it to Playwright's own list): the names a template's `browser.device` may use. No Playwright.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any


@functools.cache
def _devices() -> dict[str, dict[str, Any]]:
    text = resources.files("taskplate.dsl").joinpath("devices.json").read_text(encoding="utf-8")
    devices: dict[str, dict[str, Any]] = json.loads(text)
    return devices


def device_names() -> list[str]:
    return sorted(_devices())


def device_descriptor(name: str) -> dict[str, Any]:
    """new_context's options for the device (snake_case, as Python's Playwright takes them)."""
    return dict(_devices()[name])
