"""`dsl record` over the real Chromium fingerprints each selector where its step reads it: a list
a script draws after load is read after extract waited for it (a record's own fields inside the
first record), so a class renamed later is repaired by `dsl test --live --suggest`; a selector
that matched nothing is named in a warning, kept in the recording; and when no repair is found,
the message says what failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from taskplate.dsl import selector_spans
from taskplate.interpreter.heal import Seen
from tests.cli.test_record_and_test import dsl
from tests.fixtures.static_site import static_site

SHOP_CARDS = """\
template: shop_cards
version: 1.0.0
inputs:
  type: object
  properties:
    url: {type: string}
steps:
  - id: open
    action: navigate
    with: {url: "${{ inputs.url }}"}
  - id: listing
    action: extract
    with:
      fields:
        products:
          selector: .card
          all: true
          fields:
            name: .name
            price: .price
output: ${{ steps.listing.values }}
"""

PRODUCTS = [("Desk lamp", "12.50"), ("Floor lamp", "40.00"), ("Wall lamp", "22.00")]


def drawn_listing(card: str = "card", extra: str = "") -> str:
    """A shop listing whose cards a script draws 300 ms after load."""
    cards = json.dumps(PRODUCTS)
    return f"""<!doctype html><title>Shop</title><main><h1>Lamps</h1>{extra}<div id=grid></div>
</main><script>
setTimeout(() => {{
  const grid = document.getElementById('grid');
  for (const [name, price] of {cards}) {{
    const card = document.createElement('div');
    card.className = '{card}';
    card.innerHTML = `<h2 class=name>${{name}}</h2><p class=price>${{price}}</p>`;
    grid.append(card);
  }}
}}, 300);
</script>"""


def shop(tmp_path: Path, template: str = SHOP_CARDS) -> tuple[Path, Path]:
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    (folder / "shop_cards.yaml").write_text(template, encoding="utf-8")
    (pages / "listing.html").write_text(drawn_listing(), encoding="utf-8")
    return folder, pages


def kept(folder: Path) -> dict[str, Any]:
    har = folder / "shop_cards.recordings" / "default.har"
    made: dict[str, Any] = json.loads(har.read_text(encoding="utf-8"))["log"]["_taskplate"]
    return made


def test_a_list_a_script_draws_is_fingerprinted_after_extract_waited_and_a_rename_repaired(
    tmp_path: Path,
) -> None:
    folder, pages = shop(tmp_path)
    with static_site(pages) as base:
        recorded = dsl(folder, "record", "shop_cards.yaml", "--input", f"url={base}/listing.html")
        assert recorded.returncode == 0, recorded.stderr
        assert "warning" not in recorded.stderr
        made = kept(folder)
        assert "warnings" not in made
        elements = {tuple(k["path"]): k for k in made["elements"]}
        cards = elements["fields", "products"]
        assert cards["count"] == 3 and cards["element"]["classes"] == ["card"]
        inner = elements["fields", "products", "fields", "name"]  # inside the first card
        assert inner["count"] == 1 and inner["element"]["text"] == "Desk lamp"

        (pages / "listing.html").write_text(drawn_listing("product-tile"), encoding="utf-8")
        suggested = dsl(folder, "test", "--live", "--suggest")
        assert suggested.returncode == 1, suggested.stdout + suggested.stderr
        repair = suggested.stdout.split("suggested repair for shop_cards/default", 1)[-1]
        assert "-          selector: .card\n+          selector: div.product-tile\n" in repair
        assert (folder / "shop_cards.yaml").read_text(encoding="utf-8") == SHOP_CARDS

        # a recording made when `dsl record` read the list before extract waited for it keeps
        # no element of it: repair reads it again on a replay of the recording
        har_path = folder / "shop_cards.recordings" / "default.har"
        har = json.loads(har_path.read_text(encoding="utf-8"))
        for element in har["log"]["_taskplate"]["elements"]:
            element.update(count=0, element=None, read=None)
        har_path.write_text(json.dumps(har), encoding="utf-8")
        older = dsl(folder, "test", "--live", "--suggest")
    assert older.returncode == 1, older.stdout + older.stderr
    assert "-          selector: .card\n+          selector: div.product-tile\n" in older.stdout


WITH_BADGE = SHOP_CARDS.replace("        products:\n", "        badge: .badge\n        products:\n")


def test_a_selector_that_matched_nothing_when_recorded_is_named_in_a_kept_warning(
    tmp_path: Path,
) -> None:
    folder, pages = shop(tmp_path, WITH_BADGE)
    with static_site(pages) as base:
        recorded = dsl(folder, "record", "shop_cards.yaml", "--input", f"url={base}/listing.html")
    assert recorded.returncode == 0, recorded.stderr
    said = (
        "line 15: the selector '.badge' of step listing matched nothing where the step read it, "
        "so the recording keeps no fingerprint of its element and a repair cannot look for it"
    )
    assert f"warning: {said}" in recorded.stderr
    assert "'.card'" not in recorded.stderr and "'.name'" not in recorded.stderr
    assert [w for w in kept(folder)["warnings"] if said in w] != []


def test_no_repair_says_what_failed_not_that_every_selector_matched() -> None:
    from taskplate.interpreter.cases._repair_why import why_no_repair

    spans = {(s.step_id, s.path): s for s in selector_spans(SHOP_CARDS)}
    cards = (("listing", ("fields", "products")), None)
    card = {"tag": "div", "text": "Desk lamp 12.50"}
    failed = {"error": {"errorCode": "STEP_EXECUTION_FAILED", "error": "step listing failed"}}

    problem, hint = why_no_repair(spans, {cards: Seen(0, None)}, {cards: Seen(0, None)}, failed)
    assert problem == (
        "the selector '.card' (line 16) found nothing live, and the recording keeps no element "
        "matched by it (it matched nothing as the case was recorded): there is no fingerprint "
        "to look for the element by"
    )
    assert "`dsl record` warns" in hint

    # every selector finds its element: the run's own failure is named
    same = {cards: Seen(3, card, "x", True)}
    problem, _ = why_no_repair(spans, same, same, failed)
    assert problem == (
        "every selector the live run read names the element it matched in the recording; the "
        "run failed otherwise: STEP_EXECUTION_FAILED: step listing failed"
    )
    assert "the case fails for another reason" not in problem

    # it finds an element as alike, which reads another value now: the site changed it
    problem, _ = why_no_repair(spans, {cards: Seen(3, card, "y", True)}, same, {})
    assert problem == (
        "the selector '.card' (line 16) names the element most like the recorded one, which "
        "reads another value now: the site changed it"
    )


STAMPED = SHOP_CARDS.replace(
    "output: ${{ steps.listing.values }}",
    "output:\n  products: ${{ steps.listing.values.products }}\n  at: ${{ now() }}",
)


def test_dsl_test_shows_one_diff_per_failing_case_and_points_a_lost_element_to_suggest(
    tmp_path: Path,
) -> None:
    folder, pages = shop(tmp_path, STAMPED)
    with static_site(pages) as base:
        recorded = dsl(folder, "record", "shop_cards.yaml", "--input", f"url={base}/listing.html")
        assert recorded.returncode == 0, recorded.stderr
        # the output holds now(): live, it differs from what was expected and recorded alike
        moved = dsl(folder, "test", "--live")
        assert moved.returncode == 1, moved.stdout
        assert moved.stdout.count("+++ ") == 1 and "--- expected" in moved.stdout
        assert "--- recorded" not in moved.stdout
        assert "--suggest" not in moved.stdout  # no selector lost its element

        # expecting the products only, the case passes live: no diff under it
        case_file = folder / "shop_cards.test.yaml"
        products = [{"name": n, "price": p} for n, p in PRODUCTS]
        case = case_file.read_text(encoding="utf-8").split("  expect:", 1)[0]
        expect = {"status": "succeeded", "output": {"subset": {"products": products}}}
        case_file.write_text(f"{case}  expect: {json.dumps(expect)}\n", encoding="utf-8")
        passed = dsl(folder, "test", "--live")
        assert passed.returncode == 0, passed.stdout
        assert "+++ " not in passed.stdout
        assert "the output differs from the recording's where the case expects nothing" in (
            passed.stdout
        )
        report = json.loads(dsl(folder, "test", "--live", "--format", "json").stdout)
        assert report["cases"][0]["drift"][0].startswith("output recorded -> now:")

        # the cards' class renamed: the subset shows no diff, so the drift's is the one
        (pages / "listing.html").write_text(drawn_listing("product-tile"), encoding="utf-8")
        lost = dsl(folder, "test", "--live")
    assert lost.returncode == 1, lost.stdout
    assert lost.stdout.count("+++ ") == 1 and "--- recorded" in lost.stdout
    assert (
        "a selector found nothing on the live page: `dsl test --live --suggest` looks for the "
        "element it matched in the recording"
    ) in lost.stdout
