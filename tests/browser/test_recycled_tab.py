"""A recycled tab's page (the item before's) may move itself on by its own script as the next
item's navigation begins, and Chromium cuts the next navigation short (ERR_ABORTED): `navigate`
makes it again from a blank tab, so the next page opens whatever the page before does; one
that ends on the page before without an answer is not read as this one either
(tests/stdlib/test_navigate_arrival.py)."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator

import anyio
import pytest

from taskplate.stdlib import ActionContext
from tests.conftest import act

pytestmark = pytest.mark.anyio

PARAGRAPH = "<p>{} has enough words of its own to be read as the main content of a page.</p>"
# The page before moves itself on 50 ms after it is asked to; the next page answers in 300 ms.
MOVING = "<script>window.moveOn = () => setTimeout(() => location.assign('/before?moved'), 50)"


class _Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/next"):
            time.sleep(0.3)
            body = f"<title>Next</title>{PARAGRAPH.format('The next page')}"
        else:
            body = f"<title>Before</title>{PARAGRAPH.format('The page before')}{MOVING}</script>"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def moving_site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    server.handle_error = lambda *args: None  # type: ignore[method-assign]  # a cut-short page
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


async def test_the_next_item_opens_its_page_while_the_page_before_moves_itself_on(
    ctx: ActionContext, moving_site: str
) -> None:
    for _ in range(3):
        await act("navigate", ctx, url=f"{moving_site}/before", waitUntil="domcontentloaded")
        tab = await ctx.tab()
        await tab.page.evaluate("window.moveOn()")
        tab.stale = True  # as a finished item's tab is handed on (ItemTabs.recycle)
        with anyio.fail_after(15):
            landed = await act("navigate", ctx, url=f"{moving_site}/next", timeoutMs=10_000)
            read = await act("get_page_content", ctx)
        assert landed["url"] == f"{moving_site}/next" and landed["status"] == 200
        assert read["title"] == "Next" and "The next page" in read["content"]
        assert "before" not in read["content"].lower()
