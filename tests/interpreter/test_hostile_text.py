"""A lone UTF-16 surrogate (not valid Unicode; a page's script can write one) is replaced by
U+FFFD where it enters a run: from a page (title, content, an `evaluate` value or error), from
the caller's inputs. The store, the step rows, the artifacts and the answers never meet it."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from taskplate.contract import TrustLevel
from taskplate.dsl import check_source
from taskplate.interpreter import RunManager
from taskplate.stdlib import REGISTRY
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio
LONE = "A\ud800B"
CLEAN = "A\ufffdB"
SCRIPT = "'A' + String.fromCharCode(0xD800) + 'B'"

HOSTILE = f"""
template: hostile_text
version: 1.0.0
trust: [local]
inputs:
  type: object
  properties:
    text: {{type: string}}
    url: {{type: string}}
steps:
  - id: open
    action: navigate
    with: {{url: "${{{{ inputs.url }}}}"}}
  - id: js
    action: evaluate
    with: {{script: "() => [{SCRIPT}, {{[{SCRIPT}]: 1}}]"}}
  - id: thrown
    action: evaluate
    onError: continue
    with: {{script: "() => {{ throw new Error({SCRIPT}); }}"}}
  - id: big
    action: evaluate
    with: {{script: "() => ({SCRIPT}).repeat(120000)"}}
output:
  input: ${{{{ inputs.text }}}}
  title: ${{{{ steps.open.title }}}}
  value: ${{{{ steps.js.value }}}}
  big: ${{{{ steps.big.value }}}}
"""


def no_surrogate(value: Any) -> str:
    """The value as UTF-8 JSON (which a lone surrogate cannot be), for asserting on."""
    text = json.dumps(value, ensure_ascii=False)
    text.encode()
    return text


async def wait(manager: RunManager, run_id: str) -> dict[str, Any]:
    with anyio.fail_after(60):
        return await manager.wait(run_id)


async def test_batch_extract_pages_reads_a_page_that_writes_a_lone_surrogate(
    manager: RunManager, site: FixtureServer
) -> None:
    run_id = await manager.submit(
        "batch_extract_pages",
        {"urls": [site.url("/surrogate.html")], "format": "text", "onlyMainContent": False},
    )
    run = await wait(manager, run_id)
    assert run["status"] == "succeeded", run.get("error")
    (page,) = run["result"]["items"]
    assert page["success"] and page["title"] == CLEAN and CLEAN in page["content"]
    export = await manager.artifacts.read(run["result"]["exportArtifactId"], 0, 1_000_000)
    assert CLEAN in export.data.decode("utf-8")
    described = await manager.describe(run_id, include_steps=True)
    assert CLEAN in no_surrogate(described["steps"])


async def test_inputs_page_values_errors_and_artifacts_are_valid_unicode(
    manager: RunManager, site: FixtureServer
) -> None:
    checked = check_source(HOSTILE, "hostile_text.yaml", REGISTRY)
    assert checked.ok and checked.template is not None, checked.diagnostics
    run_id = await manager.submit(
        "hostile_text",
        {"text": LONE, "url": site.url("/surrogate.html")},
        template=checked.template,
        trust=TrustLevel.LOCAL,
    )
    run = await wait(manager, run_id)
    assert run["status"] == "succeeded", run.get("error")
    described = await manager.describe(run_id, include_steps=True)
    text = no_surrogate(described)
    assert "\ud800" not in text
    steps = {s["stepId"]: s for s in described["steps"]}
    assert CLEAN in steps["thrown"]["error"]["message"]
    # the result is larger than an answer may be: it is an artifact, valid UTF-8 throughout
    (artifact,) = [a for a in described["artifacts"] if a["name"].startswith("result")]
    chunk = await manager.artifacts.read(artifact["artifactId"], 0, 10_000_000)
    result = json.loads(chunk.data.decode("utf-8"))
    assert result["input"] == CLEAN and result["title"] == CLEAN
    assert result["value"] == [CLEAN, {CLEAN: 1}]
    assert result["big"] == CLEAN * 120_000
