"""YAML loading: positions of every node and key, the core schema, and refused documents."""

from __future__ import annotations

import pytest

from taskplate.dsl._diagnostics import Span
from taskplate.dsl._yaml import YamlError, load_yaml


def test_every_value_and_key_keeps_its_position() -> None:
    loaded = load_yaml("a: 1\nsteps:\n  - id: x\n    with: {url: 'u'}\n")
    assert loaded.nodes["/a"].span == Span(1, 4, 1, 5)
    assert loaded.keys["/steps"].span == Span(2, 1, 2, 6)
    assert loaded.nodes["/steps/0/id"].span == Span(3, 9, 3, 10)
    assert loaded.nodes["/steps/0/with/url"].style == "'"
    assert loaded.span("/steps/0/missing/deeper") == loaded.nodes["/steps/0"].span


def test_scalars_follow_the_yaml_1_2_core_schema() -> None:
    data = load_yaml(
        "a: on\nb: yes\nc: true\nd: 1.0.0\ne: 0x10\nf: 2.5\ng: ~\nh: '1'\ni: 2024-01-01\n"
    ).data
    assert data == {
        "a": "on",
        "b": "yes",
        "c": True,
        "d": "1.0.0",
        "e": 16,
        "f": 2.5,
        "g": None,
        "h": "1",
        "i": "2024-01-01",
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\na: 2\n", 'duplicate key "a" (first defined at line 1, column 1)'),
        ("a: [1,\n", "expected (the )?node content"),
        ("a: !!python/object:os.system x\n", "custom YAML tag"),
        ("a: !custom x\n", "custom YAML tag"),
        ("<<: {a: 1}\n", "merge keys (<<) are not supported"),
        ("? [a]\n: 1\n", "mapping keys must be plain strings"),
        ("a:\n\t- b\n", "a tab character cannot indent YAML"),
        ("a: 1\n---\nb: 2\n", "expected a single document"),
        ("[" * 300 + "]" * 300, "nests deeper than 100 levels"),
    ],
)
def test_bad_documents_are_refused_with_a_position(text: str, message: str) -> None:
    pattern = (
        message
        if "?" in message
        else message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
    )
    with pytest.raises(YamlError, match=pattern):
        load_yaml(text)


def test_alias_bombs_are_bounded() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 10)}]")
    with pytest.raises(YamlError, match="expands to more than"):
        load_yaml("\n".join(lines))


def test_a_small_alias_is_fine() -> None:
    data = load_yaml("base: &b {x: 1}\nuse: *b\n").data
    assert data["use"] == {"x": 1}


def test_recursive_aliases_are_bounded() -> None:
    with pytest.raises(YamlError):
        load_yaml("a: &a [*a]\n")


def test_a_number_of_more_digits_than_python_reads_is_refused_where_it_stands() -> None:
    with pytest.raises(YamlError, match="more than 4300 digits") as refused:
        load_yaml("a: 1\nb: " + "9" * 4301 + "\n")
    assert refused.value.span.line == 2
    assert load_yaml("b: " + "9" * 4300).data["b"] > 0


def test_a_large_document_is_composed_node_by_node_and_stops_at_the_bound() -> None:
    with pytest.raises(YamlError, match="more than 20000 values") as refused:
        load_yaml("x:\n" + "- 1\n" * 100_000)
    assert refused.value.span.line < 50_000
    big_but_small_enough = "x:\n" + "".join(f"- '{'a' * 200}{i}'\n" for i in range(5000))
    loaded = load_yaml(big_but_small_enough)  # composed node by node too, positions kept
    assert len(loaded.data["x"]) == 5000
    assert loaded.nodes["/x/4999"].span.line == 5001
