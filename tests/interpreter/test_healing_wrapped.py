"""Runs that heal (issue 56): an element wrapped in a box whose text is all its own, and its
naming attribute renamed: the wrapper reads what the element reads, so it is no rival to it and
the element is clearly best. A field reading an attribute: a wrapper holding no attribute with
the value read is no rival either; one holding it is, and nothing heals. Real Chromium, a local static site changed between runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from taskplate.browser import BrowserRuntime
from tests.fixtures.static_site import static_site
from tests.healing_templates import answers_over, extracting

pytestmark = pytest.mark.anyio

TEMPLATE = extracting("pager", "heading: h1.heading", "pager: '[data-role=\"pager\"]'")
PAGE = (
    '<!doctype html><html><head><meta charset="utf-8"></head><body><main class="results">'
    '<h1 class="heading">4 results</h1><ul class="cards"><li>Oak chair</li><li>Pine stool</li>'
    "</ul>{pager}</main></body></html>"
)
BEFORE = '<p class="pager" data-role="pager">Page 1 of 1</p>'
WRAPPED = '<span class="block-wrap"><p class="pager" data-label="pager">Page 1 of 1</p></span>'


async def test_a_wrapper_reading_the_same_text_is_no_rival(
    tmp_path: Path, runtime: BrowserRuntime
) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    page = folder / "list.html"
    with static_site(folder) as base:
        learned, healed = await answers_over(
            tmp_path, "pager", TEMPLATE, f"{base}/list.html",
            [lambda p=pager: page.write_text(PAGE.format(pager=p), encoding="utf-8")
             for pager in (BEFORE, WRAPPED)],
            runtime,
        )  # fmt: skip
    assert learned["result"] == {"heading": "4 results", "pager": "Page 1 of 1"}
    assert healed["status"] == "succeeded", healed.get("error")
    assert healed["result"] == learned["result"]
    assert [(r["old"], r["new"]) for r in healed["repairs"]] == [
        ('[data-role="pager"]', 'p[data-label="pager"]')
    ]


SKU_TEMPLATE = extracting(
    "sku", "title: h1.title", "sku: {selector: '#product-main', attr: data-sku}", required="sku"
)
PRODUCT = (
    '<div class="product card" id="product-main" data-sku="LMP-204"><h1 class="title">Desk lamp'
    '</h1><span class="price">$42.50</span></div>'
)


async def sku_runs(
    tmp_path: Path, runtime: BrowserRuntime, changed: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The sku template's run on the product as it was (learned), then on `changed`."""
    folder = tmp_path / "pages"
    folder.mkdir()
    page = folder / "product.html"

    def showing(box: str) -> Callable[[], object]:
        html = (
            '<!doctype html><html><body><main class="content"><nav class="crumbs">'
            f'Lighting</nav>{box}<section class="related">More lamps</section>'
            "</main></body></html>"
        )
        return lambda: page.write_text(html, encoding="utf-8")

    with static_site(folder) as base:
        learned, answer = await answers_over(
            tmp_path,
            "sku",
            SKU_TEMPLATE,
            f"{base}/product.html",
            [showing(PRODUCT), showing(changed)],
            runtime,
        )
    assert learned["result"] == {"title": "Desk lamp", "sku": "LMP-204"}
    return learned, answer


async def test_a_wrapper_holding_not_the_attribute_read_is_no_rival(
    tmp_path: Path, runtime: BrowserRuntime
) -> None:
    """The box whose id the field named got another id and a wrapper of its own: the wrapper
    reads the same text but holds no attribute with the value the field read, so it can give
    the field nothing and is no rival."""
    moved = PRODUCT.replace('id="product-main"', 'id="item-50"')
    learned, healed = await sku_runs(tmp_path, runtime, f'<div class="block-wrap">{moved}</div>')
    assert healed["status"] == "succeeded", healed.get("error")
    assert healed["result"] == learned["result"]
    assert [(r["old"], r["new"]) for r in healed["repairs"]] == [("#product-main", "#item-50")]


async def test_a_wrapper_holding_the_same_attribute_is_a_rival_and_nothing_heals(
    tmp_path: Path, runtime: BrowserRuntime
) -> None:
    moved = PRODUCT.replace('id="product-main"', 'id="item-50"')
    wrapper = f'<div class="block-wrap" data-sku="LMP-204">{moved}</div>'
    _, answer = await sku_runs(tmp_path, runtime, wrapper)
    assert answer["status"] == "failed"
    assert "repairs" not in answer and "repairs" not in answer["error"]["details"]
    assert any("ambiguous" in why for why in answer["error"]["details"]["unhealed"])
