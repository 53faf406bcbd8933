"""Runs that heal a list that lost items while its selector still matches some (issue 56): the
run that learned the list matched every item of its kind; when an item's class is renamed or
removed, an item retagged or unwrapped (between two items, or before or after every item when
its match keeps the items' classes and the list reads in the learned order), `heal: apply`
reads the list whole again by the most stable selector matching exactly it and its lost items;
a look-alike put beside an item's match, marked by a class of its own, is kept off; a list
reading some of its learned items while the others stand in its box (a card retagged and
wrapped) reads them all again, and says so when they stand elsewhere on the page; items set
apart by a class of their own, a list longer than it was, an item unwrapped out of the learned
order or without the items' classes heal nothing, and the run says why in its warnings (a list
read as the page shows it may miss items or hold others). Real Chromium, a local static site
changed between runs."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from taskplate.browser import BrowserRuntime
from taskplate.interpreter import RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY
from tests.healing_templates import answers_over, extracting

pytestmark = pytest.mark.anyio

TITLES = ["Oak chair", "Pine stool", "Ash bench", "Elm table"]
TEMPLATE = extracting(
    "wood_list", "heading: h1.heading", "titles: {selector: 'li.card h2.card-title', all: true}"
)
PLACE = json.dumps(["read", ["fields", "titles"]], separators=(",", ":"))


def page(folder: Path, items: list[str], after: str = "") -> None:
    html = (
        '<!doctype html><html><body><main><h1 class="heading">Wood</h1>'
        f'<ul class="cards" id="results">{"".join(items)}</ul>{after}'
        '<h2 class="card-title">Not a card: the footer</h2></main></body></html>'
    )
    (folder / "list.html").write_text(html, encoding="utf-8")


def card(title: str, box: str = '<li class="card">', close: str = "</li>") -> str:
    return f'{box}<h2 class="card-title">{title}</h2><span class="price">$9</span>{close}'


@pytest.fixture
async def runs(tmp_path: Path, runtime: BrowserRuntime) -> AsyncIterator[RunManager]:
    """A manager of the wood_list template on the module's browser (tests/conftest.py)."""
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "wood_list.yaml").write_text(TEMPLATE, encoding="utf-8")
    manager = RunManager(
        tmp_path / "home", TemplateLibrary(REGISTRY).load([folder]), runtime=runtime
    )
    async with manager.running():
        yield manager


async def finished(runs: RunManager, url: str) -> dict[str, Any]:
    run_id = await runs.submit("wood_list", {"url": url})
    with anyio.fail_after(60):
        await runs.wait(run_id)
    return await runs.describe(run_id, include_steps=True)


async def learned(runs: RunManager, folder: Path, url: str) -> dict[str, Any]:
    page(folder, [card(t) for t in TITLES])
    first = await finished(runs, url)
    assert first["status"] == "succeeded" and first["result"]["titles"] == TITLES
    return await runs.store.fingerprints("wood_list", "1.0.0")


async def changed_run(
    runs: RunManager, static_pages: tuple[Path, str], items: list[str]
) -> dict[str, Any]:
    """The answer of a run that succeeded on the page changed to `items` after the list was
    learned."""
    folder, base = static_pages
    url = f"{base}/list.html"
    await learned(runs, folder, url)
    page(folder, items)
    answer = await finished(runs, url)
    assert answer["status"] == "succeeded", answer.get("error")
    return answer


async def read_whole_again(
    runs: RunManager, static_pages: tuple[Path, str], items: list[str]
) -> dict[str, Any]:
    """The answer of a changed page's run, once it read the learned titles again."""
    answer = await changed_run(runs, static_pages, items)
    assert answer["result"]["titles"] == TITLES
    return answer


async def test_a_list_learns_that_it_left_no_item_of_its_kind_out(
    runs: RunManager, static_pages: tuple[Path, str]
) -> None:
    folder, base = static_pages
    kept = await learned(runs, folder, f"{base}/list.html")
    assert kept[PLACE]["count"] == 4 and kept[PLACE]["many"] is True
    assert kept[PLACE]["left"] == 0  # the footer's h2 is elsewhere, not among the items
    assert kept[PLACE]["bare"] == 0  # each card holds a title


@pytest.mark.parametrize(
    "lost",
    [
        card("Pine stool", '<li class="item-3">'),  # the item's class renamed
        card("Pine stool", "<li>"),  # removed
        card("Pine stool", '<div class="card">', "</div>"),  # retagged
        card("Pine stool", "", ""),  # unwrapped, between two items
    ],
    ids=["renamed", "removed", "retagged", "unwrapped"],
)
async def test_apply_reads_a_list_whole_again_when_an_item_left_it(
    runs: RunManager, static_pages: tuple[Path, str], lost: str
) -> None:
    folder, base = static_pages
    url = f"{base}/list.html"
    await learned(runs, folder, url)
    page(folder, [card("Oak chair"), lost, card("Ash bench"), card("Elm table")])
    answer = await finished(runs, url)
    assert answer["status"] == "succeeded", answer.get("error")
    assert answer["result"]["titles"] == TITLES
    (repair,) = answer["repairs"]
    assert repair["old"] == "li.card h2.card-title" and repair["by"] == "list"
    assert repair["new"] == "#results h2.card-title" and repair["confidence"] == 1.0
    assert [s["stepId"] for s in answer["steps"] if s.get("healed")] == ["read"]


async def test_a_look_alike_first_in_the_list_is_kept_off_as_the_list_was(
    runs: RunManager, static_pages: tuple[Path, str]
) -> None:
    """The look-alike put before the first item's match names first another kind of element
    (what single fields are healed by): the list is still read as it was, by `regrown`."""
    folder, base = static_pages
    url = f"{base}/list.html"
    await learned(runs, folder, url)
    twin = '<h2 class="card-title promo">Sponsored: hose</h2>'
    first = f'<li class="card">{twin}<h2 class="card-title">Oak chair</h2><span>$9</span></li>'
    page(folder, [first, *(card(t) for t in TITLES[1:])])
    answer = await finished(runs, url)
    assert answer["status"] == "succeeded", answer.get("error")
    assert answer["result"]["titles"] == TITLES
    assert [(r["new"], r["by"]) for r in answer["repairs"]] == [
        ("li.card h2.card-title:not(.promo)", "list")
    ]


@pytest.mark.parametrize(
    "items",
    [
        [card("Oak chair", "", ""), *(card(t) for t in TITLES[1:])],
        [*(card(t) for t in TITLES[:-1]), card("Elm table", "", "")],
    ],
    ids=["first", "last"],
)
async def test_apply_reads_a_list_whole_again_when_its_first_or_last_item_was_unwrapped(
    runs: RunManager, static_pages: tuple[Path, str], items: list[str]
) -> None:
    """Unwrapped before every item or after every item, its match keeps the items' own
    classes, and the list reads in the order it was learned: it is the list's item still."""
    answer = await read_whole_again(runs, static_pages, items)
    assert [(r["new"], r["by"]) for r in answer["repairs"]] == [("#results h2.card-title", "list")]


WRAPPED_OAK = '<li class="card"><div class="title-wrap"><h2 class="card-title">Oak chair</h2></div><span class="price">$9</span></li>'
BOXED_OAK = '<li class="card"><div class="head"><h2 class="card-title">Oak chair</h2><span class="price">$9</span></div></li>'


@pytest.mark.parametrize(
    ("first", "heals"), [(WRAPPED_OAK, True), (BOXED_OAK, False)], ids=["wrapper", "box"]
)
async def test_a_wrapper_holding_one_items_match_alone_leaves_the_list_of_one_shape(
    runs: RunManager, static_pages: tuple[Path, str], first: str, heals: bool
) -> None:
    """One item's match put in a box of its own, another item's class removed: a box holding
    the match alone is no part of the list's shape, and the list is read whole again; a box
    holding the match and more (the item's head) is, and nothing heals."""
    folder, base = static_pages
    url = f"{base}/list.html"
    await learned(runs, folder, url)
    page(folder, [first, card("Pine stool", "<li>"), card("Ash bench"), card("Elm table")])
    answer = await finished(runs, url)
    assert answer["status"] == "succeeded", answer.get("error")
    if heals:
        assert answer["result"]["titles"] == TITLES
        assert [(r["new"], r["by"]) for r in answer["repairs"]] == [
            ("#results h2.card-title", "list")
        ]
    else:
        assert answer["result"]["titles"] == ["Oak chair", "Ash bench", "Elm table"]
        assert "repairs" not in answer


OUT_OF_ORDER = "the list's items are in another order than when it was learned"


@pytest.mark.parametrize(
    ("items", "new"),
    [
        pytest.param(
            # unwrapped before every item, its class renamed: no item of the list's kind is
            # left out, but the learned items all stand in the list's box, in their order
            ['<h2 class="title">Oak chair</h2><span>$9</span>', *(card(t) for t in TITLES[1:])],
            "#results h2",
            id="unwrapped-unlike",
        ),
        pytest.param(
            # retagged and wrapped: no longer at the items' place
            [card("Oak chair", '<span class="wrap"><div class="card">', "</div></span>")]
            + [card(t) for t in TITLES[1:]],
            "#results h2.card-title",
            id="retagged-and-wrapped",
        ),
        pytest.param(
            # the last item unwrapped, its title given a class of its own
            [*map(card, TITLES[:3]), '<h2 class="card-title sc-1f">Elm table</h2><span>$9</span>'],
            "#results h2.card-title",
            id="unwrapped-last",
        ),
        pytest.param(
            # one item wrapped, another's title renamed: read again by the items' place alone,
            # the list would still lack the wrapped one
            [
                *map(card, TITLES[:2]),
                card("Ash bench", '<div class="wrap"><div class="card">', "</div></div>"),
                '<li class="card"><h2 class="unit-8">Elm table</h2><span>$9</span></li>',
            ],
            "#results h2",
            id="wrapped-and-renamed",
        ),
    ],
)
async def test_apply_reads_a_list_whole_again_when_its_lost_items_stand_in_its_box(
    runs: RunManager, static_pages: tuple[Path, str], items: list[str], new: str
) -> None:
    """A list that reads some of its learned items and nothing else, silently short before,
    reads them all again when the others stand in its box, in the learned order."""
    answer = await read_whole_again(runs, static_pages, items)
    assert [(r["old"], r["new"], r["by"]) for r in answer["repairs"]] == [
        ("li.card h2.card-title", new, "list")
    ]


async def test_a_lists_item_moved_out_of_its_box_is_said_not_read(
    runs: RunManager, static_pages: tuple[Path, str]
) -> None:
    """A card's title moved out of the list (after it, in the page's order): whether it still
    belongs to the list cannot be told, so the list is read as the page shows it, and said."""
    folder, base = static_pages
    url = f"{base}/list.html"
    await learned(runs, folder, url)
    untitled = '<li class="card"><span class="price">$9</span></li>'
    page(folder, [*map(card, TITLES[:3]), untitled], after='<h2 class="card-title">Elm table</h2>')
    answer = await finished(runs, url)
    assert answer["status"] == "succeeded" and answer["result"]["titles"] == TITLES[:3]
    assert "repairs" not in answer
    assert answer["warnings"] == [
        "read: not healed, read as shown: 'li.card h2.card-title' (line 17): 1 of the 4 items "
        "it read when learned stand elsewhere on the page, outside its items; read without them"
    ]


@pytest.mark.parametrize(
    ("items", "why"),  # why: what the run says of the list it read as the page shows it
    [
        pytest.param(
            # a fifth item without the class: the list would be longer than it was
            [*(card(t) for t in TITLES), card("Sponsored: hose", "<li>")],
            "items left out that may not belong to the list (set apart, or more than before)",
            id="longer",
        ),
        pytest.param(
            # an item lost its class beside one set apart by a class of its own (the items')
            [
                card("Oak chair"),
                card("Pine stool", "<li>"),
                card("Ad: hose", '<li class="card ad">'),
            ],
            "items left out, and the items it matches are of several kinds",
            id="set-apart",
        ),
        pytest.param(
            # an item the list held, now set apart by a class of its own (sold out): it
            # belongs to the list, read as the page shows it, and the run says so
            [
                card("Oak chair"),
                card("Pine stool", '<li class="card sold-out">'),
                card("Ash bench"),
                card("Elm table"),
            ],
            "1 of its 4 matches set apart by a class the others lack (.sold-out); keep them off "
            "with :not() if not the list's",
            id="held-item-marked",
        ),
        pytest.param(
            # an item set apart put among them while a learned item went: the rest is not the
            # learned list, so whether the new one is an ad or the site's new item is unknown
            [
                card("Oak chair"),
                card("Ad: hose", '<li class="card promo">'),
                *map(card, TITLES[2:]),
            ],
            "1 of its 4 matches set apart by a class the others lack (.promo); keep them off with "
            ":not() if not the list's",
            id="inserted-and-changed",
        ),
        pytest.param(
            # unwrapped before every item, where a script drawing the list one item at a time
            # leaves it: the list no longer reads in the order it was learned
            [card("Pine stool", "", ""), card("Oak chair"), card("Ash bench"), card("Elm table")],
            OUT_OF_ORDER,
            id="unwrapped-first",
        ),
        pytest.param(
            # an item gone from the page: the site's content changed, nothing to tell
            [card("Oak chair"), *map(card, TITLES[2:])],
            None,
            id="item-gone",
        ),
        pytest.param(
            # reordered since it was learned, one item without its class: where it goes is the
            # page's order, which changed, not the markup's
            [card("Elm table"), card("Oak chair", "<li>"), card("Ash bench"), card("Pine stool")],
            OUT_OF_ORDER,
            id="reordered",
        ),
        pytest.param(
            # an item's title moved out of it (or its text no longer in an element of its
            # own): the list reads one item short, and a list of prices beside it misaligned
            [
                card("Oak chair"),
                '<li class="card"><span>Pine </span><span>stool</span></li>',
                *map(card, TITLES[2:]),
            ],
            "1 of its 4 items (li.card) holds no match; read without them",
            id="item-without-match",
        ),
    ],
)
async def test_items_that_may_not_belong_to_the_list_heal_nothing(
    runs: RunManager, static_pages: tuple[Path, str], items: list[str], why: str | None
) -> None:
    answer = await changed_run(runs, static_pages, items)
    assert "repairs" not in answer
    assert not [s for s in answer["steps"] if s.get("healed")]
    # what could not be told apart is said, not read silently
    if why is None:
        assert "warnings" not in answer, answer["warnings"]
    else:
        said = f"read: not healed, read as shown: 'li.card h2.card-title' (line 17): {why}"
        assert answer["warnings"] == [said]


@pytest.mark.parametrize(
    ("twin", "new"),
    [
        ('<h2 class="card-title promo">Sponsored: hose</h2>', "li.card h2.card-title:not(.promo)"),
        (
            '<div class="promo"><h2 class="card-title">Sponsored: hose</h2></div>',
            "li.card h2.card-title:not(.promo *)",
        ),
    ],
    ids=["its-class", "its-box"],
)
async def test_apply_keeps_off_a_look_alike_put_beside_an_items_match(
    runs: RunManager, static_pages: tuple[Path, str], twin: str, new: str
) -> None:
    folder, base = static_pages
    url = f"{base}/list.html"
    await learned(runs, folder, url)
    beside = f'<li class="card">{twin}<h2 class="card-title">Pine stool</h2><span>$9</span></li>'
    page(folder, [card("Oak chair"), beside, card("Ash bench"), card("Elm table")])
    answer = await finished(runs, url)
    assert answer["status"] == "succeeded", answer.get("error")
    assert answer["result"]["titles"] == TITLES
    assert [(r["old"], r["new"], r["by"]) for r in answer["repairs"]] == [
        ("li.card h2.card-title", new, "list")
    ]


COPY = '<ul class="cards promo">' + "".join(card(t) for t in ("Ad: hose", "Ad: rake")) + "</ul>"


KEPT_OFF = "li.card h2.card-title:not(.promo *)"


@pytest.mark.parametrize(
    ("items", "new"),
    [
        pytest.param(
            [
                card("Oak chair"),
                card("Ad: hose", '<li class="card promo">'),
                *map(card, TITLES[1:]),
            ],
            KEPT_OFF,
            id="an-item",
        ),
        pytest.param([*map(card, TITLES), f'</ul>{COPY}<ul class="more">'], KEPT_OFF, id="a-copy"),
        pytest.param(
            [
                card("Oak chair"),
                card("Ad: hose", '<li class="card promo">'),
                card("Pine stool").replace('"card-title"', '"card-title new"'),
                *map(card, TITLES[2:]),
            ],
            KEPT_OFF,
            id="beside-an-item-marked-too",
        ),
        pytest.param(
            # and an item lost its class: read with it again, the ad kept off
            [
                card("Oak chair"),
                card("Ad: hose", '<li class="card promo">'),
                card("Pine stool", "<li>"),
                *map(card, TITLES[2:]),
            ],
            "#results h2.card-title:not(.promo *)",
            id="beside-an-item-lost",
        ),
    ],
)
async def test_apply_keeps_off_what_was_inserted_apart_among_the_learned_items(
    runs: RunManager, static_pages: tuple[Path, str], items: list[str], new: str
) -> None:
    """Matches set apart by a class of their own or their box's (an ad among the cards, a
    promoted copy of the list), reading nothing the list read when learned, while the others
    read exactly the learned list in its order (or do with the items they lost): kept off, the
    list read as it was."""
    answer = await read_whole_again(runs, static_pages, items)
    assert [(r["old"], r["new"], r["by"]) for r in answer["repairs"]] == [
        ("li.card h2.card-title", new, "list")
    ]
    assert [s["stepId"] for s in answer["steps"] if s.get("healed")] == ["read"]


async def test_apply_keeps_off_a_look_alike_item_left_out_beside_an_item_that_lost_its_class(
    runs: RunManager, static_pages: tuple[Path, str]
) -> None:
    """An item's title lost its class, and a look-alike card set apart by a class of its own,
    whose title has none either, stands before it: both at the items' place, the look-alike
    reading nothing the list read. The list is read whole again, the look-alike kept off; one
    that reads an item the list held may be the list's, and nothing heals."""
    folder, base = static_pages
    url = f"{base}/list.html"
    await learned(runs, folder, url)
    untitled = '<li class="card promo"><h2>{}</h2><span class="price">$1</span></li>'
    pine = card("Pine stool").replace(' class="card-title"', "")
    page(folder, [card("Oak chair"), untitled.format("Ad: hose"), pine, *map(card, TITLES[2:])])
    answer = await finished(runs, url)
    assert answer["status"] == "succeeded", answer.get("error")
    assert answer["result"]["titles"] == TITLES
    assert [(r["new"], r["by"]) for r in answer["repairs"]] == [
        ("#results h2:not(.promo *)", "list")
    ]
    page(folder, [card("Oak chair"), untitled.format("Elm table"), pine, *map(card, TITLES[2:])])
    again = await finished(runs, url)
    assert again["status"] == "succeeded" and "repairs" not in again
    assert again["result"]["titles"] == ["Oak chair", "Ash bench", "Elm table"]


PLANS = extracting("plans", "plans: {selector: 'table.plans td.name', all: true}")
PROMO_ROW = '<tr class="row promo"><td class="name">Promo</td><td class="price">$9.99</td><td class="seats">1</td></tr>'


def plans_page(folder: Path, first_id: str, promo: str = "", cell: str = "") -> None:
    rows = "".join(
        f'<tr class="row" id="{first_id if i == 0 else f"row-{n.lower()}"}">'
        f'{cell if i == 0 else ""}<td class="name">{n}</td>'
        f'<td class="price">{p}</td><td class="seats">{s}</td></tr>'
        for i, (n, p, s) in enumerate(
            [("Basic", "€9", "1"), ("Team", "€29", "5"), ("Studio", "€79", "20")]
        )
    )
    html = (
        '<!doctype html><html><head><meta charset="utf-8"></head><body><main><table class="plans"><caption>Prices</caption>'
        f"<tbody>{promo}{rows}</tbody></table></main></body></html>"
    )
    (folder / "plans.html").write_text(html, encoding="utf-8")


@pytest.mark.parametrize(
    ("promo", "plans", "new"),
    [
        (PROMO_ROW, ["Basic", "Team", "Studio"], "table.plans td.name:not(.promo *)"),
        (PROMO_ROW.replace(">Promo<", ">Team<"), ["Team", "Basic", "Team", "Studio"], None),
    ],
    ids=["kept-off", "reads-a-learned-name"],
)
async def test_a_list_is_never_relocated_to_elements_of_several_kinds(
    tmp_path: Path,
    runtime: BrowserRuntime,
    static_pages: tuple[Path, str],
    promo: str,
    plans: list[str],
    new: str | None,
) -> None:
    """A look-alike row put first names another kind of element first: relocating the list
    by the row the names were read from would read that row's cells (a name, a price, seats),
    not a list of names. The row, set apart by a class of its own, is kept off when it reads
    nothing the list read (the list of names reads as it was); when it reads a name the list
    held, nothing is healed and the list reads as the page shows it."""
    folder, base = static_pages
    learned, answer = await answers_over(
        tmp_path, "plans", PLANS, f"{base}/plans.html",
        [lambda: plans_page(folder, "row-basic"), lambda: plans_page(folder, "row-first", promo)],
        runtime,
    )  # fmt: skip
    assert learned["result"] == {"plans": ["Basic", "Team", "Studio"]}
    assert answer["status"] == "succeeded", answer.get("error")
    assert answer["result"] == {"plans": plans}  # names, never a row's cells
    assert [(r["new"], r["by"]) for r in answer.get("repairs", [])] == (
        [(new, "list")] if new else []
    )


async def test_a_look_alike_cell_first_in_a_row_is_kept_off_the_list(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    """A look-alike cell put before the first row's name names first another kind of element;
    relocating the list by its first name is not clear (the rows' cells alike), reading the
    list as it was without the look-alike is."""
    folder, base = static_pages
    _, answer = await answers_over(
        tmp_path, "plans", PLANS, f"{base}/plans.html",
        [lambda: plans_page(folder, "row-basic"),
         lambda: plans_page(folder, "row-basic", cell='<td class="name promo">Sold out</td>')],
        runtime,
    )  # fmt: skip
    assert answer["status"] == "succeeded", answer.get("error")
    assert answer["result"] == {"plans": ["Basic", "Team", "Studio"]}
    assert [(r["new"], r["by"]) for r in answer["repairs"]] == [
        ("table.plans td.name:not(.promo)", "list")
    ]


async def test_a_list_learned_with_an_item_holding_no_match_says_nothing_of_it(
    runs: RunManager, static_pages: tuple[Path, str]
) -> None:
    """A card without a title when the list was learned (a product without a sale price) is
    the page's way, not a change: runs reading it so again say nothing."""
    folder, base = static_pages
    url = f"{base}/list.html"
    untitled = '<li class="card"><span class="price">$5</span></li>'
    page(folder, [card("Oak chair"), untitled, *map(card, TITLES[1:])])
    first = await finished(runs, url)
    assert first["status"] == "succeeded" and first["result"]["titles"] == TITLES
    kept = await runs.store.fingerprints("wood_list", "1.0.0")
    assert kept[PLACE]["bare"] == 1
    again = await finished(runs, url)
    assert again["status"] == "succeeded" and again["result"]["titles"] == TITLES
    assert "warnings" not in again, again["warnings"]
