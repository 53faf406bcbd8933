"""`dsl run` says what a run healed: after a run that succeeded, the site renamed a class; the
next run with `heal: apply` finishes and says on stderr which selector it healed and the
template's diff; `--heal suggest` narrows it, and the run fails with the diff suggested."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_record_and_test import dsl
from tests.fixtures.static_site import static_site
from tests.interpreter.test_healing import LISTING, TEMPLATE


def test_dsl_run_says_what_it_healed_and_heal_narrows_it(tmp_path: Path) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    (tmp_path / "shop_cards.yaml").write_text(TEMPLATE.format(heal="apply"), encoding="utf-8")
    page = pages / "listing.html"
    page.write_text(LISTING.replace("CARD", "card"), encoding="utf-8")
    with static_site(pages) as base:
        url = f"url={base}/listing.html"
        first = dsl(tmp_path, "run", "shop_cards.yaml", "--input", url, "--json")
        assert first.returncode == 0, first.stderr
        assert "healed" not in first.stderr
        page.write_text(LISTING.replace("CARD", "product-tile"), encoding="utf-8")
        narrowed = dsl(
            tmp_path, "run", "shop_cards.yaml", "--input", url, "--json", "--heal", "suggest"
        )
        healed = dsl(tmp_path, "run", "shop_cards.yaml", "--input", url, "--json")
    assert narrowed.returncode == 1
    assert "suggested: step listing, line 20: 'li.card' → 'li.product-tile'" in narrowed.stderr
    assert "+          selector: li.product-tile" in narrowed.stderr
    assert healed.returncode == 0, healed.stderr
    assert "healed: step listing, line 20: 'li.card' → 'li.product-tile'" in healed.stderr
    assert "-          selector: li.card\n+          selector: li.product-tile" in healed.stderr
    answer = json.loads(healed.stdout)
    assert answer["repairs"][0]["new"] == "li.product-tile" and answer["repairDiff"]
    assert answer["result"]["cards"][0] == {"title": "Desk lamp", "price": "$40"}
