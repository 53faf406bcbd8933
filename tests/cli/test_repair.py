"""`dsl test --live --suggest` over the real Chromium: when the fixture site's markup changed
under a recorded case (an id changed, a class renamed, an element moved), the selectors that
stopped matching get new ones, checked by running the case live, shown as a diff of the
template's source; `--fix` writes only those lines, comments kept, and the case passes live.
No candidate, or --fix/--suggest out of place: a clear message, nothing written."""

from __future__ import annotations

import difflib
import json
import shlex
from pathlib import Path

import pytest

from tests.cli.test_record_and_test import dsl
from tests.fixtures.static_site import static_site

PRODUCT = """\
# A product page's name and price.
template: product
version: 1.0.0
name: Product
description: Read a product page's name and price once its summary is there.
trust: [local]
inputs:
  type: object
  additionalProperties: false
  required: [url]
  properties:
    url: {type: string}
steps:
  - id: open
    action: navigate
    with: {url: "${{ inputs.url }}"}
  - id: ready   # the summary shows once the page is ready
    action: wait_for
    with: {selector: "#summary", timeoutMs: 1000}
  - id: read
    action: extract
    with:
      fields:
        name: .name          # the heading
        price: {selector: 'main p.price'}   # in the summary
output:
  name: ${{ steps.read.values.name }}
  price: ${{ steps.read.values.price }}
"""

RECORDED = """<!doctype html><title>Lamp</title><main>
<h1 class=name>Desk lamp</h1>
<section id=summary><p>In stock.</p></section>
<p class=note>Ships in two days.</p>
<p class=price data-testid=price>12.50</p>
</main>"""

# the id changed, the price's class renamed and the price moved into the summary
CHANGED = """<!doctype html><title>Lamp</title><main>
<h1 class=name>Desk lamp</h1>
<section id=overview><p>In stock.</p><p class=cost data-testid=price>12.50</p></section>
<p class=note>Ships in two days.</p>
</main>"""

# the price is gone: nothing on the page is like it
NO_PRICE = RECORDED.replace("<p class=price data-testid=price>12.50</p>\n", "")


@pytest.fixture
def product(tmp_path: Path) -> tuple[Path, Path]:
    """A folder with product.yaml and its recorded case, and the folder of the site's page."""
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    (folder / "product.yaml").write_text(PRODUCT, encoding="utf-8")
    (pages / "lamp.html").write_text(RECORDED, encoding="utf-8")
    return folder, pages


def test_a_renamed_and_moved_element_gets_a_checked_selector_as_a_diff_and_fix_writes_it(
    product: tuple[Path, Path],
) -> None:
    folder, pages = product
    with static_site(pages) as base:
        url = f"{base}/lamp.html"
        assert dsl(folder, "record", "product.yaml", "--input", f"url={url}").returncode == 0
        case = (folder / "product.test.yaml").read_text(encoding="utf-8")
        assert "price: '12.50'" in case
        (pages / "lamp.html").write_text(CHANGED, encoding="utf-8")
        suggested = dsl(folder, "test", "--live", "--suggest")
        assert suggested.returncode == 1, suggested.stdout + suggested.stderr
        assert (folder / "product.yaml").read_text(encoding="utf-8") == PRODUCT  # not written
        out = suggested.stdout
        assert "FAIL product/default" in out
        assert "suggested repair for product/default (the case passes live with it" in out
        assert "--- a/product.yaml\n+++ b/product.yaml\n" in out
        assert '-    with: {selector: "#summary", timeoutMs: 1000}' in out
        assert '+    with: {selector: "#overview", timeoutMs: 1000}' in out
        assert "-        price: {selector: 'main p.price'}   # in the summary" in out
        assert "+        price: {selector: 'p[data-testid=\"price\"]'}   # in the summary" in out
        assert "run again with --fix to write it" in out

        fixed = dsl(folder, "test", "--live", "--suggest", "--fix")
        assert fixed.returncode == 1, fixed.stdout  # the case failed; its fix is written
        assert f"written to {folder / 'product.yaml'}" in fixed.stdout
        after = (folder / "product.yaml").read_text(encoding="utf-8")
        changed = [
            line
            for line in difflib.unified_diff(PRODUCT.splitlines(), after.splitlines(), n=0)
            if line[:1] in "+-" and line[:3] not in ("+++", "---")
        ]
        assert changed == [
            '-    with: {selector: "#summary", timeoutMs: 1000}',
            '+    with: {selector: "#overview", timeoutMs: 1000}',
            "-        price: {selector: 'main p.price'}   # in the summary",
            "+        price: {selector: 'p[data-testid=\"price\"]'}   # in the summary",
        ]
        assert "# the summary shows once the page is ready" in after  # comments kept

        passes = dsl(folder, "test", "--live", "--format", "json")
        assert passes.returncode == 0, passes.stdout
        assert json.loads(passes.stdout)["cases"][0]["outcome"] == "passed"

        # offline, the case replays the pages as recorded: stale, and the output says so
        assert "the offline case product/default is stale now" in fixed.stdout
        again = fixed.stdout.split("are made again too):\n  ", 1)[1].splitlines()[0]
        assert again == f"dsl record {folder / 'product.yaml'} --name default --input url={url}"
        assert dsl(folder, *shlex.split(again)[1:]).returncode == 0
        assert dsl(folder, "test").returncode == 0  # offline, from the new recording


def test_no_element_like_the_recorded_one_is_a_clear_message_and_nothing_is_written(
    product: tuple[Path, Path],
) -> None:
    folder, pages = product
    with static_site(pages) as base:
        url = f"{base}/lamp.html"
        assert dsl(folder, "record", "product.yaml", "--input", f"url={url}").returncode == 0
        (pages / "lamp.html").write_text(NO_PRICE, encoding="utf-8")
        done = dsl(folder, "test", "--live", "--suggest", "--fix")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no repair for product/default: ELEMENT_NOT_FOUND" in done.stdout
    assert (
        "no element of the live page is like the one 'main p.price' (line 25) matched"
        in done.stdout
    )
    assert "hint: Fix the selector by hand" in done.stdout
    assert "written to" not in done.stdout
    assert (folder / "product.yaml").read_text(encoding="utf-8") == PRODUCT


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--live", "--fix"], "--fix writes what --suggest finds"),
        (["--fix"], "--fix writes what --suggest finds"),
        (["--suggest"], "--suggest compares the live pages with the recording: add --live"),
        (["--suggest", "--fix"], "--suggest compares the live pages with the recording"),
    ],
)
def test_fix_or_suggest_out_of_place_is_a_usage_error(
    product: tuple[Path, Path], args: list[str], said: str
) -> None:
    folder, _ = product
    done = dsl(folder, "test", *args)
    assert done.returncode == 2
    assert said in done.stderr
    assert (folder / "product.yaml").read_text(encoding="utf-8") == PRODUCT


SHOP = """\
template: shop
version: 1.0.0
inputs:
  type: object
  properties:
    url: {type: string}
steps:
  - id: open
    action: navigate
    with: {url: "${{ inputs.url }}"}
  - id: read
    action: extract
    with:
      fields:
        title: h1.title
        sku: {selector: 'main > div:nth-of-type(1)', attr: data-sku}
output: ${{ steps.read.values }}
"""

SHOP_PAGE = """<!doctype html><title>Shop</title><main>
<div class=product id=lamp data-sku=LMP-204><h1 class=title>Desk lamp</h1></div>
</main>"""

# a promotion with the product's classes before it, and the attribute read renamed
SHOP_CHANGED = """<!doctype html><title>Shop</title><main>
<div class="product promo"><h1 class=title>Garden hose</h1></div>
<div class=product id=lamp data-code=LMP-204><h1 class=title>Desk lamp</h1></div>
</main>"""


def test_record_warns_of_a_place_and_a_look_alike_and_a_renamed_attribute_are_repaired(
    tmp_path: Path,
) -> None:
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    (folder / "shop.yaml").write_text(SHOP, encoding="utf-8")
    (pages / "shop.html").write_text(SHOP_PAGE, encoding="utf-8")
    with static_site(pages) as base:
        recorded = dsl(folder, "record", "shop.yaml", "--input", f"url={base}/shop.html")
        assert recorded.returncode == 0, recorded.stderr
        assert (
            "warning: line 16: the selector 'main > div:nth-of-type(1)' of step read names its "
            "element by its place among its siblings, which a redesign changes; '#lamp' names "
            "the same element"
        ) in recorded.stderr
        har = json.loads((folder / "shop.recordings" / "default.har").read_text("utf-8"))
        kept = {k["path"][-1]: k for k in har["log"]["_taskplate"]["elements"]}
        assert kept["sku"]["read"] == "LMP-204"
        assert kept["title"]["element"]["parent"]["id"] == "lamp"

        (pages / "shop.html").write_text(SHOP_CHANGED, encoding="utf-8")
        fixed = dsl(folder, "test", "--live", "--suggest", "--fix")
        assert fixed.returncode == 1, fixed.stdout + fixed.stderr
        assert "suggested repair for shop/default" in fixed.stdout, fixed.stdout
        after = (folder / "shop.yaml").read_text(encoding="utf-8")
        changed = [
            line
            for line in difflib.unified_diff(SHOP.splitlines(), after.splitlines(), n=0)
            if line[:1] in "+-" and line[:3] not in ("+++", "---")
        ]
        assert changed == [
            "-        title: h1.title",
            "-        sku: {selector: 'main > div:nth-of-type(1)', attr: data-sku}",
            "+        title: '#lamp > h1'",
            "+        sku: {selector: '#lamp', attr: data-code}",
        ]
        passes = dsl(folder, "test", "--live", "--format", "json")
        assert passes.returncode == 0, passes.stdout


PLANS = SHOP.replace("template: shop", "template: plans").replace(
    "        title: h1.title\n        sku: {selector: 'main > div:nth-of-type(1)', attr: data-sku}",
    "        caption: table.plans caption\n        plans: {selector: 'table.plans td.name', all: true}",
)


def plans_table(caption: str, names: list[str], classes: str = "plans") -> str:
    rows = "".join(f"<tr><td class=name>{n}</td><td class=price>9</td></tr>" for n in names)
    return f'<table class="{classes}"><caption>{caption}</caption><tbody>{rows}</tbody></table>'


def test_a_look_alike_of_an_element_without_classes_is_kept_off_by_its_box(
    tmp_path: Path,
) -> None:
    """A promotion table with the plans table's class put before it: the caption, which has no
    class of its own, is kept off the promotion's by the box that sets it apart, as the list
    is."""
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    (folder / "plans.yaml").write_text(PLANS, encoding="utf-8")
    plans = plans_table("Monthly prices", ["Basic", "Team", "Studio"])
    (pages / "plans.html").write_text(f"<main>{plans}</main>", encoding="utf-8")
    with static_site(pages) as base:
        recorded = dsl(folder, "record", "plans.yaml", "--input", f"url={base}/plans.html")
        assert recorded.returncode == 0, recorded.stderr
        promo = plans_table("$9.99", ["Sold out", "2.1", "Promo"], "plans promo")
        (pages / "plans.html").write_text(f"<main>{promo}{plans}</main>", encoding="utf-8")
        suggested = dsl(folder, "test", "--live", "--suggest")
    said = suggested.stdout + suggested.stderr
    assert "suggested repair for plans/default (the case passes live with it" in said, said
    assert "+        caption: 'table.plans caption:not(.promo *)'" in said, said
    assert "+        plans: {selector: 'table.plans td.name:not(.promo *)', all: true}" in said


def plans_rows(table_class: str, first_class: str, promo: str = "") -> str:
    rows = "".join(
        f'<tr id="row-{n.lower()}" class="row"><td class="{first_class if i == 0 else "name"}">'
        f"{n}</td>{promo if i == 2 else ''}<td class=price>{p}</td><td class=seats>{s}</td></tr>"
        for i, (n, p, s) in enumerate(
            [("Basic", "9", "1"), ("Team", "29", "5"), ("Studio", "79", "20")]
        )
    )
    return (
        f'<main><table class="{table_class}"><caption>Monthly prices</caption>'
        f"<tbody>{rows}</tbody></table></main>"
    )


def test_a_list_is_offered_first_the_selectors_that_read_the_recorded_items(
    tmp_path: Path,
) -> None:
    """The table's class renamed, the first cell's class dropped and a look-alike cell put in
    a row: the first element's own selectors (its row's cells) fit the list's count but read
    other items; the one that reads the recorded items (each row's first cell) is checked
    first, before the live runs run out."""
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    (folder / "plans.yaml").write_text(PLANS, encoding="utf-8")
    (pages / "plans.html").write_text(plans_rows("plans", "name"), encoding="utf-8")
    with static_site(pages) as base:
        recorded = dsl(folder, "record", "plans.yaml", "--input", f"url={base}/plans.html")
        assert recorded.returncode == 0, recorded.stderr
        promo = '<td class="name promo">$9.99</td>'
        changed = plans_rows("sc-b9c70e", "", promo)
        (pages / "plans.html").write_text(changed, encoding="utf-8")
        suggested = dsl(folder, "test", "--live", "--suggest")
    said = suggested.stdout + suggested.stderr
    assert "suggested repair for plans/default (the case passes live with it" in said, said


STORY = SHOP.replace("template: shop", "template: story").replace(
    "        title: h1.title\n        sku: {selector: 'main > div:nth-of-type(1)', attr: data-sku}",
    "        headline: article h1.headline\n        lead: p.lead",
)


def story(tag: str, headline: str, lead: str, classes: str = "story") -> str:
    return (
        f'<article class="{classes}"><{tag} class="headline">{headline}</{tag}>'
        f'<p class="lead">{lead}</p></article>'
    )


def test_look_alikes_of_a_retagged_element_have_its_new_tag(tmp_path: Path) -> None:
    """The headline retagged (h1 to h2) and a promotion with the story's classes put after it:
    the look-alikes to keep off are of the new tag, set apart by the promotion's class."""
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    (folder / "story.yaml").write_text(STORY, encoding="utf-8")
    first = story("h1", "River town opens a bridge", "It links both banks.")
    (pages / "story.html").write_text(f"<main>{first}</main>", encoding="utf-8")
    with static_site(pages) as base:
        recorded = dsl(folder, "record", "story.yaml", "--input", f"url={base}/story.html")
        assert recorded.returncode == 0, recorded.stderr
        retagged = story("h2", "River town opens a bridge", "It links both banks.")
        promo = story("h2", "$9.99", "Sold out", "story promo")
        (pages / "story.html").write_text(f"<main>{retagged}{promo}</main>", encoding="utf-8")
        suggested = dsl(folder, "test", "--live", "--suggest")
    said = suggested.stdout + suggested.stderr
    assert "suggested repair for story/default (the case passes live with it" in said, said
    assert "+        headline: 'h2.headline:not(.promo *)'" in said, said
