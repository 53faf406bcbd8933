"""Items running at once never mix their pages: generated templates over real Chromium.

Metamorphic: the same template and inputs give the same items at concurrency 1 and at 4, and
every value an item read names its own page (the fixture site's /item pages, each late by a
random delay and filled by a script a random time later, so that items interleave).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from taskplate.interpreter import RunManager
from tests.fixtures.server import FixtureServer
from tests.fuzzing import fuzz_settings

pytestmark = pytest.mark.anyio

_TEMPLATES = itertools.count(1)


@dataclass
class Item:
    """What a generated item reads, and what each read must give on its own page."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    collect: dict[str, str] = field(default_factory=dict)
    expect: dict[str, str] = field(default_factory=dict)  # collected key -> value with {n}


def _op(item: Item, kind: str, j: int) -> None:
    """Append one generated operation: its steps, what the item collects, what it must be."""
    if kind == "extract":
        item.steps.append(
            {"id": f"e{j}", "action": "extract", "with": {"fields": {"name": ".name"}}}
        )
        item.collect[f"e{j}"] = f"${{{{ steps.e{j}.values.name }}}}"
        item.expect[f"e{j}"] = "Item {n}"
    elif kind == "info":
        item.steps.append({"id": f"i{j}", "action": "get_page_info"})
        item.collect[f"i{j}"] = f"${{{{ steps.i{j}.title }}}}"
        item.expect[f"i{j}"] = "Item {n}"
    elif kind == "content":
        item.steps.append({"id": f"c{j}", "action": "get_page_content", "with": {"format": "text"}})
        item.collect[f"c{j}"] = f"${{{{ steps.c{j}.content }}}}"
        item.expect[f"c{j}"] = "~Item {n}"  # contains
    elif kind == "set":
        item.steps.append({"id": f"s{j}", "action": "set", "with": {"n": "${{ page.n }}"}})
        item.collect[f"s{j}"] = f"${{{{ steps.s{j}.n }}}}"
        item.expect[f"s{j}"] = "{n}"
    elif kind == "click":
        item.steps.append({"action": "click", "with": {"selector": "#more"}})
        item.steps.append(
            {"id": f"k{j}", "action": "extract", "with": {"fields": {"said": "#clicked"}}}
        )
        item.collect[f"k{j}"] = f"${{{{ steps.k{j}.values.said }}}}"
        item.expect[f"k{j}"] = "clicked {n}"
    elif kind == "fill":
        item.steps.append({"action": "fill", "with": {"selector": "#q", "value": "${{ page.n }}"}})
    elif kind == "late":
        item.steps.append({"action": "wait_for", "with": {"selector": ".late"}})
        item.steps.append(
            {"id": f"l{j}", "action": "extract", "with": {"fields": {"late": ".late"}}}
        )
        item.collect[f"l{j}"] = f"${{{{ steps.l{j}.values.late }}}}"
        item.expect[f"l{j}"] = "late {n}"
    elif kind == "renavigate":
        item.steps.append({"action": "navigate", "with": {"url": "${{ page.again }}"}})
    elif kind == "wait":
        item.steps.append({"action": "wait", "with": {"ms": 10 * (j % 4)}})


OPS = ["extract", "info", "content", "set", "click", "fill", "late", "renavigate", "wait"]


@st.composite
def parallel_templates(draw: st.DrawFn) -> tuple[dict[str, Any], Item, int]:
    """A template whose forEach items each open their own page and do random things on it."""
    item = Item(steps=[{"action": "navigate", "with": {"url": "${{ page.url }}"}}])
    for j, kind in enumerate(draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=5))):
        _op(item, kind, j)
    if not item.collect:
        _op(item, "extract", 99)
    loop: dict[str, Any] = {
        "id": "pages",
        "forEach": "${{ inputs.pages }}",
        "as": "page",
        "concurrency": "${{ inputs.concurrency }}",
        "steps": item.steps,
        "collect": item.collect,
    }
    if draw(st.booleans()):
        loop["tab"] = "new"  # written out, or left to the default: the same either way
    template = {
        "template": f"parallel_{next(_TEMPLATES)}",
        "version": "1.0.0",
        "inputs": {
            "type": "object",
            "properties": {"pages": {"type": "array"}, "concurrency": {"type": "integer"}},
        },
        "steps": [loop],
        "output": "${{ steps.pages.items }}",
    }
    return template, item, draw(st.integers(min_value=2, max_value=4))


def _pages(site: FixtureServer, count: int, delays: list[tuple[int, int]]) -> list[dict[str, str]]:
    return [
        {
            "n": f"p{i}q",
            "url": site.url(f"/item?n=p{i}q&ms={ms}&late={late}"),
            "again": site.url(f"/item?n=p{i}q&ms={late}&late={ms}"),
        }
        for i, (ms, late) in zip(range(count), delays, strict=False)
    ]


async def _run(manager: RunManager, template_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    run_id = await manager.submit(template_id, inputs, options={"timeoutMs": 60_000})
    with anyio.fail_after(90):
        return await manager.wait(run_id)


def _own_page(item: Item, n: str, got: dict[str, Any], others: list[str]) -> dict[str, Any]:
    """What the item read, each value checked against its own page; a page's text (which
    may or may not hold the late text yet) as whether it names its own page only."""
    assert got["success"], got
    seen: dict[str, Any] = {}
    for key, want in item.expect.items():
        value = str(got[key])
        if want.startswith("~"):
            assert want[1:].format(n=n) in value, (key, value)
            assert not any(f"Item {o}" in value for o in others), (key, value)
            seen[key] = "own page"
        else:
            assert value == want.format(n=n), (key, value)
            seen[key] = value
    return seen


@fuzz_settings(20, suppress_health_check=list(HealthCheck))
@given(
    drawn=parallel_templates(),
    delays=st.lists(st.tuples(st.integers(0, 120), st.integers(0, 120)), min_size=4, max_size=4),
)
@pytest.mark.fuzz
async def test_items_read_their_own_pages_at_concurrency_1_and_4(
    drawn: tuple[dict[str, Any], Item, int],
    delays: list[tuple[int, int]],
    manager: RunManager,
    site: FixtureServer,
    tmp_path: Path,
) -> None:
    template, item, count = drawn
    path = tmp_path / f"{template['template']}.yaml"
    path.write_text(yaml.safe_dump(template, sort_keys=False), encoding="utf-8")
    assert manager.library.add_file(path) is not None, manager.library.rejected
    pages = _pages(site, count, delays)
    answers = [
        await _run(manager, template["template"], {"pages": pages, "concurrency": concurrency})
        for concurrency in (1, 4)
    ]
    names = [p["n"] for p in pages]
    seen = []
    for answer in answers:
        assert answer["status"] == "succeeded", answer
        seen.append(
            [
                _own_page(item, n, got, [o for o in names if o != n])
                for got, n in zip(answer["result"], names, strict=True)
            ]
        )
    assert seen[0] == seen[1]  # the same items, in the order of the list, at 1 and at 4


SHOP = """
template: parallel_default
version: 1.0.0
inputs:
  type: object
  properties:
    urls: {type: array, items: {type: string}}
steps:
  - id: pages
    forEach: ${{ inputs.urls }}
    as: url
    concurrency: 2
    steps:
      - action: navigate
        with: {url: "${{ url }}"}
      - id: read
        action: extract
        with: {fields: {name: h1}}
    collect: {name: "${{ steps.read.values.name }}"}
output: ${{ steps.pages.items }}
"""


async def test_items_at_once_without_a_tab_line_each_read_their_own_tab(
    manager: RunManager, site: FixtureServer, tmp_path: Path
) -> None:
    """The first item's page is held until the second item has read its own: in one shared
    tab, the second navigation would take the page from under the first."""
    path = tmp_path / "parallel_default.yaml"
    path.write_text(SHOP, encoding="utf-8")
    assert manager.library.add_file(path) is not None
    urls = [site.url("/gate?n=held-first"), site.url("/item?n=second")]
    run_id = await manager.submit("parallel_default", {"urls": urls}, options={"mode": "async"})
    try:
        with anyio.fail_after(60):
            while True:
                steps = (await manager.describe(run_id, include_steps=True)).get("steps", [])
                if any(s["stepId"] == "read" and s["status"] == "succeeded" for s in steps):
                    break
                await anyio.sleep(0.05)
    finally:
        site.open_gate("held-first")
    with anyio.fail_after(60):
        answer = await manager.wait(run_id)
    assert answer["status"] == "succeeded", answer
    assert answer["result"] == [
        {"name": "Gated page held-first", "success": True},
        {"name": "Item second", "success": True},
    ]
    steps = (await manager.describe(run_id, include_steps=True))["steps"]
    tabs = {s["itemIndex"]: s["tabId"] for s in steps if s["stepId"] == "read"}
    assert tabs[0] != tabs[1]


async def test_a_recycled_tab_starts_each_item_clean_and_its_renderer_collects_on_the_way(
    manager: RunManager, site: FixtureServer, tmp_path: Path
) -> None:
    marks = (
        "() => { const seen = [sessionStorage.getItem('mark'), window.name];"
        " sessionStorage.setItem('mark', 'left'); window.name = 'left'; return seen; }"
    )
    template = {
        "template": "clean_tabs",
        "version": "1.0.0",
        "inputs": {"type": "object", "properties": {"pages": {"type": "array"}}},
        "steps": [
            {
                "id": "pages",
                "forEach": "${{ inputs.pages }}",
                "as": "page",
                "concurrency": 1,
                "tab": "new",
                "steps": [
                    {"action": "navigate", "with": {"url": "${{ page }}"}},
                    {"id": "seen", "action": "evaluate", "with": {"script": marks}},
                ],
                "collect": {"seen": "${{ steps.seen.value }}"},
            }
        ],
        "output": "${{ steps.pages.items }}",
    }
    path = tmp_path / "clean_tabs.yaml"
    path.write_text(yaml.safe_dump(template, sort_keys=False), encoding="utf-8")
    assert manager.library.add_file(path) is not None, manager.library.rejected
    pages = [site.url(f"/article.html?n={n}") for n in range(7)]  # past one collection
    answer = await _run(manager, "clean_tabs", {"pages": pages})
    assert answer["status"] == "succeeded", answer
    assert [item["seen"] for item in answer["result"]] == [[None, ""]] * 7
