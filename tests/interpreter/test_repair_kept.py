"""A recording keeps the elements' fingerprints for repair, read back as they were kept; a
recording made before they were kept has none (repair replays it instead)."""

from __future__ import annotations

import json
from pathlib import Path

from taskplate.interpreter.cases._repair import Seen, recorded_elements


def har(made: dict[str, object]) -> dict[str, object]:
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "t", "version": "1"},
            "entries": [],
            "_taskplate": made,
        }
    }


def test_the_kept_fingerprints_are_read_back_and_an_older_recording_has_none(
    tmp_path: Path,
) -> None:
    element = {"tag": "p", "text": "12.50", "attrs": {}, "classes": ["price"]}
    kept = [
        {"step": "read", "path": ["fields", "price"], "item": None, "count": 1,
         "element": element, "read": "12.50", "many": False},
    ]  # fmt: skip
    new, old = tmp_path / "new.har", tmp_path / "old.har"
    new.write_text(json.dumps(har({"template": "t.yaml", "elements": kept})), encoding="utf-8")
    old.write_text(json.dumps(har({"template": "t.yaml"})), encoding="utf-8")
    assert recorded_elements(new) == {
        (("read", ("fields", "price")), None): Seen(1, element, "12.50", False)
    }
    assert recorded_elements(old) is None
    assert recorded_elements(tmp_path / "missing.har") is None
