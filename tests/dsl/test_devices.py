"""dsl/devices.json is Playwright's own device list (`playwright.devices`), which a template's
`browser.device` is checked against: when Playwright's list changes, this test says so."""

from __future__ import annotations

import json

import pytest
from playwright.async_api import async_playwright

from taskplate.dsl import device_descriptor, device_names

pytestmark = pytest.mark.anyio


async def test_the_device_list_is_playwrights_own() -> None:
    async with async_playwright() as playwright:
        theirs = json.loads(json.dumps(playwright.devices))
    ours = {name: device_descriptor(name) for name in device_names()}
    assert ours == theirs, (
        "Playwright's devices changed: write dsl/devices.json again from playwright.devices "
        "(json.dump(p.devices, f, indent=0, sort_keys=True))"
    )
