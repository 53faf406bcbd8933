"""The repair benchmark's pages, templates and changes: five pages written for it (a product page,
a listing of cards, an article, a login form, a table) as trees of elements, and a template
reading each. A node marked `read` is one a template reads: the generator's aim
(_repair_changes.py), never repair's.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field


@dataclass
class Node:
    tag: str
    classes: list[str] = field(default_factory=list)
    attrs: dict[str, str] = field(default_factory=dict)
    text: str = ""
    children: list[Node] = field(default_factory=list)
    read: bool = False  # a template reads it (the generator's aim, never repair's)

    def html(self) -> str:
        attrs = "".join(f' {k}="{html.escape(v)}"' for k, v in self.attrs.items())
        if self.classes:
            attrs += f' class="{" ".join(self.classes)}"'
        if self.tag in ("input", "img"):
            return f"<{self.tag}{attrs}>"
        inner = html.escape(self.text) + "".join(c.html() for c in self.children)
        return f"<{self.tag}{attrs}>{inner}</{self.tag}>"


def n(
    tag: str, cls: str = "", text: str = "", *children: Node, read: bool = False, **attrs: str
) -> Node:
    attrs = {k.replace("_", "-"): v for k, v in attrs.items()}
    return Node(tag, cls.split(), attrs, text, list(children), read)


def page(title: str, main: Node) -> Node:
    return n(
        "body",
        "",
        "",
        n(
            "header",
            "site-header",
            "",
            n(
                "nav",
                "menu",
                "",
                n("a", "nav-link", "Home", href="/"),
                n("a", "nav-link", "Shop", href="/shop"),
            ),
        ),
        main,
        n("footer", "site-footer", "", n("p", "legal", f"{title} © 2026")),
    )


def product() -> Node:
    return page(
        "Lamps",
        n(
            "main",
            "content",
            "",
            n(
                "nav",
                "crumbs",
                "",
                n("a", "crumb", "Lighting", href="/l"),
                n("span", "crumb", "Desk lamps"),
            ),
            n(
                "div",
                "product card",
                "",
                n("h1", "title", "Brass desk lamp", read=True),
                n(
                    "div",
                    "buy-box",
                    "",
                    n("span", "price", "$42.50", read=True),
                    n("span", "was", "$55.00"),
                    n("p", "availability", "In stock", read=True, data_testid="availability"),
                ),
                n(
                    "div",
                    "rating",
                    "",
                    n("span", "stars", "4.6", read=True),
                    n("span", "votes", "128 reviews"),
                ),
                n("p", "description", "A lamp of brushed brass with a linen shade."),
                id="product-main",
                data_sku="LMP-204",
            ),
            n(
                "section",
                "related",
                "",
                n("h2", "related-title", "You may also like"),
                n(
                    "div",
                    "card mini",
                    "",
                    n("h3", "mini-title", "Floor lamp"),
                    n("span", "mini-price", "$89.00"),
                ),
            ),
        ),
    )


def _opening(template_id: str) -> str:
    """The head every bench template shares: it takes `url` and opens it (step `open`)."""
    return f"template: {template_id}\nversion: 1.0.0\n" + _OPENS_URL


_OPENS_URL = """\
inputs:
  type: object
  properties:
    url: {type: string}
steps:
  - id: open
    action: navigate
    with: {url: "${{ inputs.url }}"}
"""


PRODUCT = (
    _opening("bench_product")
    + """\
  - id: read
    action: extract
    with:
      fields:
        title: .product h1.title
        price: {selector: 'span.price', type: number}
        sku: {selector: '#product-main', attr: data-sku}
        rating: '.rating .stars'
        availability: '[data-testid="availability"]'
output: ${{ steps.read.values }}
"""
)


def listing() -> Node:
    cards = [
        n(
            "li",
            "card",
            "",
            n("h2", "card-title", t),
            n("span", "card-price", p),
            n("a", "card-link", "View", href=f"/p/{i}"),
        )
        for i, (t, p) in enumerate(
            [
                ("Oak chair", "$120"),
                ("Pine stool", "$45"),
                ("Ash bench", "$210"),
                ("Elm table", "$480"),
            ]
        )
    ]
    for card in cards:
        card.children[0].read = True
    return page(
        "Furniture",
        n(
            "main",
            "results",
            "",
            n("h1", "results-heading", "4 results for wood", read=True),
            n("div", "filters", "", n("span", "filter", "Wood"), n("span", "filter", "In stock")),
            n("ul", "cards", "", *cards, id="results-list"),
            n("p", "pager", "Page 1 of 1", read=True, data_role="pager"),
        ),
    )


LISTING = (
    _opening("bench_listing")
    + """\
  - id: read
    action: extract
    with:
      fields:
        heading: h1.results-heading
        titles: {selector: 'li.card h2.card-title', all: true}
        pager: '[data-role="pager"]'
output: ${{ steps.read.values }}
"""
)


def article() -> Node:
    return page(
        "News",
        n(
            "main",
            "",
            "",
            n(
                "article",
                "story",
                "",
                n("h1", "headline", "River town opens a new bridge", read=True),
                n(
                    "p",
                    "byline",
                    "",
                    n("span", "", "By "),
                    n("a", "author", "Ana Ruiz", read=True, href="/ana"),
                    n("time", "published", "2 May 2026", read=True, datetime="2026-05-02"),
                ),
                n(
                    "p",
                    "lead",
                    "The bridge links both banks for the first time in a century.",
                    read=True,
                ),
                n("p", "", "Work started three years ago."),
                n("aside", "note", "", n("p", "", "Corrections: none.")),
            ),
            n(
                "section",
                "more",
                "",
                n("h2", "", "More news"),
                n("a", "teaser", "Ferry timetable changes", href="/f"),
            ),
        ),
    )


ARTICLE = (
    _opening("bench_article")
    + """\
  - id: read
    action: extract
    with:
      fields:
        headline: article h1.headline
        author: 'a.author'
        date: {selector: 'time.published', attr: datetime}
        lead: 'p.lead'
output: ${{ steps.read.values }}
"""
)


def login() -> Node:
    return page(
        "Account",
        n(
            "main",
            "auth",
            "",
            n(
                "form",
                "login-form",
                "",
                n("h2", "form-title", "Sign in to your account", read=True),
                n("label", "", "User name", **{"for": "user"}),
                n("input", "field", "", read=True, id="user", name="username", type="text"),
                n("label", "", "Password", **{"for": "pass"}),
                n("input", "field", "", read=True, id="pass", name="password", type="password"),
                n("button", "submit primary", "Sign in", read=True, type="button"),
                n("p", "help", "Forgot your password? Ask the desk.", read=True),
                id="login",
                action="#",
            ),
        ),
    )


LOGIN = (
    _opening("bench_login")
    + """\
  - id: user
    action: fill
    with: {selector: 'input#user', value: ana}
  - id: password
    action: fill
    with: {selector: 'input[name="password"]', value: hunter2}
  - id: read
    action: extract
    with:
      fields:
        title: 'form h2.form-title'
        button: 'button.submit'
        help: 'p.help'
output: ${{ steps.read.values }}
"""
)


def table() -> Node:
    rows = [
        n(
            "tr",
            "row",
            "",
            n("td", "name", name, read=True),
            n("td", "price", price, read=name == "Basic"),
            n("td", "seats", seats),
            id=f"row-{name.lower()}",
        )
        for name, price, seats in [
            ("Basic", "€9", "1"),
            ("Team", "€29", "5"),
            ("Studio", "€79", "20"),
        ]
    ]
    return page(
        "Plans",
        n(
            "main",
            "",
            "",
            n("h1", "page-title", "Plans"),
            n(
                "table",
                "plans",
                "",
                n("caption", "", "Monthly prices", read=True),
                n(
                    "thead",
                    "",
                    "",
                    n(
                        "tr",
                        "",
                        "",
                        n("th", "", "Plan"),
                        n("th", "", "Price"),
                        n("th", "", "Seats"),
                    ),
                ),
                n("tbody", "", "", *rows),
            ),
        ),
    )


TABLE = (
    _opening("bench_table")
    + """\
  - id: read
    action: extract
    with:
      fields:
        caption: table.plans caption
        basic: 'tr#row-basic td.price'
        plans: {selector: 'table.plans td.name', all: true}
output: ${{ steps.read.values }}
"""
)

# name: (the page's tree, the template reading it)
SITES = {
    "product": (product, PRODUCT),
    "listing": (listing, LISTING),
    "article": (article, ARTICLE),
    "login": (login, LOGIN),
    "table": (table, TABLE),
}
