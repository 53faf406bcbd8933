"""`dsl repair apply` over the real Chromium: a repair is written into the template file only
once every test case of the template passes live with it; when one fails, a coded refusal names
it and the file is as it was (no part file left). A run's repair (its repairDiff) plugs into the
same mechanism; a run without one, or a template changed since, is refused clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import Patch, patch_of_run
from taskplate.interpreter.cases._repair_apply import patched_source
from tests.cli.test_record_and_test import dsl
from tests.cli.test_repair_drawn import SHOP_CARDS, drawn_listing
from tests.fixtures.static_site import static_site

REPAIRED = SHOP_CARDS.replace("selector: .card\n", "selector: div.product-tile\n")
DIFF = """\
--- a/shop_cards.yaml
+++ b/shop_cards.yaml
@@ -13,7 +13,7 @@
     with:
       fields:
         products:
-          selector: .card
+          selector: div.product-tile
           all: true
           fields:
             name: .name
"""


def test_a_repair_is_written_only_once_every_case_of_the_template_passes_live_with_it(
    tmp_path: Path,
) -> None:
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    template = folder / "shop_cards.yaml"
    template.write_text(SHOP_CARDS, encoding="utf-8")
    for name in ("listing", "other"):
        (pages / f"{name}.html").write_text(drawn_listing(), encoding="utf-8")
    with static_site(pages) as base:
        for name in ("listing", "other"):
            url = f"url={base}/{name}.html"
            done = dsl(folder, "record", "shop_cards.yaml", "--input", url, "--name", name)
            assert done.returncode == 0, done.stderr
        # one page renamed its cards' class, the other did not: the repair of the first
        # breaks the second case, so nothing is written
        (pages / "listing.html").write_text(drawn_listing("product-tile"), encoding="utf-8")
        refused = dsl(folder, "repair", "apply", "--from-test", "shop_cards.yaml")
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "ASSERTION_FAILED" in refused.stderr
        assert "not written: the case shop_cards/other (shop_cards.test.yaml:" in refused.stderr
        assert "fails live with the repair: status: expected succeeded, got failed" in (
            refused.stderr
        )
        assert "Traceback" not in refused.stderr
        assert template.read_text(encoding="utf-8") == SHOP_CARDS
        assert [p.name for p in folder.iterdir() if p.name.endswith(".part")] == []

        # both pages renamed it: both cases pass live with the repair, which is written
        (pages / "other.html").write_text(drawn_listing("product-tile"), encoding="utf-8")
        applied = dsl(folder, "repair", "apply", "--from-test", "shop_cards.yaml")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "-          selector: .card\n+          selector: div.product-tile\n" in applied.stdout
    assert (
        f"written to {template} (cases passed live with it: shop_cards/listing, shop_cards/other)"
    ) in applied.stdout
    assert "dsl record" in applied.stdout  # the offline cases are stale: how to record them
    assert template.read_text(encoding="utf-8") == REPAIRED


def test_a_run_without_a_repair_or_unknown_is_refused_with_a_code(tmp_path: Path) -> None:
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    (folder / "shop_cards.yaml").write_text(SHOP_CARDS, encoding="utf-8")
    (pages / "listing.html").write_text(drawn_listing(), encoding="utf-8")
    with static_site(pages) as base:
        ran = dsl(folder, "run", "shop_cards.yaml", "--input", f"url={base}/listing.html")
    assert ran.returncode == 0, ran.stderr
    run_id = json.loads(ran.stdout)["runId"]
    none = dsl(folder, "repair", "apply", run_id)
    assert none.returncode == 1
    assert f"error: run {run_id} has no repair to apply [INVALID_PARAMETER]" in none.stderr
    unknown = dsl(folder, "repair", "apply", "run-that-is-not")
    assert unknown.returncode == 1 and "RUN_NOT_FOUND" in unknown.stderr
    both = dsl(folder, "repair", "apply", run_id, "--from-test", "shop_cards.yaml")
    assert both.returncode == 2 and "give a RUN_ID or --from-test TEMPLATE" in both.stderr
    assert (folder / "shop_cards.yaml").read_text(encoding="utf-8") == SHOP_CARDS


def test_a_runs_repair_plugs_into_apply_and_a_changed_template_is_refused(
    tmp_path: Path,
) -> None:
    template = tmp_path / "shop_cards.yaml"
    template.write_text(SHOP_CARDS, encoding="utf-8")
    repairs = [
        {"stepId": "listing", "line": 16, "old": ".card", "new": "div.product-tile",
         "confidence": 0.9},
    ]  # fmt: skip
    answer = {"runId": "r1", "templateId": "shop_cards", "repairs": repairs, "repairDiff": DIFF}
    patch = patch_of_run(answer, str(template))
    assert patch == Patch(template, DIFF, repairs)
    assert patched_source(patch) == (SHOP_CARDS, REPAIRED)

    # the line the diff changes was edited since the run: the diff does not apply
    template.write_text(SHOP_CARDS.replace("selector: .card", "selector: .item"), "utf-8")
    with pytest.raises(TaskplateError) as refused:
        patched_source(patch)
    assert refused.value.code == ErrorCode.INVALID_PARAMETER
    assert "the template changed since the repair was found" in refused.value.message

    with pytest.raises(TaskplateError) as gone:
        patch_of_run({**answer, "repairDiff": ""}, str(template))
    assert gone.value.message == "run r1 has no repair to apply"


def test_a_runs_suggested_repair_is_applied_to_the_template_file_by_its_run_id(
    tmp_path: Path,
) -> None:
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    template = folder / "shop_cards.yaml"
    template.write_text(SHOP_CARDS, encoding="utf-8")
    (pages / "listing.html").write_text(drawn_listing(), encoding="utf-8")
    with static_site(pages) as base:
        url = f"url={base}/listing.html"
        assert dsl(folder, "run", "shop_cards.yaml", "--input", url).returncode == 0  # learns
        (pages / "listing.html").write_text(drawn_listing("product-tile"), encoding="utf-8")
        failed = dsl(folder, "run", "shop_cards.yaml", "--input", url)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    run_id = json.loads(failed.stdout)["runId"]
    # a template run from its file is not among the served ones: its file is named
    unnamed = dsl(folder, "repair", "apply", run_id)
    assert unnamed.returncode == 1
    assert "the file of template 'shop_cards' is not found [TEMPLATE_NOT_FOUND]" in unnamed.stderr
    assert "--file" in unnamed.stderr
    assert template.read_text(encoding="utf-8") == SHOP_CARDS
    applied = dsl(folder, "repair", "apply", run_id, "--file", "shop_cards.yaml")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "cases passed live with it: none: the template has no test cases" in applied.stdout
    assert template.read_text(encoding="utf-8") == REPAIRED
