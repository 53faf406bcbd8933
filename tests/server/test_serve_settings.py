"""`dsl serve`'s options reach the server as one typed value (#52): `ServeSettings`, built once
by the CLI, its defaults the CLI's own."""

from __future__ import annotations

import dataclasses
import inspect

from taskplate.cli.commands.serve import command
from taskplate.contract import TrustLevel
from taskplate.server import ServeSettings, run, serve


def test_serving_takes_the_manager_and_one_settings_value() -> None:
    for function in (serve, run):
        assert list(inspect.signature(function).parameters) == ["manager", "settings"]


def test_the_settings_defaults_are_the_commands_defaults() -> None:
    defaults = {p.name: p.default for p in command.params}
    settings = ServeSettings()
    assert (settings.transport, defaults["transport"]) == ("stdio", "stdio")
    assert settings.host == defaults["host"] and settings.port == defaults["port"]
    assert settings.trust is TrustLevel(defaults["trust"])
    assert settings.ui is defaults["ui"] and not settings.remote_save and not settings.ui_remote


def test_the_url_brackets_an_ipv6_host() -> None:
    assert ServeSettings(host="::1", port=9).url == "http://[::1]:9"
    assert ServeSettings(host="127.0.0.1").url == "http://127.0.0.1:8765"
    assert not ServeSettings().http and ServeSettings(transport="streamable-http").http
    assert all(f.type for f in dataclasses.fields(ServeSettings))
