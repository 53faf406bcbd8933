"""The run page says what a run healed, or the repairs it suggests, with the template's diff;
a run without repairs shows no such section. Rendering only: get_task_run's answer."""

from __future__ import annotations

from taskplate.server.ui._pages import _healing

REPAIR = {"stepId": "listing", "line": 20, "old": "li.card", "new": "li.product-tile"}
DIFF = "--- a/shop.yaml\n+++ b/shop.yaml\n-  selector: li.card\n+  selector: li.product-tile\n"


def test_the_run_page_shows_the_repairs_a_run_applied_and_the_diff() -> None:
    html = _healing({"repairs": [{**REPAIR, "confidence": 0.9}], "repairDiff": DIFF})
    assert "<h2>Repairs applied</h2>" in html
    assert "<span class='status healed'>healed</span> step <code>listing</code>, line 20" in html
    assert "<code>li.card</code> → <code>li.product-tile</code> (confidence 0.9)" in html
    assert "<pre class=diff>--- a/shop.yaml" in html and "&lt;" not in DIFF


def test_a_failed_runs_suggested_repairs_are_shown_from_its_errors_details() -> None:
    error = {"details": {"repairs": [REPAIR], "repairDiff": DIFF}}
    html = _healing({"status": "failed", "error": error})
    assert "<h2>Repairs suggested</h2>" in html and "status suggested" in html
    assert "+  selector: li.product-tile" in html
    assert _healing({"status": "succeeded"}) == ""
