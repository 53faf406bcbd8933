"""`dsl lsp` in a real LSP session over stdio (pygls' client driving the `dsl lsp` process):
open, change, diagnostics, completion and hover."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

pytestmark = pytest.mark.anyio

URI = "file:///tmp/shop.yaml"
GOOD = """template: shop
version: 1.0.0
inputs:
  type: object
  properties:
    urls: {type: array, items: {type: string}}
steps:
  - id: pages
    forEach: ${{ inputs.urls }}
    steps:
      - action: navigate
        with: {url: "${{ item }}"}
      - id: data
        action: extract
        with: {fields: {price: {selector: .price, type: number}}}
    collect: {price: "${{ steps.data.values.price }}"}
output:
  cheap: ${{ filter(steps.pages.items, p, p.price < 3) }}
"""


class Session:
    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.published: list[types.PublishDiagnosticsParams] = []
        self.arrived = anyio.Event()

    async def diagnostics(self, version: int) -> list[types.Diagnostic]:
        with anyio.fail_after(20):
            while True:
                for params in self.published:
                    if params.version == version:
                        return list(params.diagnostics)
                self.arrived = anyio.Event()
                await self.arrived.wait()


@pytest.fixture
async def session() -> AsyncIterator[Session]:
    client = LanguageClient("taskplate-test", "1")
    found = Session(client)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: types.PublishDiagnosticsParams) -> None:
        found.published.append(params)
        found.arrived.set()

    dsl = Path(sys.executable).parent / "dsl"
    await client.start_io(str(dsl), "lsp")
    try:
        with anyio.fail_after(20):
            await client.initialize_async(
                types.InitializeParams(process_id=None, capabilities=types.ClientCapabilities())
            )
        client.initialized(types.InitializedParams())
        yield found
        with anyio.fail_after(20):
            await client.shutdown_async(None)
    finally:
        client.exit(None)
        with anyio.fail_after(20):
            await client.stop()


def _open(session: Session, text: str) -> None:
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text)
        )
    )


def _change(session: Session, text: str, version: int) -> None:
    session.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def _complete(session: Session, text: str, marker: str) -> list[str]:
    """Labels offered where `marker` ends in `text` (the text is sent as a change first)."""
    line = next(i for i, row in enumerate(text.split("\n")) if marker in row)
    character = text.split("\n")[line].index(marker) + len(marker)
    with anyio.fail_after(20):
        answer: Any = await session.client.text_document_completion_async(
            types.CompletionParams(
                text_document=types.TextDocumentIdentifier(uri=URI),
                position=types.Position(line=line, character=character),
            )
        )
    items = answer.items if isinstance(answer, types.CompletionList) else answer
    return [i.label for i in items]


async def test_diagnostics_follow_every_change(session: Session) -> None:
    _open(session, GOOD)
    assert await session.diagnostics(1) == []
    broken = GOOD.replace("forEach:", "for_each:").replace("p.price <", "p.pricee <")
    _change(session, broken, 2)
    found = await session.diagnostics(2)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in found] == [
        ("template-schema", 8, 4),
        ("type", 17, 42),
    ]
    assert found[0].message == 'unknown key "for_each" in step "pages"; did you mean "forEach"?'
    assert found[1].message == '"p" has no property "pricee"; did you mean "price"?'
    assert found[1].range.end.character == 50
    assert all(d.severity == types.DiagnosticSeverity.Error for d in found)
    _change(session, GOOD.replace("version: 1.0.0", "version: [1.0.0"), 3)
    unparsable = await session.diagnostics(3)
    assert [d.code for d in unparsable] == ["yaml-syntax"]
    _change(session, GOOD, 4)
    assert await session.diagnostics(4) == []


async def test_a_selector_that_is_not_css_is_shown_where_it_stops(session: Session) -> None:
    _open(session, GOOD.replace("selector: .price,", 'selector: ".price[",'))
    (found,) = await session.diagnostics(1)
    assert (found.code, found.range.start.line, found.range.start.character) == (
        "css-selector",
        14,
        50,
    )
    assert found.message == (
        '".price[" is not a valid CSS selector: expected attribute name, got the end of the '
        "selector"
    )
    assert found.severity == types.DiagnosticSeverity.Error


async def test_a_loop_sharing_one_tab_among_items_at_once_is_shown_where_the_tab_is_named(
    session: Session,
) -> None:
    _open(session, GOOD)
    assert await session.diagnostics(1) == []
    shared = GOOD.replace("    steps:\n", "    concurrency: 3\n    tab: main\n    steps:\n", 1)
    _change(session, shared, 2)
    found = await session.diagnostics(2)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in found] == [
        ("shared-tab", 10, 9)
    ]
    assert "tab main" in found[0].message and "tab: new" in found[0].message
    _change(session, shared.replace("tab: main", "tab: new"), 3)
    assert await session.diagnostics(3) == []


async def test_completion_offers_keys_actions_arguments_names_and_functions(
    session: Session,
) -> None:
    _open(session, GOOD)
    await session.diagnostics(1)
    step_key = GOOD.replace("      - id: data\n", "      - id: data\n        ret\n")
    _change(session, step_key, 2)
    assert {"retry", "when", "timeoutMs", "action"} <= set(
        await _complete(session, step_key, "        ret")
    )
    action = GOOD.replace("action: navigate", "action: nav")
    _change(session, action, 3)
    actions = await _complete(session, action, "action: nav")
    assert {"navigate", "extract", "click"} <= set(actions)
    argument = GOOD.replace('with: {url: "${{ item }}"}', "with:\n          wai")
    _change(session, argument, 4)
    assert {"url", "waitUntil", "timeoutMs"} <= set(
        await _complete(session, argument, "          wai")
    )
    names = GOOD.replace("p.price < 3", "inputs.")
    _change(session, names, 5)
    assert await _complete(session, names, "${{ filter(steps.pages.items, p, inputs.") == ["urls"]
    steps = GOOD.replace("steps.data.values.price", "steps.data.values.")
    _change(session, steps, 6)
    assert await _complete(session, steps, "steps.data.values.") == ["price"]
    functions = GOOD.replace("filter(steps.pages.items, p, p.price < 3)", "fi")
    _change(session, functions, 7)
    offered = await _complete(session, functions, "${{ fi")
    assert {"filter", "map", "toNumber", "inputs", "steps", "item"} <= set(offered)


async def test_hover_shows_action_and_function_declarations(session: Session) -> None:
    _open(session, GOOD)
    await session.diagnostics(1)

    async def hover_at(line: int, character: int) -> str | None:
        with anyio.fail_after(20):
            answer = await session.client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=URI),
                    position=types.Position(line=line, character=character),
                )
            )
        if answer is None:
            return None
        assert isinstance(answer.contents, types.MarkupContent)
        return answer.contents.value

    action = await hover_at(13, 18)  # "extract"
    assert action is not None and action.startswith("**extract** (L0)")
    assert "`fields` (required)" in action
    function = await hover_at(17, 13)  # "filter"
    assert function is not None and function.startswith("**filter(list, x, predicate)**")
    key = await hover_at(8, 6)  # "forEach"
    assert key is not None and key.startswith("**forEach**")
    assert await hover_at(1, 12) is None  # a version number has no help


async def test_a_test_case_file_gets_the_case_checks(session: Session, tmp_path: Path) -> None:
    (tmp_path / "prices.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "prices.recordings").mkdir()
    (tmp_path / "prices.recordings" / "one.har").write_text('{"log": {"entries": []}}')
    case = (
        "template: prices.yaml\ncases:\n- name: one\n  inputs: {urls: []}\n"
        "  recording: prices.recordings/one.har\n  expect: {status: succeeded}\n"
    )
    uri = (tmp_path / "prices.test.yaml").as_uri()

    def send(text: str, version: int) -> None:
        item = types.TextDocumentItem(uri=uri, language_id="yaml", version=version, text=text)
        if version == 1:
            session.client.text_document_did_open(types.DidOpenTextDocumentParams(item))
        else:
            session.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )

    send(case, 1)
    assert await session.diagnostics(1) == []
    send(case.replace("inputs: {urls: []}", "inputs: {url: []}"), 2)
    found = await session.diagnostics(2)
    assert [(d.code, d.range.start.line) for d in found] == [("test-case", 2)]
    assert "names the input 'url'" in found[0].message and "did you mean 'urls'" in found[0].message
    send(case.replace("  expect:", "  expects:"), 3)
    found = await session.diagnostics(3)
    assert [(d.code, d.range.start.line) for d in found] == [("test-case", 5)]
    assert "unknown key 'expects' (did you mean 'expect'?)" in found[0].message
