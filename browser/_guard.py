"""The URL policy on every request of a tab, in the browser itself (request interception over
DevTools). Judging a URL is the policy's (_policy.py); this only stops what it refuses.
"""

from __future__ import annotations

from typing import Any

from ._policy import UrlPolicy, redirect_elsewhere
from ._tab import Tab


async def guard(tab: Tab, policy: UrlPolicy) -> None:
    """Check every request of the tab, redirect hops included, in the browser itself, when the
    policy is enforced (remote trust, denied hosts). Otherwise leave the tab alone until one of
    its navigations fails as a redirect to javascript: does (`guard_redirects`): each document's
    answer waiting on this process cost every navigation about 10 ms (bench/batch.py)."""
    if policy.enforced:
        await _intercept(tab, policy)


async def guard_redirects(tab: Tab, policy: UrlPolicy) -> bool:
    """From now on, refuse a page's redirect to another scheme (javascript:, data:, file:),
    which Chromium ends without saying why (ERR_ABORTED for javascript:), as URL_NOT_ALLOWED;
    False when the tab's answers were looked at already (nothing new to learn by trying again)."""
    if tab.redirects_guarded:
        return False
    await _intercept(tab, policy)
    return True


async def _intercept(tab: Tab, policy: UrlPolicy) -> None:
    """Playwright's routes never see redirects, so the tab gets its own DevTools session with
    request interception: each document's answer pauses until its Location is looked at, and
    (when the policy is enforced) each request, and each hop of a redirect chain, pauses until
    the policy has looked at its URL; a refused one fails before anything is sent."""
    cdp = await tab.page.context.new_cdp_session(tab.page)

    async def paused(event: dict[str, Any]) -> None:
        url = event["request"]["url"]
        try:
            if "responseStatusCode" in event:
                why = _redirect_elsewhere(url, event)
            else:
                why = await policy.refusal_async(url)
            if why is None:
                await cdp.send("Fetch.continueRequest", {"requestId": event["requestId"]})
                return
            if event.get("resourceType") == "Document" and event.get("frameId") == main_frame:
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
