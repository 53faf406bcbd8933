"""taskplate.toml: every bad entry named in a warning and skipped, the others loaded; the
published JSON Schema; the data home has the last word."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from taskplate.providers import SCHEMA, load_configuration
from tests.providers.conftest import TIME, time_config, toml_list

DOCS = Path(__file__).parents[2] / "docs"


def test_a_good_configuration_loads_stdio_and_http_providers(tmp_path: Path) -> None:
    (tmp_path / "taskplate.toml").write_text(
        time_config(extra='cwd = "."\nenv = {TZ = "UTC"}\nlevels = {get_current_time = "L1"}\n')
        + '[providers.everything]\nurl = "http://127.0.0.1:3001/mcp"\ntoken_env = "EVERYTHING_TOKEN"\n'
        + '[templates]\ndisabled = ["multi_tab_compare"]\nlocal_only = ["login_keep_session"]\n'
    )
    config = load_configuration([tmp_path])
    assert config.warnings == []
    time, everything = config.providers["time"], config.providers["everything"]
    assert time.transport == "stdio" and time.command[0] == TIME and time.cwd == str(tmp_path)
    assert dict(time.env) == {"TZ": "UTC"} and time.level_of("get_current_time") == "L1"
    assert everything.transport == "http" and everything.token_env == "EVERYTHING_TOKEN"
    assert config.disabled == {"multi_tab_compare"}
    assert config.local_only == {"login_keep_session"}


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ('[providers.Bad-Name]\ncommand = ["x"]', 'provider "Bad-Name" skipped: bad name'),
        (
            "[providers.empty]\ncommand = []",
            'provider "empty" skipped: command: [] should be non-empty',
        ),
        ('[providers.blank]\ncommand = [" "]', 'provider "blank" skipped: empty command'),
        (
            '[providers.gone]\ncommand = ["no-such-server-here"]',
            'provider "gone" skipped: command "no-such-server-here" does not exist',
        ),
        (
            "[providers.nothing]\ncwd = '.'",
            'provider "nothing" skipped: give command (stdio) or url',
        ),
        (
            '[providers.both]\ncommand = ["x"]\nurl = "http://127.0.0.1:1/mcp"',
            'provider "both" skipped: give command or url, not both',
        ),
        ('[providers.web]\nurl = "ftp://host/mcp"', 'provider "web" skipped: url:'),
        ('[providers.odd]\ncommand = ["x"]\ncolor = "red"', 'provider "odd" skipped:'),
        (
            '[providers.lvl]\ncommand = ["x"]\nlevels = {t = "L9"}',
            'provider "lvl" skipped: levels/t:',
        ),
        (
            '[providers.var]\ncommand = ["${NO_SUCH_VARIABLE_17}"]',
            'provider "var" skipped: ${NO_SUCH_VARIABLE_17} is not set',
        ),
    ],
)
def test_a_bad_entry_is_skipped_with_a_warning_naming_it_and_the_others_load(
    tmp_path: Path, entry: str, why: str
) -> None:
    (tmp_path / "taskplate.toml").write_text(time_config() + entry + "\n")
    config = load_configuration([tmp_path])
    assert list(config.providers) == ["time"]
    assert len(config.warnings) == 1 and why in config.warnings[0], config.warnings
    assert str(tmp_path / "taskplate.toml") in config.warnings[0]


def test_a_duplicate_name_in_a_second_folder_is_skipped_but_the_data_home_replaces_it(
    tmp_path: Path,
) -> None:
    first, second, home = tmp_path / "a", tmp_path / "b", tmp_path / "home"
    for folder in (first, second, home):
        folder.mkdir()
    (first / "taskplate.toml").write_text(time_config())
    (second / "taskplate.toml").write_text(time_config(extra='env = {X = "2"}\n'))
    config = load_configuration([first, second])
    assert config.providers["time"].source == str(first / "taskplate.toml")
    assert any('provider "time" skipped: duplicate name' in w for w in config.warnings)
    (home / "taskplate.toml").write_text(
        time_config(extra='env = {X = "home"}\n') + '[templates]\nenabled = ["x"]\n'
    )
    (first / "taskplate.toml").write_text(time_config() + '[templates]\ndisabled = ["x", "y"]\n')
    config = load_configuration([first], home)
    assert dict(config.providers["time"].env) == {"X": "home"}
    assert config.disabled == {"y"}


def test_a_file_that_is_not_toml_is_named_and_ignored(tmp_path: Path) -> None:
    (tmp_path / "taskplate.toml").write_text("[providers.time\n")
    config = load_configuration([tmp_path])
    assert config.providers == {}
    assert "not valid TOML" in config.warnings[0] and str(tmp_path) in config.warnings[0]


def test_the_published_schema_is_the_one_the_entries_are_checked_against() -> None:
    published = json.loads((DOCS / "taskplate.toml.schema.json").read_text())
    assert published == SCHEMA
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.validate(
        {
            "providers": {"time": {"command": ["t"]}, "web": {"url": "https://h/mcp"}},
            "templates": {"disabled": ["a"]},
        },
        SCHEMA,
    )


def test_the_example_configuration_of_the_issue_is_valid(tmp_path: Path) -> None:
    import tomllib

    text = (
        '[providers.time]\ncommand = ["mcp-server-time", "--local-timezone", "UTC"]\n'
        '[providers.everything]\nurl = "http://127.0.0.1:3001/mcp"\ntoken_env = "EVERYTHING_TOKEN"\n'
        '[templates]\ndisabled = ["multi_tab_compare"]\nlocal_only = ["login_keep_session"]\n'
    )
    jsonschema.validate(tomllib.loads(text), SCHEMA)
    assert toml_list(["a"]) == '["a"]'


LLM = '[llm]\nurl = "http://127.0.0.1:8000/v1"\nmodel = "small"\n'


def test_an_llm_table_names_the_endpoint_and_its_token_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TASKPLATE_LLM_URL", raising=False)
    (tmp_path / "taskplate.toml").write_text(LLM)
    llm = load_configuration([tmp_path]).llm
    assert llm is not None and (llm.url, llm.model, llm.token_env) == (
        "http://127.0.0.1:8000/v1",
        "small",
        None,
    )
    assert (llm.use, llm.always, llm.timeout_ms) == ("fallback", False, 120_000)
    assert llm.source == str(tmp_path / "taskplate.toml")
    (tmp_path / "taskplate.toml").write_text(
        LLM + 'token_env = "LLM_TOKEN"\nuse = "always"\ntimeout_ms = 5000\n'
    )
    llm = load_configuration([tmp_path]).llm
    assert llm is not None and (llm.token_env, llm.always, llm.timeout_ms) == (
        "LLM_TOKEN",
        True,
        5000,
    )


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ('[llm]\nurl = "http://h/v1"', "llm: 'model' is a required property"),
        ('[llm]\nurl = "ftp://h/v1"\nmodel = "m"', "llm.url: 'ftp://h/v1' does not match"),
        (LLM + 'use = "sometimes"', "llm.use: 'sometimes' is not one of ['fallback', 'always']"),
        (LLM + 'token_env = "MY-TOKEN"', "llm.token_env: 'MY-TOKEN' does not match"),
        (LLM + "timeout_ms = 0", "llm.timeout_ms: 0 is less than the minimum of 1"),
        # the token written in the file: the key is named, its value never shown
        (LLM + 'token = "sk-secret-123"', "llm: Additional properties are not allowed ('token'"),
    ],
)
def test_a_bad_llm_table_is_ignored_with_a_warning_naming_its_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, why: str
) -> None:
    monkeypatch.delenv("TASKPLATE_LLM_URL", raising=False)
    (tmp_path / "taskplate.toml").write_text(time_config() + table + "\n")
    config = load_configuration([tmp_path])
    assert config.llm is None and list(config.providers) == ["time"]
    (warning,) = config.warnings
    assert why in warning and str(tmp_path / "taskplate.toml") in warning, warning
    assert "sk-secret-123" not in warning
    assert config.no_llm == warning  # what a step that needs a model is told


def test_the_data_homes_llm_table_has_the_last_word(tmp_path: Path) -> None:
    folder, home = tmp_path / "templates", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    (folder / "taskplate.toml").write_text(LLM)
    (home / "taskplate.toml").write_text(LLM.replace("small", "large"))
    llm = load_configuration([folder], home).llm
    assert llm is not None and llm.model == "large" and llm.source == str(home / "taskplate.toml")


def test_without_an_llm_table_the_environment_may_name_the_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TASKPLATE_LLM_URL", raising=False)
    monkeypatch.delenv("TASKPLATE_LLM_KEY", raising=False)
    config = load_configuration([tmp_path])
    assert config.llm is None
    assert config.no_llm == "no taskplate.toml has an [llm] table, and TASKPLATE_LLM_URL is not set"
    monkeypatch.setenv("TASKPLATE_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("TASKPLATE_LLM_MODEL", raising=False)
    assert "TASKPLATE_LLM_MODEL is not" in load_configuration([tmp_path]).no_llm
    monkeypatch.setenv("TASKPLATE_LLM_MODEL", "m")
    monkeypatch.setenv("TASKPLATE_LLM_KEY", "k")
    llm = load_configuration([tmp_path]).llm
    assert llm is not None and (llm.url, llm.model, llm.token_env) == (
        "http://127.0.0.1:9/v1",
        "m",
        "TASKPLATE_LLM_KEY",
    )
    (tmp_path / "taskplate.toml").write_text(LLM)  # a file's table wins over the environment
    llm = load_configuration([tmp_path]).llm
    assert llm is not None and llm.model == "small"


def test_the_published_schema_holds_the_llm_table() -> None:
    import tomllib

    text = LLM + 'token_env = "LLM_TOKEN"\nuse = "always"\ntimeout_ms = 60000\n'
    jsonschema.validate(tomllib.loads(text), SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(tomllib.loads(LLM + 'use = "never"\n'), SCHEMA)


def test_the_network_table_is_the_data_homes_only(tmp_path: Path) -> None:
    home, folder = tmp_path / "home", tmp_path / "templates"
    home.mkdir()
    folder.mkdir()
    (home / "taskplate.toml").write_text(
        '[network]\nproxy = "http://u:p@proxy.corp:3128"\nallow_proxies = ["http://proxy.corp:3128"]\n'
        "max_retry_after_s = 30\n"
    )
    (folder / "taskplate.toml").write_text('[network]\nproxy = "http://template-chosen:1"\n')
    config = load_configuration([folder], home)
    assert config.network["proxy"] == "http://u:p@proxy.corp:3128"
    assert config.network["max_retry_after_s"] == 30
    assert any("[network] ignored: only the data home's" in w for w in config.warnings)
    (home / "taskplate.toml").write_text("[network]\nmax_retry_after_s = -1\n")
    bad = load_configuration([], home)
    assert bad.network == {} and any("network.max_retry_after_s" in w for w in bad.warnings)


def test_serve_drain_s_is_read_and_a_bad_one_is_named_and_ignored(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "taskplate.toml").write_text("[serve]\ndrainS = 12.5\n", encoding="utf-8")
    (second / "taskplate.toml").write_text("[serve]\ndrainS = -1\n", encoding="utf-8")
    assert load_configuration([first]).drain_s == 12.5
    kept = load_configuration([first, second])
    assert kept.drain_s == 12.5  # the bad one ignored, the earlier kept
    assert any("serve.drainS ignored: want seconds, 0 to 3600" in w for w in kept.warnings)
    assert load_configuration([tmp_path]).drain_s is None  # none said: the server's 30
