"""A step row's preview: the value's JSON cut at PREVIEW_CHARS with every secret masked, read
only as far as it shows (a large result is not written out whole on the event loop)."""

from __future__ import annotations

import json
import time

from taskplate.interpreter._step_log import PREVIEW_CHARS, preview


def whole_then_cut(value: object, secrets: list[str]) -> str:
    """What a preview is: the whole JSON, masked, then cut."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    for secret in secrets:
        text = text.replace(secret, "***")
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def test_a_preview_masks_secrets_across_its_cut_as_the_whole_text_would() -> None:
    secret = "hunter2-" * 5
    for at in range(PREVIEW_CHARS - 60, PREVIEW_CHARS + 10):
        value = {"a": "x" * at, "b": secret, "c": [secret] * 50}
        for secrets in ([secret], [secret, "x" * 7], ["xx"], []):
            assert preview(value, secrets) == whole_then_cut(value, secrets), (at, secrets)
    exact = ["y" * (PREVIEW_CHARS - 4)]  # exactly PREVIEW_CHARS characters of JSON
    assert preview(exact, []) == whole_then_cut(exact, []) == json.dumps(exact)
    assert preview("z" * 500, []) == whole_then_cut("z" * 500, [])


def test_a_preview_of_a_large_result_reads_only_its_head() -> None:
    rows = {"rows": [{"title": f"Item {i}", "link": f"/item?n={i}"} for i in range(200_000)]}
    started = time.process_time()
    shown = preview(rows, ["nothing"])
    assert time.process_time() - started < 0.05  # writing it all out takes about a second
    assert shown == whole_then_cut(rows, ["nothing"])
