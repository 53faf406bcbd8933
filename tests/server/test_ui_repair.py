"""The runs page's repair: under a run's repairDiff, the button that writes it into the template
(when the page was given the way to: `dsl ui`) or the command that does; the
button's form is the run's own and same-origin only, and a refusal (a case that fails with the
repair) is said with its code, nothing written."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import Applied, RunManager, TemplateLibrary
from taskplate.server.ui._access import FormTokens
from taskplate.server.ui._app import RunActions
from taskplate.server.ui._pages import RunsPage
from taskplate.stdlib import REGISTRY

pytestmark = pytest.mark.anyio
DIFF = "--- a/t.yaml\n+++ b/t.yaml\n@@ -1 +1 @@\n-selector: .card\n+selector: 'div<b>'\n"


def manager(home: Path) -> RunManager:
    return RunManager(home, TemplateLibrary(REGISTRY).load([]))


def test_the_run_page_offers_the_repair_with_the_button_or_the_command(
    tmp_path: Path,
) -> None:
    forms = FormTokens()
    answer = {"runId": "run_1", "repairDiff": DIFF}
    shown = RunsPage(manager(tmp_path), forms, repairs=True)._repair(answer, "/runs/run_1")
    assert "action='/runs/run_1/repair'" in shown and forms.of("run_1") in shown
    told = RunsPage(manager(tmp_path), forms)._repair(answer, "/runs/run_1")
    assert "dsl repair apply run_1" in told and "<form" not in told
    assert RunsPage(manager(tmp_path), forms, repairs=True)._repair({"runId": "r"}, "/") == ""
    # a template that only suggests: the diff is in the failed run's error's details
    suggested = {"runId": "run_2", "error": {"details": {"repairDiff": DIFF}}}
    assert "<button>Apply to the template" in RunsPage(
        manager(tmp_path), forms, repairs=True
    )._repair(suggested, "/runs/run_2")


async def test_the_repair_button_writes_through_the_repairer_or_says_the_refusal(
    tmp_path: Path,
) -> None:
    asked: list[str] = []

    async def repairer(run_id: str) -> Applied:
        asked.append(run_id)
        if run_id == "run_bad":
            raise TaskplateError(
                ErrorCode.ASSERTION_FAILED,
                "t.yaml: not written: the case t/other fails live with the repair",
                "The file is unchanged.",
            )
        return Applied(tmp_path / "t.yaml", DIFF, ["t/default"])

    forms = FormTokens()
    actions = RunActions(manager(tmp_path), forms, repairer)
    app = Starlette(routes=[Route("/runs/{run_id}/repair", actions.repair, methods=["POST"])])
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as ui:
        done = await ui.post("/runs/run_ok/repair", data={"csrf": forms.of("run_ok")})
        assert done.status_code == 200
        assert f"Written to {tmp_path / 't.yaml'} (cases passed live with it: t/default)" in (
            done.text
        )
        refused = await ui.post("/runs/run_bad/repair", data={"csrf": forms.of("run_bad")})
        assert refused.status_code == 409
        assert "not written: the case t/other fails live with the repair [ASSERTION_FAILED]" in (
            refused.text
        )
        forged = await ui.post("/runs/run_ok/repair", data={"csrf": forms.of("run_bad")})
        assert forged.status_code == 403
        elsewhere = await ui.post(
            "/runs/run_ok/repair",
            data={"csrf": forms.of("run_ok")},
            headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
        )
        assert elsewhere.status_code == 403
    assert asked == ["run_ok", "run_bad"]
