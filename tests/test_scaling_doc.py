"""docs/scaling.md shows what works: its `dsl serve` options exist, its endpoint lists and
headers parse as taskplate reads them, and its Compose file is YAML."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from click.testing import CliRunner

from taskplate.browser._endpoints import parse_endpoints
from taskplate.cli.main import cli

DOC = (Path(__file__).parents[1] / "docs" / "scaling.md").read_text(encoding="utf-8")


def test_every_dsl_serve_option_in_the_guide_exists() -> None:
    help_text = CliRunner().invoke(cli, ["serve", "--help"]).output
    commands = re.findall(r"dsl serve ([^\n`]*)", DOC)
    used = {option for line in commands for option in re.findall(r"--[a-z-]+", line)}
    assert {"--transport", "--token-file", "--public-host", "--browser-endpoints"} <= used
    assert used - {"--store"} <= set(re.findall(r"--[a-z-]+", help_text)), used


def test_the_guide_endpoint_lists_and_headers_parse() -> None:
    lists = re.findall(r"TASKPLATE_BROWSER_ENDPOINTS[=:] ?([^\n]+)", DOC)
    assert len(lists) >= 2
    for listed in lists:
        assert len(parse_endpoints(listed)) == 2, listed
    (headers,) = re.findall(r"TASKPLATE_BROWSER_HEADERS='([^']+)'", DOC)
    options = json.loads(json.loads(headers)["x-playwright-launch-options"])
    assert options["executablePath"] == "/usr/bin/chromium"


def test_the_compose_file_is_yaml_with_the_pool_and_the_store() -> None:
    (block,) = re.findall(r"```yaml\n(.*?)```", DOC, flags=re.S)
    compose = yaml.safe_load(block)
    env = compose["services"]["taskplate"]["environment"]
    assert env["TASKPLATE_STORE"].startswith("postgresql://")
    assert len(parse_endpoints(env["TASKPLATE_BROWSER_ENDPOINTS"])) == 2
