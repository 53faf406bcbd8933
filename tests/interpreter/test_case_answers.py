"""A provider's tool answers kept with a case and given back offline: each call recorded with
its answer or its error (code kept), answered from the recording in recorded order, the
built-in actions untouched, and a call never recorded refused with a clear error. The real
provider and `dsl record`/`dsl test` are in tests/providers/test_recorded_calls.py."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import RecordingTools, ReplayTools
from taskplate.providers import ProviderCatalog, ServerListing, ToolInfo, provider_specs
from taskplate.stdlib import REGISTRY

pytestmark = pytest.mark.anyio
WRITE = ToolInfo("write", "Write a file.", {"type": "object", "properties": {"path": {}}})


class Provider:
    """A stand-in for the live server: answers `wrote PATH`, refuses paths outside `ok/`, and
    counts its calls."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def call(self, provider: str, tool: str, args: dict[str, Any]) -> Any:
        self.calls.append(args)
        if not args["path"].startswith("ok/"):
            raise TaskplateError(
                ErrorCode.PROVIDER_ERROR, f"{tool}: access denied", "Look.", {"provider": provider}
            )
        return type(
            "Result", (), {"content": [type("Text", (), {"text": f"wrote {args['path']}"})]}
        )


def catalog(provider: Provider | None) -> ProviderCatalog:
    listing = ServerListing("disk", "disk-server", "1.0", (WRITE,))
    specs = provider_specs({"disk": listing}, {}, provider)  # type: ignore[arg-type]
    return ProviderCatalog(REGISTRY, {s.name: s for s in specs})


async def call(actions: Any, path: str) -> dict[str, Any]:
    spec = actions["mcp.disk.write"]
    result: dict[str, Any] = await spec.run(None, {"path": path})
    return result


async def test_calls_are_recorded_with_their_answers_and_errors_then_replayed_in_order() -> None:
    live = Provider()
    recording = RecordingTools()
    recorded = recording.around(catalog(live))
    assert recorded["navigate"] is REGISTRY.get("navigate")  # built-in actions as they are
    assert await call(recorded, "ok/a.md") == {"text": "wrote ok/a.md"}
    with pytest.raises(TaskplateError):
        await call(recorded, "/etc/passwd")
    assert await call(recorded, "ok/a.md") == {"text": "wrote ok/a.md"}
    assert recording.calls == [
        {
            "action": "mcp.disk.write",
            "arguments": {"path": "ok/a.md"},
            "answer": {"text": "wrote ok/a.md"},
        },
        {
            "action": "mcp.disk.write",
            "arguments": {"path": "/etc/passwd"},
            "error": {
                "error": "write: access denied",
                "errorCode": "PROVIDER_ERROR",
                "recoverHint": "Look.",
                "details": {"provider": "disk"},
            },
        },
        {
            "action": "mcp.disk.write",
            "arguments": {"path": "ok/a.md"},
            "answer": {"text": "wrote ok/a.md"},
        },
    ]
    recording.calls[2]["answer"] = {"text": "second"}  # the same call, another answer

    offline = ReplayTools(recording.calls).around(catalog(None))  # no provider at all
    assert await call(offline, "ok/a.md") == {"text": "wrote ok/a.md"}
    with pytest.raises(TaskplateError) as refused:
        await call(offline, "/etc/passwd")
    assert (refused.value.code, refused.value.message) == (
        ErrorCode.PROVIDER_ERROR,
        "write: access denied",
    )
    assert refused.value.details == {"provider": "disk"}
    assert await call(offline, "ok/a.md") == {"text": "second"}
    assert len(live.calls) == 3  # the replay called nothing


async def test_a_call_never_recorded_fails_saying_to_record_again() -> None:
    offline = ReplayTools(
        [{"action": "mcp.disk.write", "arguments": {"path": "ok/a.md"}, "answer": {"text": "a"}}]
    ).around(catalog(None))
    with pytest.raises(TaskplateError) as other:  # a call the recording does not hold
        await call(offline, "ok/b.md")
    assert await call(offline, "ok/a.md") == {"text": "a"}
    with pytest.raises(TaskplateError) as again:  # made once more than recorded
        await call(offline, "ok/a.md")
    for refused in (other.value, again.value):
        assert refused.code is ErrorCode.PROVIDER_UNAVAILABLE
        assert "the recording holds no answer for this call of mcp.disk.write" in refused.message
        assert "Record the case again with `dsl record`" in refused.recover_hint


async def test_a_call_cut_short_when_recorded_waits_to_be_cut_short_again() -> None:
    class Slow(Provider):
        async def call(self, provider: str, tool: str, args: dict[str, Any]) -> Any:
            await anyio.sleep_forever()

    recording = RecordingTools()
    recorded = recording.around(catalog(Slow()))
    with anyio.move_on_after(0.05):  # the step's timeout
        await call(recorded, "ok/a.md")
    assert recording.calls == [{"action": "mcp.disk.write", "arguments": {"path": "ok/a.md"}}]
    offline = ReplayTools(recording.calls).around(catalog(None))
    with anyio.move_on_after(0.05) as scope:
        await call(offline, "ok/a.md")
    assert scope.cancelled_caught
