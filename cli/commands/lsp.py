"""`dsl lsp`: a Language Server over stdio for template files, built on pygls.

Diagnostics are `dsl validate`'s on every change; completion and hover come from _editor.py.
Translates to the protocol only; knows no rule of the language itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import click
from lsprotocol import types
from pygls.lsp.server import LanguageServer

from taskplate.dsl import Diagnostic, Severity, check_source
from taskplate.stdlib import REGISTRY

from .._cases_check import CASE_SUFFIXES, check_cases
from .._editor import Item, completions, hover
from .._help import examples

_KINDS = {
    "key": types.CompletionItemKind.Property,
    "argument": types.CompletionItemKind.Field,
    "action": types.CompletionItemKind.Function,
    "function": types.CompletionItemKind.Function,
    "input": types.CompletionItemKind.Variable,
    "step": types.CompletionItemKind.Module,
    "property": types.CompletionItemKind.Property,
    "value": types.CompletionItemKind.Value,
}
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
}


def _display(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def to_lsp(diagnostic: Diagnostic) -> types.Diagnostic:
    span = diagnostic.span
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=span.line - 1, character=span.column - 1),
            end=types.Position(line=span.end_line - 1, character=span.end_column - 1),
        ),
        message=diagnostic.message,
        severity=_SEVERITY[diagnostic.severity],
        code=diagnostic.rule,
        source="taskplate",
    )


def _item(item: Item) -> types.CompletionItem:
    return types.CompletionItem(
        label=item.label,
        kind=_KINDS.get(item.kind, types.CompletionItemKind.Text),
        detail=item.detail or None,
        documentation=(
            types.MarkupContent(kind=types.MarkupKind.Markdown, value=item.documentation)
            if item.documentation
            else None
        ),
    )


def build_server() -> LanguageServer:
    server = LanguageServer(
        "taskplate", "0.1.0", text_document_sync_kind=types.TextDocumentSyncKind.Full
    )

    def publish(uri: str) -> None:
        document = server.workspace.get_text_document(uri)
        if document.path.endswith(CASE_SUFFIXES):
            result = check_cases(Path(document.path), document.source, lambda _: REGISTRY)
        else:
            result = check_source(document.source, _display(uri), REGISTRY)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri,
                version=document.version,
                diagnostics=[to_lsp(d) for d in result.diagnostics],
            )
        )

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=[".", " ", "{", ":"]),
    )
    def complete(ls: LanguageServer, params: types.CompletionParams) -> types.CompletionList:
        document = server.workspace.get_text_document(params.text_document.uri)
        found = completions(document.source, params.position.line, params.position.character)
        return types.CompletionList(is_incomplete=False, items=[_item(i) for i in found])

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: LanguageServer, params: types.HoverParams) -> types.Hover | None:
        document = server.workspace.get_text_document(params.text_document.uri)
        text = hover(document.source, params.position.line, params.position.character)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    return server


@click.command("lsp", epilog=examples("dsl lsp   # started by your editor (docs/authoring.md)"))
def command(**_: Any) -> None:
    """Serve template diagnostics and completion to editors.

    A Language Server over stdio: diagnostics, completion and hover for template files."""
    build_server().start_io()
