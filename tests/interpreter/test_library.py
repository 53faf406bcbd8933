"""The template library serves valid templates and skips invalid ones, logging why."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from taskplate.interpreter import SHIPPED, TemplateLibrary
from taskplate.stdlib import REGISTRY


def test_an_invalid_template_is_skipped_with_its_diagnostics_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "broken.yaml").write_text(
        "template: broken\nversion: 1.0.0\nsteps:\n  - action: navgate\n"
    )
    (tmp_path / "fine.yaml").write_text(
        "template: fine\nversion: 2.0.0\nsteps:\n  - {action: wait, with: {ms: 1}}\n"
    )
    with caplog.at_level(logging.WARNING, logger="taskplate.templates"):
        library = TemplateLibrary(REGISTRY).load([SHIPPED, tmp_path])
    served = {t.id for t in library.all()}
    assert "fine" in served and "broken" not in served and "batch_extract_pages" in served
    assert str(tmp_path / "broken.yaml") in library.rejected
    assert 'unknown action "navgate"; did you mean "navigate"?' in caplog.text
