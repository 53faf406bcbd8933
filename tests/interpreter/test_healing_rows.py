"""Runs that heal (issue 56): boxes named by different ids are different boxes, however alike
their classes. A price cell that lost its class in a table whose rows each have an id is told
from the near prices of the other rows (each in a row of another id) and healed; the same
cell in rows that carry no id is as like the other rows' prices as its own, and nothing is
healed. Real Chromium, a local static site changed between runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taskplate.browser import BrowserRuntime
from tests.healing_templates import answers_over, extracting

pytestmark = pytest.mark.anyio

TEMPLATE = extracting(
    "plan_price", "caption: table.plans caption", "basic: 'tr#row-basic td.price'", required="basic"
)
PLANS = [("Basic", "€9", "1"), ("Team", "€29", "5"), ("Studio", "€79", "20")]


def table(folder: Path, ids: bool = True, price: str = " class=price") -> None:
    """The plans' table; `ids`: each row has its own (the first row always); `price`: the
    first row's price cell's class attribute."""
    rows = "".join(
        f'<tr class="row"{f" id=row-{n.lower()}" if ids or i == 0 else ""}>'
        f'<td class="name">{n}</td><td{price if i == 0 else " class=price"}>{p}</td>'
        f'<td class="seats">{s}</td></tr>'
        for i, (n, p, s) in enumerate(PLANS)
    )
    html = (
        '<!doctype html><html><head><meta charset="utf-8"></head><body><main>'
        f'<table class="plans"><caption>Monthly prices</caption><tbody>{rows}</tbody></table>'
        "</main></body></html>"
    )
    (folder / "plans.html").write_text(html, encoding="utf-8")


async def learned_then(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str], ids: bool, price: str
) -> dict[str, Any]:
    """The template's run on the table as it was (learned), then on the table changed."""
    folder, base = static_pages
    first, answer = await answers_over(
        tmp_path, "plan_price", TEMPLATE, f"{base}/plans.html",
        [lambda: table(folder), lambda: table(folder, ids=ids, price=price)],
        runtime,
    )  # fmt: skip
    assert first["result"] == {"caption": "Monthly prices", "basic": "€9"}
    return answer


async def test_a_cell_that_lost_its_class_is_told_from_near_prices_in_rows_of_other_ids(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    answer = await learned_then(tmp_path, runtime, static_pages, ids=True, price="")
    assert answer["status"] == "succeeded", answer.get("error")
    assert answer["result"] == {"caption": "Monthly prices", "basic": "€9"}
    assert [(r["old"], r["new"]) for r in answer["repairs"]] == [
        ("tr#row-basic td.price", "#row-basic > td:nth-of-type(2)")
    ]


async def test_the_same_cell_among_rows_without_ids_heals_nothing(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    """The other rows lost their ids too: their prices are as like the recorded cell as the
    cell itself (a near price, the same class, a row of the same classes): ambiguous."""
    answer = await learned_then(tmp_path, runtime, static_pages, ids=False, price="")
    assert answer["status"] == "failed"
    assert "repairs" not in answer and "repairs" not in answer["error"]["details"]
    assert any("ambiguous" in why for why in answer["error"]["details"]["unhealed"])
