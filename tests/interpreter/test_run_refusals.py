"""What a run refuses before it is stored, for the CLI and MCP alike (#28): a run timeout
(options.timeoutMs) outside 1 to maxRunTimeoutMs ms (-5 made a run that failed RUN_TIMEOUT, 0
was ignored, 2**63 accepted); an input declared `format: uri` that is no absolute URL."""

from __future__ import annotations

from typing import Any

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import RunManager

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("timeout", [-5, 0, 900_001, 2**63, 1.5, "60000", True])
async def test_a_timeout_out_of_bounds_is_refused_before_the_run_is_stored(
    manager: RunManager, timeout: Any
) -> None:
    before = (await manager.list(None, None, 100, 0))["total"]
    with pytest.raises(TaskplateError) as refused:
        await manager.submit(
            "batch_extract_pages", {"urls": ["https://a.test/"]}, options={"timeoutMs": timeout}
        )
    assert refused.value.code is ErrorCode.INVALID_PARAMETER
    assert "from 1 to 900000" in refused.value.message and refused.value.recover_hint
    assert (await manager.list(None, None, 100, 0))["total"] == before


@pytest.mark.parametrize(
    "url", ["https://a.test/a b", "https://a.test/\nx", "http://", "http://[::1/"]
)
async def test_an_input_declared_format_uri_must_be_an_absolute_url(
    manager: RunManager, url: str
) -> None:
    before = (await manager.list(None, None, 100, 0))["total"]
    with pytest.raises(TaskplateError) as refused:
        await manager.submit("batch_extract_pages", {"urls": ["https://a.test/", url]})
    assert refused.value.code is ErrorCode.INVALID_PARAMETER
    assert refused.value.details["violations"][0]["pointer"] == "/urls/1"
    assert (await manager.list(None, None, 100, 0))["total"] == before
