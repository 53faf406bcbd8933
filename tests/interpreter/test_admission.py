"""What a run admits: inputs up to maxInputBytes, URLs up to 8 KiB, well-formed profile ids;
anything else is INVALID_PARAMETER before a run is stored."""

from __future__ import annotations

from typing import Any

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import MAX_URL_BYTES, RunManager, admit

pytestmark = pytest.mark.anyio


def refused(call: Any) -> TaskplateError:
    with pytest.raises(TaskplateError) as caught:
        call()
    assert caught.value.code is ErrorCode.INVALID_PARAMETER and caught.value.recover_hint
    return caught.value


def test_inputs_larger_than_the_limit_are_refused() -> None:
    admit({"text": "x" * 1000}, 2000)
    error = refused(lambda: admit({"text": "x" * 3000}, 2000))
    assert "maxInputBytes (2000)" in error.message and error.details["bytes"] > 3000


def test_a_url_longer_than_8_kib_is_refused_wherever_it_is() -> None:
    long_url = "https://example.com/?q=" + "a" * MAX_URL_BYTES
    admit({"urls": ["https://example.com/?q=" + "a" * 8000]}, 1 << 20)
    error = refused(lambda: admit({"urls": ["https://a.example/", long_url]}, 1 << 20))
    assert error.details["pointer"] == "/urls/1" and "8192" in error.message
    refused(lambda: admit({"deep": [[{"u": "data:" + "b" * MAX_URL_BYTES}]]}, 1 << 20))
    admit({"text": "plain words " * 1000}, 1 << 20)  # long text that names no scheme is fine


async def test_a_refused_run_is_never_stored(manager: RunManager) -> None:
    before = (await manager.list(None, None, 100, 0))["total"]
    cases: list[tuple[dict[str, Any], str | None]] = [
        ({"urls": ["https://example.com/" + "a" * (10 << 20)]}, None),
        ({"urls": ["https://example.com/?" + "a" * (MAX_URL_BYTES + 1)]}, None),
        ({"urls": ["https://example.com/"]}, ""),
        ({"urls": ["https://example.com/"]}, "../escape"),
    ]
    for inputs, profile_id in cases:
        with pytest.raises(TaskplateError) as caught:
            await manager.submit("batch_extract_pages", inputs, profile_id=profile_id)
        assert caught.value.code is ErrorCode.INVALID_PARAMETER, caught.value
    assert (await manager.list(None, None, 100, 0))["total"] == before
    assert manager.limits.to_json()["maxInputBytes"] == 1 << 20
