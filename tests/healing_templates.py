"""The template shape the healing and repair tests read their local pages with: open
`inputs.url`, then one extract step (`read`) whose values are the output."""

from __future__ import annotations

HEAD = """\
template: {name}
version: 1.0.0
{heal}inputs:
  type: object
  properties:
    url: {{type: string}}
steps:
  - id: open
    action: navigate
    with: {{url: "${{{{ inputs.url }}}}"}}
  - id: read
    action: extract
    with:
"""


def extracting(name: str, *fields: str, required: str = "", heal: str | None = "apply") -> str:
    """A template named `name` whose extract reads `fields` (each a YAML line `key: selector`),
    failing without the comma-separated `required` ones; `heal`: its mode (None: no line, the
    default mode)."""
    lines = [f"      required: [{required}]"] if required else []
    lines += ["      fields:", *(f"        {field}" for field in fields)]
    head = HEAD.format(name=name, heal=f"heal: {heal}\n" if heal else "")
    return head + "\n".join(lines) + "\noutput: ${{ steps.read.values }}\n"
