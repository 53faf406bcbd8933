"""Sections whose heading says they list other things than the page's own (_related.py): a
product page's "Similar items" go; an article's "Related work" (prose), a flat page's heading,
a section holding the title or most of the page, and a heading that is a sentence stay. The
shipped rules drop them on product pages only."""

from __future__ import annotations

import json
from typing import Any

import lxml.html

from taskplate.stdlib.content import _related as related
from taskplate.stdlib.content._markdown import read_typed

DESCRIPTION = (
    "<h1>Trail Runner 2 waterproof shoe</h1><p>$129.00</p><button>Add to cart</button>"
    "<h2>Description</h2><p>A light trail shoe with a waterproof membrane, a grippy outsole "
    "and a cushioned midsole for long days on rough ground in every kind of weather. The "
    "upper is a recycled mesh that dries fast, and the laces stay tied through streams.</p>"
    "<h2>Care</h2><p>Rinse off mud with cold water, take out the insoles and let the shoes dry "
    "away from a radiator. Brush the outsole once a month and wash the laces by hand; a "
    "waterproofing spray every few months keeps the membrane working as it did new.</p>"
    "<h2>Fit</h2><p>The shoe runs true to size with a roomy toe box; runners between sizes "
    "should take the larger one. The heel is narrow and holds the foot on descents, and the "
    "tongue is gusseted so grit and small stones stay out on dusty trails.</p>"
    "<h2>Specifications</h2><table><tr><th>Weight</th><td>290 g</td></tr>"
    "<tr><th>Drop</th><td>6 mm</td></tr></table>"
)


def cards(heading: str, count: int = 4) -> str:
    items = "".join(
        f"<li><a href='/p/{n}'>Road Runner model {n} in blue</a><span>${60 + n}.00</span></li>"
        for n in range(count)
    )
    return f"<div class='carousel'><div><h2>{heading}</h2></div><ul>{items}</ul></div>"


def dropped(page: str) -> str:
    doc = lxml.html.document_fromstring(page)
    body = doc.find("body")
    related.drop_related(body)
    return " ".join(body.text_content().split())


def test_a_section_of_other_products_goes_and_the_product_stays() -> None:
    for heading in ("Similar items", "Customers also viewed", "You may also like", "More from"):
        text = dropped(f"<body><div>{DESCRIPTION}</div>{cards(heading)}</body>")
        assert "Road Runner" not in text and heading not in text, heading
        assert "waterproof membrane" in text and "290 g" in text


def test_an_articles_related_work_in_prose_stays() -> None:
    prose = (
        "<p>Earlier studies measured the same effect in smaller groups of runners over a single "
        "season and found a weaker link between cushioning and injuries than we report.</p>"
    )
    page = (
        f"<body><h1>Shoes and injuries</h1><section><h2>Related work</h2>{prose}</section></body>"
    )
    assert "Earlier studies" in dropped(page)


def test_a_flat_pages_heading_and_a_sentence_heading_stay() -> None:
    flat = "<body><h1>Guide</h1><h2>Related tools</h2><ul><li><a href='/a'>A</a></li></ul><h2>Next</h2></body>"
    assert "Related tools" in dropped(flat)
    long = "How closely related are the two species of owls that nest in the city parks"
    sentence = f"<body><h1>Owls</h1><div><h2>{long}</h2><p>Short.</p></div></body>"
    assert long in dropped(sentence)


def test_a_section_holding_the_title_or_most_of_the_page_stays() -> None:
    titled = f"<body><div><h1>Similar items</h1>{cards('Related')}</div><p>Footer</p></body>"
    assert "Road Runner" in dropped(titled)
    most = f"<body><p>Shop</p>{cards('Similar items', 12)}</body>"
    assert "Road Runner" in dropped(most)


def product_page(heading: str) -> str:
    data = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": "Trail Runner 2",
        "offers": {"@type": "Offer", "price": "129.00", "priceCurrency": "USD"},
    }
    return (
        f"<html><head><title>Trail Runner 2</title><script type='application/ld+json'>"
        f"{json.dumps(data)}</script></head><body><nav><a href='/'>Home</a></nav>"
        f"<main><div>{DESCRIPTION}</div>{cards(heading)}</main></body></html>"
    )


def test_the_shipped_rules_read_a_product_without_its_similar_items() -> None:
    url = "https://shop.test/p"
    text, is_main, kind = read_typed(product_page("Similar items"), url, "markdown", True)
    assert kind == "product" and is_main
    assert "waterproof membrane" in text and "Road Runner" not in text


def test_the_shipped_rules_drop_them_on_product_pages_only(monkeypatch: Any) -> None:
    """On a collection, a "Related articles" box is the shop's content (Rules.related)."""
    dropped_on: list[str] = []
    monkeypatch.setattr(related, "drop_related", lambda body: dropped_on.append("called"))
    _, _, kind = read_typed(product_page("Similar items"), "https://shop.test/p", "markdown", True)
    assert kind == "product" and dropped_on == ["called"]
    dropped_on.clear()
    grid = "".join(
        f"<li class='product-card'><a href='/p/{n}'>Trail shoe {n}</a><span>${n + 50}.00</span>"
        "</li>"
        for n in range(24)
    )
    shop = (
        f"<html><head><title>Trail shoes</title></head><body><h1>Trail shoes</h1>"
        f"<div class='filters'><a href='?size=42'>42</a></div><ul class='grid'>{grid}</ul>"
        f"{cards('Related articles')}<a rel='next' href='?page=2'>Next</a></body></html>"
    )
    _, _, kind = read_typed(shop, "https://shop.test/c", "markdown", True)
    assert kind != "product" and dropped_on == []
