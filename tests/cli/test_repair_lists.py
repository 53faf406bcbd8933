"""`dsl test --live --suggest` reads a list as runs heal it (`regrown`, the list rules): `dsl
record` keeps how many elements at the items' place the list left out; when the first item's
title was retagged, no selector of the element most like the recorded one names the four
titles, and the list rule's does; a list the site reordered reads the recorded items in the
page's new order, which no selector undoes: `dsl test` says so (with the repair of what else
changed, when something did); a list that lost an item too gets nothing. Real Chromium, a local static site changed after the recording."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_record_and_test import dsl
from tests.fixtures.static_site import static_site
from tests.healing_templates import extracting

TEMPLATE = extracting("wood", "titles: {selector: 'li.card h2.card-title', all: true}", heal=None)
TITLES = ["Oak chair", "Pine stool", "Ash bench", "Elm table"]


def listing(titles: list[str], first_tag: str = "h2") -> str:
    cards = "".join(
        f'<li class="card"><{tag} class="card-title">{t}</{tag}><span class="price">$9</span></li>'
        for i, t in enumerate(titles)
        for tag in [first_tag if i == 0 else "h2"]
    )
    return (
        '<!doctype html><html><body><main><h1 class="heading">Wood</h1>'
        f'<ul class="cards" id="results">{cards}</ul></main></body></html>'
    )


def recorded(tmp_path: Path) -> tuple[Path, Path]:
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    (folder / "wood.yaml").write_text(TEMPLATE, encoding="utf-8")
    (pages / "list.html").write_text(listing(TITLES), encoding="utf-8")
    return folder, pages


def test_suggest_reads_a_list_whole_again_by_the_list_rule(tmp_path: Path) -> None:
    folder, pages = recorded(tmp_path)
    with static_site(pages) as base:
        made = dsl(folder, "record", "wood.yaml", "--input", f"url={base}/list.html")
        assert made.returncode == 0, made.stderr
        har = folder / "wood.recordings" / "default.har"
        kept = json.loads(har.read_text(encoding="utf-8"))["log"]["_taskplate"]["elements"]
        assert [(k["count"], k["left"]) for k in kept] == [(4, 0)]
        (pages / "list.html").write_text(listing(TITLES, "h3"), encoding="utf-8")
        suggested = dsl(folder, "test", "--live", "--suggest")
    assert suggested.returncode == 1, suggested.stdout + suggested.stderr
    assert (
        "-        titles: {selector: 'li.card h2.card-title', all: true}\n"
        "+        titles: {selector: '#results .card-title', all: true}\n"
    ) in suggested.stdout


def test_suggest_repairs_a_list_the_site_also_reordered_and_says_it_was_reordered(
    tmp_path: Path,
) -> None:
    """A title retagged while the site reordered the list: the repaired list reads every item
    recorded, in the page's new order, which no selector undoes. The diff is offered with that
    said and the command that records the case again; the case is not claimed to pass."""
    folder, pages = recorded(tmp_path)
    with static_site(pages) as base:
        made = dsl(folder, "record", "wood.yaml", "--input", f"url={base}/list.html")
        assert made.returncode == 0, made.stderr
        reordered = [TITLES[2], TITLES[0], TITLES[3], TITLES[1]]
        (pages / "list.html").write_text(listing(reordered, "h3"), encoding="utf-8")
        suggested = dsl(folder, "test", "--live", "--suggest")
        applied = dsl(folder, "repair", "apply", "--from-test", "wood.yaml")
    assert applied.returncode != 0, applied.stdout + applied.stderr
    assert "reads the list at /titles in the site's new order" in applied.stderr, applied.stderr
    assert (folder / "wood.yaml").read_text(encoding="utf-8") == TEMPLATE
    said = suggested.stdout + suggested.stderr
    assert suggested.returncode == 1, said
    assert (
        "suggested repair for wood/default (line 15): with it the case reads every value it "
        "recorded, the list at /titles in another order: the site reordered them, which no "
        "selector undoes; the case passes once recorded again (dsl record "
    ) in said, said
    assert "the case passes live with it" not in said
    assert (
        "-        titles: {selector: 'li.card h2.card-title', all: true}\n"
        "+        titles: {selector: '#results .card-title', all: true}\n"
    ) in said, said
    assert "Traceback" not in said


def test_suggest_offers_nothing_for_a_list_reordered_with_an_item_gone(tmp_path: Path) -> None:
    """The site reordered the list and dropped an item: no selector reads what was recorded in
    any order, and nothing is suggested."""
    folder, pages = recorded(tmp_path)
    with static_site(pages) as base:
        made = dsl(folder, "record", "wood.yaml", "--input", f"url={base}/list.html")
        assert made.returncode == 0, made.stderr
        reordered = [TITLES[2], TITLES[0], TITLES[1]]
        (pages / "list.html").write_text(listing(reordered, "h3"), encoding="utf-8")
        suggested = dsl(folder, "test", "--live", "--suggest")
    assert suggested.returncode == 1, suggested.stdout + suggested.stderr
    assert "+++ b/wood.yaml" not in suggested.stdout
    assert "no repair for wood/default" in suggested.stdout + suggested.stderr


def test_suggest_says_a_list_reads_its_recorded_items_in_another_order(tmp_path: Path) -> None:
    """Every item recorded, and no other, in another order: the site reordered the list, which
    no selector undoes; `dsl test` says so at once instead of trying selectors."""
    folder, pages = recorded(tmp_path)
    with static_site(pages) as base:
        made = dsl(folder, "record", "wood.yaml", "--input", f"url={base}/list.html")
        assert made.returncode == 0, made.stderr
        (pages / "list.html").write_text(listing(TITLES[::-1]), encoding="utf-8")
        suggested = dsl(folder, "test", "--live", "--suggest")
    said = suggested.stdout + suggested.stderr
    assert suggested.returncode == 1, said
    assert "+++ b/wood.yaml" not in said
    assert (
        "no repair for wood/default: ELEMENT_NOT_FOUND: wood/default: the list "
        "'li.card h2.card-title' (line 15) reads the items recorded, in another order: the site "
        "reordered them, which no selector undoes"
    ) in said, said
    assert "Traceback" not in said
