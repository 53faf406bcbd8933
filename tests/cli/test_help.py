"""Every `dsl` command and subcommand has a one-line help that its group's listing shows whole,
help for each option, and examples in --help that name the command and only its options."""

from __future__ import annotations

import shlex
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from taskplate.cli.main import cli

LISTING = 60  # the width click gives a subcommand's line in its group's --help


def tree(
    command: click.Command, path: list[str], ctx: click.Context
) -> Iterator[tuple[list[str], click.Command]]:
    yield path, command
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, f"{' '.join(path)} lists {name} but has no such command"
            yield from tree(sub, [*path, name], click.Context(sub, parent=ctx, info_name=name))


COMMANDS = list(tree(cli, ["dsl"], click.Context(cli, info_name="dsl")))


def test_the_walk_finds_every_command() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"dsl runs cancel", "dsl runs show", "dsl template new", "dsl artifact get"} <= names
    assert len(names) >= 24


@pytest.mark.parametrize(
    ("path", "command"), COMMANDS, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_a_command_has_a_one_line_help_option_helps_and_examples(
    path: list[str], command: click.Command
) -> None:
    where = " ".join(path)
    first = (command.help or "").strip().splitlines()
    assert first and first[0].strip(), f"{where} has no help text"
    short = command.get_short_help_str(limit=LISTING)
    assert short and not short.endswith("..."), f"{where}: the first line is cut in listings"
    for param in command.params:
        if isinstance(param, click.Option) and param.name not in ("help", "version"):
            assert param.help, f"{where} {param.opts[0]} has no help text"
    shown = CliRunner().invoke(cli, [*path[1:], "--help"])
    assert shown.exit_code == 0, shown.output
    assert "Example" in shown.output, f"{where} --help shows no example"
    examples = shown.output.split("Example", 1)[1].splitlines()[1:]
    lines = [line.strip() for line in examples if line.strip()]
    assert lines, f"{where} --help shows no example line"
    for line in lines:
        words = shlex.split(line, comments=True)
        words = words[: words.index("|")] if "|" in words else words
        words = [w for w in words if "=" not in w or w.startswith("-")]  # VAR=value dsl …
        assert words[0] == "dsl", f"{where}: example {line!r} is not a dsl command"
        assert words[: len(path)] == path, f"{where}: example {line!r} runs another command"
        ran, ctx = command, click.Context(cli, info_name="dsl")
        for word in words[len(path) :]:  # the subcommand the example runs, if any
            if isinstance(ran, click.Group) and ran.get_command(ctx, word) is not None:
                ran = ran.get_command(ctx, word)  # type: ignore[assignment]
        options = {"-h", "--help"} | {o for p in ran.params for o in getattr(p, "opts", [])}
        for word in words[len(path) :]:
            if word.startswith("-"):
                assert word.split("=")[0] in options, f"{where}: {word} in {line!r}"
