"""What every answer of the runs page is made of: escaped text, the page's frame, small
formatters of times and progress, and the security headers every response carries.

Rendering only: reads nothing, decides nothing.
"""

from __future__ import annotations

import json
import time
from html import escape
from importlib.resources import files
from typing import Any

from starlette.responses import HTMLResponse, Response

from taskplate.interpreter import iso

POLL_MS = 2000

_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

HEADERS = {
    "Content-Security-Policy": _CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}


def e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def static(name: str) -> bytes:
    return (files("taskplate.server") / "ui" / name).read_bytes()


def page(title: str, body: str, base: str) -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{e(title)} · taskplate</title>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<link rel=stylesheet href="{e(base)}/static/ui.css"></head><body>'
        f'<header><a href="{e(base)}/">taskplate runs</a></header><main>{body}</main>'
        f'<script src="{e(base)}/static/ui.js"></script></body></html>'
    )


def when(timestamp: float | None) -> str:
    text = iso(timestamp)
    return f"<time datetime={e(text)}>{e(text[11:19] if text else '')}</time>" if text else ""


def duration(start: float | None, end: float | None) -> str:
    if start is None:
        return ""
    seconds = (end or time.time()) - start
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def whole(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() and len(text) < 10 else None


def json_block(value: Any, limit: int = 20_000) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    if len(text) > limit:
        text = text[:limit] + "\n… (cut; download the result for all of it)"
    return f"<pre>{e(text)}</pre>"


def html(text: str) -> HTMLResponse:
    return HTMLResponse(text, headers=HEADERS)


def plain(text: str, status: int, headers: dict[str, str] | None = None) -> Response:
    return Response(
        text + "\n",
        status_code=status,
        media_type="text/plain",
        headers={**HEADERS, **(headers or {})},
    )
