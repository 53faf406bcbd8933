"""A template's literal selectors are found where they are written, and replaced in place: every
other character of the file (comments, quotes, flow or block style) is kept."""

from __future__ import annotations

import yaml

from taskplate.dsl import selector_spans, with_selectors

SOURCE = """\
steps:
  - id: read   # the read
    action: extract
    with:
      root: main
      fields:
        name: {selector: ".name"}   # keep me
        price: .price
        made: "${{ inputs.sel }}"
  - id: go
    action: click
    with: {selector: '#buy'}
  - id: wrapped
    action: click
    with:
      selector: >-
        #a
        #b
"""


def test_literal_selectors_are_found_with_their_line_and_quotes() -> None:
    found = {(s.step_id, s.path): (s.value, s.line, s.style) for s in selector_spans(SOURCE)}
    assert found == {
        ("read", ("root",)): ("main", 5, None),
        ("read", ("fields", "name")): (".name", 7, '"'),
        ("read", ("fields", "price")): (".price", 8, None),
        ("go", ("selector",)): ("#buy", 12, "'"),
    }  # an expression and a folded scalar over two lines are not repaired in place


def test_a_selector_is_replaced_in_its_own_style_and_nothing_else_changes() -> None:
    spans = {s.path[-1]: s for s in selector_spans(SOURCE)}
    after = with_selectors(
        SOURCE,
        {
            spans["name"]: 'h1[data-x="1"]',
            spans["price"]: "p.cost",
            spans["selector"]: "#buy-now",
            spans["root"]: "#main",
        },
    )
    assert after.splitlines()[4:12] == [
        "      root: '#main'",
        "      fields:",
        '        name: {selector: "h1[data-x=\\"1\\"]"}   # keep me',
        "        price: p.cost",
        '        made: "${{ inputs.sel }}"',
        "  - id: go",
        "    action: click",
        "    with: {selector: '#buy-now'}",
    ]
    data = yaml.safe_load(after)
    assert data["steps"][0]["with"]["fields"]["name"] == {"selector": 'h1[data-x="1"]'}
    assert data["steps"][0]["with"]["root"] == "#main"


def test_a_plain_selector_that_would_read_as_another_value_is_quoted() -> None:
    (span,) = selector_spans("steps:\n  - id: a\n    action: click\n    with: {selector: b}\n")
    after = with_selectors(
        "steps:\n  - id: a\n    action: click\n    with: {selector: b}\n", {span: ".5"}
    )
    assert yaml.safe_load(after)["steps"][0]["with"]["selector"] == ".5"
    assert "{selector: '.5'}" in after


RECORDS = """\
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
            seller: {selector: .seller, fields: {name: "b.n"}}
            own: {attr: data-id}
"""


def test_a_records_selectors_are_found_at_every_depth_and_replaced_in_place() -> None:
    found = {s.path: (s.value, s.line) for s in selector_spans(RECORDS)}
    assert found == {
        ("fields", "items"): (".card", 7),
        ("fields", "items", "fields", "title"): (".t", 10),
        ("fields", "items", "fields", "seller"): (".seller", 11),
        ("fields", "items", "fields", "seller", "fields", "name"): ("b.n", 11),
    }
    spans = {s.path[-1]: s for s in selector_spans(RECORDS)}
    after = with_selectors(RECORDS, {spans["name"]: "b.name", spans["title"]: "h3"})
    assert after.splitlines()[9:11] == [
        "            title: h3",
        '            seller: {selector: .seller, fields: {name: "b.name"}}',
    ]
