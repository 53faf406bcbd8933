"""The template shape the healing and repair tests read their local pages with (open
`inputs.url`, then one extract step, `read`, whose values are the output), and its runs over a
page as it was and as changed."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import anyio

from taskplate.browser import BrowserRuntime
from taskplate.interpreter import RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY

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


async def answers_over(
    tmp_path: Path,
    name: str,
    template: str,
    url: str,
    versions: Iterable[Callable[[], object]],
    runtime: BrowserRuntime,
) -> list[dict[str, Any]]:
    """The template `name`'s run described after each of `versions` wrote the page at `url`, in
    order, on one manager and the browser given (a module's, tests/conftest.py): what a run
    learned heals the next."""
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / f"{name}.yaml").write_text(template, encoding="utf-8")
    answers = []
    runs = RunManager(
        tmp_path / "home", TemplateLibrary(REGISTRY).load([templates]), runtime=runtime
    )
    async with runs.running():
        for write in versions:
            write()
            run_id = await runs.submit(name, {"url": url})
            with anyio.fail_after(60):
                await runs.wait(run_id)
            answers.append(await runs.describe(run_id))
    return answers
