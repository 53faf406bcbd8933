"""Runs that heal (issue 56): a succeeded run keeps what its selectors matched; when a selector
loses its element later, `heal: apply` runs on with the element found by that fingerprint (the
step marked healed, the repairs and the template's diff in the answer), `suggest` fails with the
diff in the error, ambiguous candidates heal nothing, `off` does nothing, a caller never widens
the template's mode, no fingerprint holds a secret, and the model breaks a tie when asked.
Real Chromium, a local static site whose pages a test changes between runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from taskplate.browser import BrowserRuntime
from taskplate.contract import TrustLevel
from taskplate.interpreter import RunManager, TemplateLibrary
from taskplate.interpreter.heal import narrowed
from taskplate.stdlib import REGISTRY, Sampled, SamplingRequest

pytestmark = pytest.mark.anyio

# the cards a script draws after load, as a shop's listing does
LISTING = """<!doctype html><html><body><main>
<h1 class="heading">Lamps</h1><ul class="cards" id="list"></ul></main>
<script>
setTimeout(() => {
  const cards = [["Desk lamp", "$40"], ["Floor lamp", "$90"], ["Wall lamp", "$55"]];
  document.getElementById("list").innerHTML = cards.map(([t, p]) =>
    `<li class="CARD"><h2 class="card-title">${t}</h2><span class="card-price">${p}</span></li>`
  ).join("");
}, 200);
</script></body></html>"""

TEMPLATE = """\
template: shop_cards
version: 1.0.0
heal: {heal}
inputs:
  type: object
  properties:
    url: {{type: string}}
steps:
  - id: open
    action: navigate
    with: {{url: "${{{{ inputs.url }}}}"}}
  - id: listing
    action: extract
    with:
      timeoutMs: 2000
      required: [cards]
      fields:
        heading: h1.heading
        cards:
          selector: li.card
          all: true
          fields:
            title: .card-title
            price: .card-price
output: ${{{{ steps.listing.values }}}}
"""

PRODUCT = """<!doctype html><html><body><main><div class="product">
<h1 class="name">Desk lamp</h1>{price}</div></main></body></html>"""
ONE_PRICE = '<p class="note">Free delivery</p><span class="price">$40</span>'
TWO_PRICES = '<span class="cost">$40</span><span class="fee">$40</span>'
PRODUCT_TEMPLATE = """\
template: shop_product
version: 1.0.0
heal: {heal}
inputs:
  type: object
  properties:
    url: {{type: string}}
steps:
  - id: open
    action: navigate
    with: {{url: "${{{{ inputs.url }}}}"}}
  - id: product
    action: extract
    with:
      timeoutMs: 1000
      required: [price]
      fields:
        name: h1.name
        price: span.price
output: ${{{{ steps.product.values }}}}
"""

EXPECTED = {
    "heading": "Lamps",
    "cards": [
        {"title": "Desk lamp", "price": "$40"},
        {"title": "Floor lamp", "price": "$90"},
        {"title": "Wall lamp", "price": "$55"},
    ],
}


def library(tmp_path: Path, name: str, text: str) -> TemplateLibrary:
    folder = tmp_path / "templates"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    lib = TemplateLibrary(REGISTRY).load([folder])
    assert name in lib.templates, lib.rejected
    return lib


async def finished(runs: RunManager, template: str, url: str, **kw: Any) -> dict[str, Any]:
    run_id = await runs.submit(template, {"url": url}, **kw)
    with anyio.fail_after(60):
        await runs.wait(run_id)
    return await runs.describe(run_id, include_steps=True)


def listing_page(folder: Path, card_class: str) -> None:
    html = LISTING.replace("CARD", card_class)
    (folder / "listing.html").write_text(html, encoding="utf-8")


async def shop(
    tmp_path: Path, runtime: BrowserRuntime, heal: str, name: str = "shop_cards"
) -> RunManager:
    text = (TEMPLATE if name == "shop_cards" else PRODUCT_TEMPLATE).format(heal=heal)
    return RunManager(tmp_path / "home", library(tmp_path, name, text), runtime=runtime)


async def test_a_succeeded_run_keeps_what_its_selectors_matched(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    folder, base = static_pages
    listing_page(folder, "card")
    runs = await shop(tmp_path, runtime, "suggest")
    async with runs.running():
        answer = await finished(runs, "shop_cards", f"{base}/listing.html")
        assert answer["status"] == "succeeded" and answer["result"] == EXPECTED
        kept = await runs.store.fingerprints("shop_cards", "1.0.0")
    cards = kept[json.dumps(["listing", ["fields", "cards"]], separators=(",", ":"))]
    assert cards["count"] == 3 and cards["many"] is True
    assert cards["element"]["classes"] == ["card"] and cards["element"]["text"] == "Desk lamp $40"
    title = kept[
        json.dumps(["listing", ["fields", "cards", "fields", "title"]], separators=(",", ":"))
    ]
    assert title["element"]["text"] == "Desk lamp"


async def test_apply_heals_a_renamed_class_and_answers_the_repair_and_its_diff(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    folder, base = static_pages
    listing_page(folder, "card")
    runs = await shop(tmp_path, runtime, "apply")
    async with runs.running():
        assert (await finished(runs, "shop_cards", f"{base}/listing.html"))["status"] == "succeeded"
        listing_page(folder, "product-tile")
        answer = await finished(runs, "shop_cards", f"{base}/listing.html")
        row = await runs.store.run(answer["runId"])
    assert answer["status"] == "succeeded", answer.get("error")
    assert answer["result"] == EXPECTED
    assert answer["repairs"] == [
        {
            "stepId": "listing",
            "line": 20,
            "old": "li.card",
            "new": "li.product-tile",
            "confidence": answer["repairs"][0]["confidence"],
        }
    ]
    assert answer["repairs"][0]["confidence"] >= 0.5
    assert (
        "-          selector: li.card\n+          selector: li.product-tile\n"
        in answer["repairDiff"]
    )
    assert answer["repairDiff"].startswith("--- a/shop_cards.yaml\n+++ b/shop_cards.yaml\n")
    healed = [s for s in answer["steps"] if s.get("healed")]
    assert [s["stepId"] for s in healed] == ["listing"]
    assert row is not None and row.repairs is not None and row.repairs["applied"] is True
    assert row.repairs["diff"] == answer["repairDiff"]


async def test_suggest_fails_as_before_with_the_diff_in_the_errors_details(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    folder, base = static_pages
    listing_page(folder, "card")
    runs = await shop(tmp_path, runtime, "suggest")
    async with runs.running():
        await finished(runs, "shop_cards", f"{base}/listing.html")
        listing_page(folder, "product-tile")
        answer = await finished(runs, "shop_cards", f"{base}/listing.html")
    assert answer["status"] == "failed"
    details = answer["error"]["details"]
    assert details["stepErrorCode"] == "ELEMENT_NOT_FOUND"
    assert [(r["old"], r["new"]) for r in details["repairs"]] == [("li.card", "li.product-tile")]
    assert "+          selector: li.product-tile\n" in details["repairDiff"]
    assert "dsl repair apply" in answer["error"]["recoverHint"]
    assert "repairs" not in answer and not any(s.get("healed") for s in answer["steps"])
    assert answer["suggestedRepairs"] == details["repairs"]


async def test_off_looks_for_nothing_and_learns_nothing(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    folder, base = static_pages
    listing_page(folder, "card")
    runs = await shop(tmp_path, runtime, "off")
    async with runs.running():
        await finished(runs, "shop_cards", f"{base}/listing.html")
        assert await runs.store.fingerprints("shop_cards", "1.0.0") == {}
        listing_page(folder, "product-tile")
        answer = await finished(runs, "shop_cards", f"{base}/listing.html")
    assert answer["status"] == "failed"
    assert "repairs" not in answer["error"]["details"] and "repairDiff" not in answer


async def test_ambiguous_candidates_heal_nothing(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    folder, base = static_pages
    page = folder / "product.html"
    page.write_text(PRODUCT.format(price=ONE_PRICE), encoding="utf-8")
    runs = await shop(tmp_path, runtime, "apply", "shop_product")
    async with runs.running():
        assert (await finished(runs, "shop_product", f"{base}/product.html"))[
            "status"
        ] == "succeeded"
        page.write_text(PRODUCT.format(price=TWO_PRICES), encoding="utf-8")
        answer = await finished(runs, "shop_product", f"{base}/product.html")
    assert answer["status"] == "failed"
    assert "repairs" not in answer and "repairs" not in answer["error"]["details"]
    assert any("ambiguous" in why for why in answer["error"]["details"]["unhealed"])


class FakeModel:
    """A caller that samples: it answers which candidate, and keeps what it was asked."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[SamplingRequest] = []

    def can_sample(self) -> bool:
        return True

    async def sample(self, request: SamplingRequest) -> Sampled:
        self.asked.append(request)
        return Sampled(self.answer, "client", "fake")


async def test_the_model_breaks_a_tie_when_the_template_asks_it(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    folder, base = static_pages
    page = folder / "product.html"
    page.write_text(PRODUCT.format(price=ONE_PRICE), encoding="utf-8")
    runs = await shop(tmp_path, runtime, "{mode: apply, model: true}", "shop_product")
    model = FakeModel("2")
    async with runs.running():
        await finished(runs, "shop_product", f"{base}/product.html", sampler=model)
        assert model.asked == []  # no tie: no question
        page.write_text(PRODUCT.format(price=TWO_PRICES), encoding="utf-8")
        answer = await finished(runs, "shop_product", f"{base}/product.html", sampler=model)
    assert answer["status"] == "succeeded", answer.get("error")
    assert answer["result"] == {"name": "Desk lamp", "price": "$40"}
    assert len(model.asked) == 1 and "Now:\n1. " in model.asked[0].messages[0].text
    (repair,) = answer["repairs"]
    assert repair["old"] == "span.price" and repair["by"] == "model"
    assert repair["new"] in ("span.cost", "span.fee") and repair["confidence"] is None


async def test_a_caller_narrows_the_mode_and_never_widens_it(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    assert narrowed("apply", "suggest") == "suggest" and narrowed("apply", "off") == "off"
    assert narrowed("suggest", "apply") == "suggest" and narrowed("off", "apply") == "off"
    folder, base = static_pages
    listing_page(folder, "card")
    runs = await shop(tmp_path, runtime, "suggest")
    async with runs.running():
        await finished(runs, "shop_cards", f"{base}/listing.html")
        listing_page(folder, "product-tile")
        answer = await finished(
            runs, "shop_cards", f"{base}/listing.html", options={"heal": "apply"}
        )
        row = await runs.store.run(answer["runId"])
    assert answer["status"] == "failed" and "repairs" not in answer
    assert row is not None and row.options["heal"] == "suggest"


SECRET_FORM = """<!doctype html><html><body><form>
<input id="user" name="user"><input id="pw" name="pw" type="password">
<p class="echo"></p></form><script>
for (const id of ["user", "pw"]) document.getElementById(id).addEventListener("input", () => {
  const u = document.getElementById("user").value, p = document.getElementById("pw").value;
  document.querySelector(".echo").textContent = `Hello ${u} ${p}`;
  document.getElementById("user").setAttribute("value", u);
  document.getElementById("user").setAttribute("title", p);
});
</script></body></html>"""
SECRET_TEMPLATE = """\
template: sign_in
version: 1.0.0
inputs:
  type: object
  properties:
    url: {type: string}
    user: {type: string}
    password: {type: string, format: password}
steps:
  - id: open
    action: navigate
    with: {url: "${{ inputs.url }}"}
  - id: name
    action: fill
    with: {selector: '#user', value: "${{ inputs.user }}"}
  - id: secret
    action: fill
    with: {selector: '#pw', value: "${{ inputs.password }}"}
  - id: greet
    action: extract
    with:
      fields:
        echo: p.echo
        who: {selector: '#user', attr: title}
output: ${{ steps.greet.values }}
"""


async def test_fingerprints_keep_no_secret_and_no_typed_value(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    folder, base = static_pages
    (folder / "form.html").write_text(SECRET_FORM, encoding="utf-8")
    runs = RunManager(
        tmp_path / "home", library(tmp_path, "sign_in", SECRET_TEMPLATE), runtime=runtime
    )
    inputs = {"url": f"{base}/form.html", "user": "ana-typed", "password": "hunter2-secret"}
    async with runs.running():
        run_id = await runs.submit("sign_in", inputs)
        with anyio.fail_after(60):
            answer = await runs.wait(run_id)
        kept = await runs.store.fingerprints("sign_in", "1.0.0")
    assert answer["status"] == "succeeded", answer.get("error")
    text = json.dumps(kept)
    assert "hunter2-secret" not in text and "ana-typed" not in text
    assert '"value"' not in text
    places = {tuple(json.loads(k)[1]) for k in kept}
    assert ("selector",) in places  # the user field's (#user), masked
    user = kept[json.dumps(["name", ["selector"]], separators=(",", ":"))]["element"]
    assert user["attrs"] == {"id": "user", "name": "user", "title": ""}  # its value dropped
    password = kept[json.dumps(["secret", ["selector"]], separators=(",", ":"))]["element"]
    assert password["attrs"] == {"id": "pw", "name": "pw", "type": "password"}
    echo = kept[json.dumps(["greet", ["fields", "echo"]], separators=(",", ":"))]
    assert echo["element"]["text"] == "Hello *** ***"


LOOK_ALIKE_FIRST = '<span class="price promo">$9.99</span>' + ONE_PRICE
NEW_CONTENT = (
    '<p class="note">Free delivery</p><span class="price">$45</span><span class="price">$40</span>'
)


async def test_a_look_alike_put_first_is_kept_off_but_new_content_is_not_healed(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    folder, base = static_pages
    page = folder / "product.html"
    page.write_text(PRODUCT.format(price=ONE_PRICE), encoding="utf-8")
    runs = await shop(tmp_path, runtime, "apply", "shop_product")
    url = f"{base}/product.html"
    async with runs.running():
        await finished(runs, "shop_product", url)
        learned = await runs.store.fingerprints("shop_product", "1.0.0")
        page.write_text(PRODUCT.format(price=LOOK_ALIKE_FIRST), encoding="utf-8")
        healed = await finished(runs, "shop_product", url)
        # the same kind of element first, the one read before further down: the content changed
        await runs.store.keep_fingerprints("shop_product", "1.0.0", learned)
        page.write_text(PRODUCT.format(price=NEW_CONTENT), encoding="utf-8")
        changed = await finished(runs, "shop_product", url)
    assert healed["status"] == "succeeded", healed.get("error")
    assert healed["result"] == {"name": "Desk lamp", "price": "$40"}
    assert [(r["old"], r["new"]) for r in healed["repairs"]] == [
        ("span.price", "span.price:not(.promo)")
    ]
    assert changed["result"] == {"name": "Desk lamp", "price": "$45"} and "repairs" not in changed


RETAGGED_BESIDE_A_LOOK_ALIKE = PRODUCT.format(price=ONE_PRICE.replace("span", "div")).replace(
    "</main>", '<aside class="promo"><span class="price">$9.99</span></aside></main>'
)


async def test_an_element_retagged_beside_a_look_alike_is_healed_not_read_from_it(
    tmp_path: Path, runtime: BrowserRuntime, static_pages: tuple[Path, str]
) -> None:
    """The price retagged (its classes and text kept) while a look-alike of its old tag stands
    elsewhere: the selector now reads the look-alike, which is not the learned element (that
    one stands on the page retagged), so the run heals instead of reading the look-alike."""
    folder, base = static_pages
    page = folder / "product.html"
    page.write_text(PRODUCT.format(price=ONE_PRICE), encoding="utf-8")
    runs = await shop(tmp_path, runtime, "apply", "shop_product")
    url = f"{base}/product.html"
    async with runs.running():
        await finished(runs, "shop_product", url)
        page.write_text(RETAGGED_BESIDE_A_LOOK_ALIKE, encoding="utf-8")
        healed = await finished(runs, "shop_product", url)
    assert healed["status"] == "succeeded", healed.get("error")
    assert healed["result"] == {"name": "Desk lamp", "price": "$40"}
    assert [r["old"] for r in healed["repairs"]] == ["span.price"]


async def test_a_remote_caller_asking_apply_runs_with_the_templates_suggest(
    tmp_path: Path, runtime: BrowserRuntime
) -> None:
    text = TEMPLATE.format(heal="suggest").replace(
        "heal: suggest\n", "heal: suggest\ntrust: [local, remote]\n"
    )
    runs = RunManager(tmp_path / "home", library(tmp_path, "shop_cards", text), runtime=runtime)
    async with runs.running():
        run_id = await runs.submit(
            "shop_cards",
            {"url": "https://shop.invalid/"},
            options={"heal": "apply"},
            trust=TrustLevel.REMOTE,
        )
        row = await runs.store.run(run_id)
        with anyio.fail_after(60):
            await runs.wait(run_id)
    assert row is not None and row.options["heal"] == "suggest"
