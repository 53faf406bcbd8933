"""The URL policy on every request of a tab, and the size bound on every document's answer, in
the browser itself (request interception over DevTools). Judging a URL is the policy's
(_policy.py), reading an answer within its bound _document_body.py's; this only stops what they
refuse.
"""

from __future__ import annotations

from typing import Any

from ._tab import Tab
from .traffic import UrlPolicy, let_through, redirect_elsewhere


async def guard(tab: Tab, policy: UrlPolicy) -> None:
    """Hold each document's answer of the tab to its size bound (`Tab.max_body_bytes`), and
    when the policy is enforced (remote trust, denied hosts) check every request of the tab,
    redirect hops included, in the browser itself."""
    await _intercept(tab, policy)


async def _intercept(tab: Tab, policy: UrlPolicy) -> None:
    """Playwright's routes never see redirects, so the tab gets its own DevTools session with
    request interception: each document's answer pauses until its Location is looked at and its
    body is known to be within the bound, and (when the policy is enforced) each request, and
    each hop of a redirect chain, pauses until the policy has looked at its URL; a refused one
    fails before anything is sent."""
    cdp = await tab.page.context.new_cdp_session(tab.page)

    async def paused(event: dict[str, Any]) -> None:
        url = event["request"]["url"]
        main = event.get("resourceType") == "Document" and event.get("frameId") == main_frame
        try:
            if "responseStatusCode" in event:
                why = _redirect_elsewhere(url, event)
                if why is None:
                    limit = tab.max_body_bytes
                    if not await let_through(cdp, event, limit) and main:
                        tab.oversized = (url, limit)
                    return
            else:
                why = await policy.refusal_async(url)
            if why is None:
                await cdp.send("Fetch.continueRequest", {"requestId": event["requestId"]})
                return
            if main:
                tab.refused = f"{url} is not allowed: {why}"
            failure = {"requestId": event["requestId"], "errorReason": "BlockedByClient"}
            await cdp.send("Fetch.failRequest", failure)
        except Exception:
            pass

    frame_tree = await cdp.send("Page.getFrameTree")
    main_frame = frame_tree["frameTree"]["frame"]["id"]
    cdp.on("Fetch.requestPaused", paused)
    answers = {"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"}
    requests = {"urlPattern": "*", "requestStage": "Request"}
    patterns = [requests, answers] if policy.enforced else [answers]
    await cdp.send("Fetch.enable", {"patterns": patterns})
    tab.redirects_guarded = True


def _redirect_elsewhere(url: str, event: dict[str, Any]) -> str | None:
    """Why a paused answer may not be followed: it redirects to a URL that is not http(s)."""
    if event["responseStatusCode"] not in (301, 302, 303, 307, 308):
        return None
    for header in event.get("responseHeaders", []):
        if header["name"].lower() == "location":
            target = redirect_elsewhere(url, header["value"])
            if target is not None:
                return f"it redirects to {target[:200]}, not an http(s) URL"
    return None
