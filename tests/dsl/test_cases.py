"""Validator cases as data: ok/*.yaml give no diagnostic; err/NAME.yaml give exactly NAME.out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from taskplate.dsl import check_source
from taskplate.stdlib import REGISTRY

CASES = Path(__file__).parent / "cases"
OK = sorted((CASES / "ok").glob("*.yaml"))
ERR = sorted((CASES / "err").glob("*.yaml"))
RULES = {
    "yaml-syntax",
    "template-schema",
    "json-schema",
    "expr-syntax",
    "unknown-action",
    "action-args",
    "unknown-ref",
    "ref-order",
    "duplicate-id",
    "cycle",
    "type",
    "trust",
    "limits",
    "partial-success",
    "enqueue",
    "enqueue-type",
    "enqueue-bound",
    "shared-tab",
    "unused-input",
    "unused-step",
}


def diagnostics_of(path: Path) -> list[str]:
    result = check_source(path.read_text(encoding="utf-8"), path.name, REGISTRY)
    return [d.header() for d in result.diagnostics]


@pytest.mark.parametrize("path", OK, ids=lambda p: p.stem)
def test_valid_template_gives_no_diagnostic(path: Path) -> None:
    assert diagnostics_of(path) == []


@pytest.mark.parametrize("path", ERR, ids=lambda p: p.stem)
def test_invalid_template_gives_exactly_the_expected_lines(path: Path) -> None:
    expected = path.with_suffix(".out").read_text(encoding="utf-8").splitlines()
    actual = diagnostics_of(path)
    assert len(actual) == len(expected), "\n".join(actual)
    assert actual == expected


def test_there_are_at_least_40_invalid_cases_each_with_its_expectations() -> None:
    assert len(ERR) >= 40
    assert all(p.with_suffix(".out").exists() for p in ERR)


def test_every_rule_is_hit_by_some_case() -> None:
    hit = set()
    for path in ERR:
        for line in path.with_suffix(".out").read_text(encoding="utf-8").splitlines():
            hit.add(line.rsplit("[", 1)[1].rstrip("]"))
    assert hit >= RULES, RULES - hit


def test_one_file_with_eight_mistakes_yields_all_eight() -> None:
    lines = diagnostics_of(CASES / "err" / "eight_mistakes.yaml")
    assert len(lines) == 8
    assert len({line.rsplit("[", 1)[1] for line in lines}) >= 7  # seven rules among eight mistakes


def test_shipped_templates_validate_clean() -> None:
    from taskplate.providers import ProviderCatalog

    root = Path(__file__).parents[2] / "templates"
    catalog = ProviderCatalog.build(REGISTRY, [root], None)  # its taskplate.toml and lock file
    for path in sorted(root.glob("*.yaml")):
        result = check_source(path.read_text(encoding="utf-8"), str(path), catalog)
        assert result.diagnostics == [], path


def test_a_misspelt_key_is_read_as_its_suggestion_and_hides_nothing() -> None:
    """After `for_each`, `step`, `input`… the checker goes on as if the suggestion were written:
    the file with the keys corrected gives the same diagnostics, less the did-you-mean lines."""
    path = CASES / "err" / "recovery_misspelt_keys.yaml"
    misspelt = diagnostics_of(path)
    text = path.read_text(encoding="utf-8")
    for old, new in [
        ("input:", "inputs:"),
        ("for_each:", "forEach:"),
        ("ass:", "as:"),
        ("step:", "steps:"),
        ("attemps:", "attempts:"),
        ("ouput:", "output:"),
    ]:
        text = re.sub(rf"\b{old}", new, text)
    fixed = check_source(text, path.name, REGISTRY)
    expected = [d.header() for d in fixed.diagnostics]
    assert [line for line in misspelt if "unknown key" not in line or "available" in line] == (
        expected
    )
    assert not any("unused-input" in line for line in misspelt)
    assert any("navigat" in line for line in misspelt)  # inside the misspelt `step:`
