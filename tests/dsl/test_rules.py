"""Validator cases as data, as in actionlint's testdata: each rule of `dsl/rules/` has a folder
`rules/<rule>/` of templates, and `cases/` holds templates about several rules at once. A
template `NAME.yaml` gives exactly the lines of `NAME.out` beside it, or none without one.

A folder with a `taskplate.toml` is checked with its providers (as `dsl validate` does), and
`{folder}` in an expected line stands for the folder's path.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from taskplate.dsl import ActionCatalog, check_source, rules
from taskplate.stdlib import REGISTRY

HERE = Path(__file__).parent
CASES = HERE / "cases"
RULE_CASES = HERE / "rules"
ALL = sorted(RULE_CASES.glob("*/*.yaml")) + sorted(CASES.glob("*.yaml"))
ERR = [p for p in ALL if p.with_suffix(".out").exists()]
RULES = {rule.name for rule in rules.REGISTRY}


def catalog_for(folder: Path) -> ActionCatalog:
    if not (folder / "taskplate.toml").exists():
        return REGISTRY
    from taskplate.providers import ProviderCatalog

    return ProviderCatalog.build(REGISTRY, [folder], None)


def diagnostics_of(path: Path) -> list[str]:
    result = check_source(path.read_text(encoding="utf-8"), path.name, catalog_for(path.parent))
    return [d.header().replace(str(path.parent), "{folder}") for d in result.diagnostics]


def expected_of(path: Path) -> list[str]:
    out = path.with_suffix(".out")
    return out.read_text(encoding="utf-8").splitlines() if out.exists() else []


def rules_in(lines: list[str]) -> set[str]:
    return {line.rsplit("[", 1)[1].rstrip("]") for line in lines}


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_each_case_gives_exactly_the_expected_lines(path: Path) -> None:
    expected = expected_of(path)
    actual = diagnostics_of(path)
    assert len(actual) == len(expected), "\n".join(actual)
    assert actual == expected


def test_every_rule_has_a_folder_of_cases_and_every_folder_a_rule() -> None:
    assert {p.name for p in RULE_CASES.iterdir() if p.is_dir()} == RULES


@pytest.mark.parametrize("rule", sorted(RULES))
def test_every_rule_has_a_case_that_fires_and_one_that_does_not(rule: str) -> None:
    cases = sorted((RULE_CASES / rule).glob("*.yaml"))
    fired = [p for p in cases if rule in rules_in(expected_of(p))]
    assert fired, f"no case of {rule} fires it"
    assert len(fired) < len(cases), f"every case of {rule} fires it"


def test_every_rule_is_one_module_of_dsl_rules_named_for_it() -> None:
    folder = Path(rules.__file__).parent
    modules = {p.stem for p in folder.glob("*.py") if not p.name.startswith("_")}
    assert modules == {name.replace("-", "_") for name in RULES}
    assert len(rules.REGISTRY) == len(RULES)  # no id twice
    for rule in rules.REGISTRY:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name), rule.name
        assert rule.docs and "|" not in rule.docs, rule.name


def test_docs_list_every_rule_of_the_registry_in_its_order() -> None:
    text = (HERE.parents[1] / "docs" / "validate.md").read_text(encoding="utf-8")
    table = text.split("## Rules\n\n", 1)[1].split("\n\n", 1)[0]
    assert table == rules.docs_table(), "docs/validate.md: paste rules.docs_table()"


def test_there_are_at_least_40_invalid_cases_each_with_its_expectations() -> None:
    assert len(ERR) >= 40
    assert all(expected_of(p) for p in ERR)


def test_every_rule_is_hit_by_some_case_and_every_case_names_a_registered_rule() -> None:
    hit = set()
    for path in ERR:
        hit |= rules_in(expected_of(path))
    assert hit == RULES, RULES ^ hit


def test_one_file_with_eight_mistakes_yields_all_eight() -> None:
    lines = diagnostics_of(CASES / "eight_mistakes.yaml")
    assert len(lines) == 8
    assert len({line.rsplit("[", 1)[1] for line in lines}) >= 7  # seven rules among eight mistakes


def test_shipped_templates_validate_clean() -> None:
    from taskplate.providers import ProviderCatalog

    root = Path(__file__).parents[2] / "templates"
    catalog = ProviderCatalog.build(REGISTRY, [root], None)  # its taskplate.toml and lock file
    for path in sorted(p for p in root.glob("*.yaml") if not p.name.endswith(".test.yaml")):
        result = check_source(path.read_text(encoding="utf-8"), str(path), catalog)
        assert result.diagnostics == [], path


def test_a_misspelt_key_is_read_as_its_suggestion_and_hides_nothing() -> None:
    """After `for_each`, `step`, `input`… the checker goes on as if the suggestion were written:
    the file with the keys corrected gives the same diagnostics, less the did-you-mean lines."""
    path = CASES / "recovery_misspelt_keys.yaml"
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
