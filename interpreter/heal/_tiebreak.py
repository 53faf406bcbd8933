"""The model as a tie-breaker: when a fingerprint cannot tell close candidates apart, the run's
model (the caller's MCP sampling, else the operator's `[llm]` endpoint) is shown the element as
it was and the candidates as they are, and answers which one is it, or none.

Asks only; secrets are masked in what it is shown. A model that cannot answer chooses none.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from taskplate.contract import TaskplateError
from taskplate.stdlib import Message, SamplingRequest

from ._fingerprints import MASK, Seen
from ._relocate import Option

if TYPE_CHECKING:
    from taskplate.stdlib import Sampler

SYSTEM = (
    "A web page was redesigned. You are shown an element as a program read it before, and "
    "numbered elements of the page now. Answer with the number of the element that is the "
    "same element (the same role and meaning, not only the same look), or 0 when none is or "
    "you cannot tell. Answer with the number alone."
)
MAX_TOKENS = 8


def _brief(element: dict[str, Any], secrets: list[str]) -> str:
    shown = {
        "tag": element.get("tag"),
        "classes": element.get("classes"),
        "attributes": {k: v for k, v in (element.get("attrs") or {}).items() if k != "value"},
        "text": (element.get("text") or "")[:120],
        "parent": element.get("parent"),
        "before": element.get("before"),
        "after": element.get("after"),
    }
    text = json.dumps(shown, ensure_ascii=False)
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(json.dumps(secret, ensure_ascii=False)[1:-1], MASK)
    return text


async def choose(
    sampler: Sampler, was: Seen, options: list[Option], secrets: list[str]
) -> Option | None:
    """The candidate the model names, or None (none, an answer it cannot read, no model)."""
    assert was.element is not None
    lines = [f"Before: {_brief(was.element, secrets)}", "Now:"]
    lines += [f"{n}. {_brief(o.element, secrets)}" for n, o in enumerate(options, 1)]
    request = SamplingRequest(SYSTEM, (Message("user", "\n".join(lines)),), MAX_TOKENS)
    try:
        answer = await sampler.sample(request)
    except TaskplateError:
        return None
    number = re.fullmatch(r"\s*(\d+)\.?\s*", answer.text)
    picked = int(number.group(1)) if number else 0
    return options[picked - 1] if 0 < picked <= len(options) else None
