"""The repository's server.json (what the official MCP Registry lists) is valid against the
registry's published schema (vendored in tests/registry/, see SOURCE.md there) and agrees with
the package it names: its version, the `dsl serve` it starts and the settings it documents."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema

from taskplate.cli.commands.serve import command

ROOT = Path(__file__).parents[1]
SCHEMA = json.loads((ROOT / "tests" / "registry" / "server.schema.json").read_text("utf-8"))
SERVER = json.loads((ROOT / "server.json").read_text("utf-8"))


def test_server_json_is_valid_against_the_registrys_schema() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    checker = jsonschema.Draft7Validator.FORMAT_CHECKER
    jsonschema.Draft7Validator(SCHEMA, format_checker=checker).validate(SERVER)
    assert SERVER["$schema"] == SCHEMA["$id"]


def test_server_json_names_this_package_and_its_settings() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    (package,) = SERVER["packages"]
    assert package["identifier"] == project["name"] == "taskplate"
    assert package["version"] == SERVER["version"] == project["version"]
    assert "taskplate" in project["scripts"]  # what `uvx taskplate serve` runs
    assert [a["value"] for a in package["packageArguments"]] == ["serve"]
    settings = {p.envvar for p in command.params if isinstance(p.envvar, str)}
    settings |= {"TASKPLATE_HOME", "TASKPLATE_TEMPLATES"}  # read by the library, not options
    assert {v["name"] for v in package["environmentVariables"]} <= settings


def test_a_wrong_server_json_is_refused() -> None:
    """The check is real: the registry's schema refuses what it should."""
    validator = jsonschema.Draft7Validator(SCHEMA)
    assert not validator.is_valid({**SERVER, "name": "taskplate"})  # no namespace
    assert not validator.is_valid({**SERVER, "description": "x" * 101})
