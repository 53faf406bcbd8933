"""The guide's templates for records, waiting fields and feeds (docs/extracting.md), run as
written over real Chromium against the fixture shop and feed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from taskplate.contract import TrustLevel
from taskplate.dsl import check_source
from taskplate.interpreter import RunManager
from taskplate.stdlib import REGISTRY
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

GUIDE = Path(__file__).parents[2] / "docs" / "extracting.md"


def example(template_id: str) -> str:
    blocks = re.findall(r"```yaml\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)
    (found,) = [b for b in blocks if b.startswith(f"template: {template_id}\n")]
    return found


async def run(manager: RunManager, template_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    checked = check_source(example(template_id), f"{template_id}.yaml", REGISTRY)
    assert checked.ok and checked.template is not None, checked.diagnostics
    run_id = await manager.submit(
        template_id, inputs, template=checked.template, trust=TrustLevel.LOCAL
    )
    with anyio.fail_after(60):
        return await manager.wait(run_id)


async def test_the_listing_example_reads_a_record_per_card_page_after_page(
    manager: RunManager, site: FixtureServer
) -> None:
    answer = await run(manager, "shop_listing", {"url": site.url("/shop/listing.html")})
    assert answer["status"] == "succeeded", answer.get("error")
    products = answer["result"]["products"]
    assert [(p["title"], p["price"]) for p in products] == [
        ("Desk lamp", 1299.0),
        ("Floor lamp", None),  # no price on its card: nothing shifts
        ("Lamp mug", 2.5),
        ("Reading lamp", 45.0),
    ]
    assert products[3]["link"] == site.url("/shop/reading.html")
    assert answer["result"]["unpriced"] == ["Floor lamp"]


async def test_the_feed_example_scrolls_until_the_feed_ends(
    manager: RunManager, site: FixtureServer
) -> None:
    answer = await run(manager, "feed_posts", {"url": site.url("/feed.html?loads=4&ms=10")})
    assert answer["status"] == "succeeded", answer.get("error")
    result = answer["result"]
    assert (len(result["posts"]), result["scrolls"], result["stoppedBecause"]) == (
        50,
        5,
        "stable",
    )


async def test_the_growing_cards_example_reads_every_card_or_fails_on_a_misspelt_field(
    manager: RunManager, site: FixtureServer
) -> None:
    url = site.url("/shop/growing.html?ms=40")
    answer = await run(manager, "growing_cards", {"url": url})
    assert answer["status"] == "succeeded", answer.get("error")
    products = answer["result"]["products"]
    assert len(products) == 24 and products[23] == {"title": "Item 24", "price": 24.0}
    assert "warnings" not in answer
    misspelt = example("growing_cards").replace("selector: .p,", "selector: .prcie,")
    checked = check_source(misspelt, "growing_cards.yaml", REGISTRY)
    assert checked.template is not None
    run_id = await manager.submit(
        "growing_cards", {"url": url}, template=checked.template, trust=TrustLevel.LOCAL
    )
    with anyio.fail_after(60):
        failed = await manager.wait(run_id)
    assert failed["status"] == "failed"
    assert failed["error"]["details"]["stepErrorCode"] == "ELEMENT_NOT_FOUND"
    assert 'products[].price (".prcie") in none of the 24 records' in failed["error"]["error"]
