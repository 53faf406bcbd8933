"""What `dsl lsp` offers where, on the text as typed (nested loops, groups, broken YAML)."""

from __future__ import annotations

from taskplate.cli._editor import completions, hover

NESTED = """template: t
version: 1.0.0
inputs: {type: object, properties: {urls: {type: array}}}
steps:
  - id: pages
    forEach: ${{ inputs.urls }}
    as: url
    steps:
      - id: sign_in
        steps:
          - id: data
            action: extract
            with:
              root: main
              fields: {price: {selector: .price, type: number}}
          - action: click
            onError: continue
            with:
              selector: x
    collect: {price: "${{ steps.data.values.price }}"}
"""


def _at(text: str, marker: str, offset: int = 0) -> tuple[int, int]:
    rows = text.split("\n")
    row = next(i for i, r in enumerate(rows) if marker in r)
    return row, rows[row].index(marker) + len(marker) + offset


def _labels(text: str, marker: str) -> list[str]:
    return [i.label for i in completions(text, *_at(text, marker))]


def test_arguments_of_the_action_of_a_step_deep_in_loops_and_groups() -> None:
    typing = NESTED.replace("              selector: x", "              sel")
    assert "selector" in _labels(typing, "              sel")
    assert "button" in _labels(typing, "              sel")  # click's own argument
    typing = NESTED.replace("              root: main", "              ro")
    assert {"root", "fields", "required", "optional", "timeoutMs", "maxBytes"} == set(
        _labels(typing, "              ro")
    )


def test_step_keys_inside_a_group_and_values_from_enums() -> None:
    typing = NESTED.replace("            onError: continue", "            tim")
    assert {"timeoutMs", "retry", "when", "action"} <= set(_labels(typing, "            tim"))
    typing = NESTED.replace("onError: continue", "onError: ")
    assert _labels(typing, "onError: ") == ["fail", "continue"]


def test_names_inside_expressions_while_the_line_breaks_the_yaml() -> None:
    typing = NESTED.replace('"${{ steps.data.values.price }}"}', '"${{ steps.data.values.')
    assert _labels(typing, "${{ steps.data.values.") == ["price"]
    typing = NESTED.replace('"${{ steps.data.values.price }}"}', '"${{ u')
    offered = _labels(typing, '"${{ u')
    assert {"url", "inputs", "steps", "filter", "toNumber"} <= set(offered)


def test_nothing_is_offered_inside_free_form_maps_or_past_the_end() -> None:
    assert completions(NESTED, 2, 10) == []  # inside the inputs JSON Schema
    assert completions(NESTED, 500, 0) == []
    assert completions("", 0, 0)  # an empty file: the template's keys


def test_hover_explains_arguments_and_is_silent_elsewhere() -> None:
    row, col = _at(NESTED, "              root", -2)
    text = hover(NESTED, row, col)
    assert text is not None and text.startswith("**root**: string")
    assert hover(NESTED, 0, 12) is None
    assert hover(NESTED, 999, 0) is None


RECORDS = """template: t
version: 1.0.0
steps:
  - id: cards
    action: extract
    with:
      fields:
        items:
          selector: .card
          all: true
          fields:
            title: .t
            seller:
              selector: .seller
              fields: {name: .n, stars: {selector: .s, type: integer}}
            price:
              sel
output:
  first: ${{ steps.cards.values.items[0].seller.
"""


def test_records_fields_are_completed_at_every_depth() -> None:
    assert {"selector", "attr", "all", "type", "fields"} == set(_labels(RECORDS, "          sel"))
    assert {"selector", "attr", "all", "type", "fields"} == set(
        _labels(RECORDS, "              sel")
    )
    typing = RECORDS.replace("items[0].seller.", "items[0].")
    assert {"title", "seller", "price"} == set(_labels(typing, "items[0]."))
    assert {"name", "stars"} == set(_labels(RECORDS, "items[0].seller."))
