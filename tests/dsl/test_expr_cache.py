"""The expression parser is built from expr.lark once and kept on disk, named by the grammar and
lark's version: a changed grammar is never read from an old file, a damaged file is replaced,
an unwritable cache folder only costs the build, and processes starting together agree."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import lark
import pytest

from taskplate.dsl.expr import _grammar as grammar

BUILD = grammar.parser.__wrapped__  # the uncached builder: each call reads or writes the disk


def test_the_parser_is_kept_under_a_name_of_grammar_lark_and_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = grammar.grammar_text()
    path = grammar.cache_file(text)
    assert path.parent == tmp_path / "taskplate"
    assert grammar.cache_file(text + "\n// changed") != path
    monkeypatch.setattr(lark, "__version__", "0.0.0")
    assert grammar.cache_file(text) != path
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    BUILD()
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    assert BUILD().parse("a + 1").data == "add"  # now read from the file


def test_a_damaged_file_is_built_again_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = grammar.cache_file(grammar.grammar_text())
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a parser")
    assert BUILD().parse("x.y").data == "attr"
    assert path.read_bytes() != b"not a parser"


def test_an_unwritable_cache_folder_only_costs_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert BUILD().parse("[1, 2]").data == "list"
    assert list(tmp_path.iterdir()) == [blocker]


def test_processes_starting_together_each_parse(tmp_path: Path) -> None:
    code = "from taskplate.dsl import parse_expression as p; print(p('a.b[0] + 1').op)"
    env = {"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    env.update({k: v for k, v in os.environ.items() if k == "PYTHONPATH"})
    started = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outputs = [p.communicate(timeout=60)[0].strip() for p in started]
    assert outputs == ["+"] * 4
    # one parser, and one file of parsed expressions (dsl/expr/_saved.py)
    assert sorted(p.suffix for p in (tmp_path / "taskplate").iterdir()) == [".lark", ".marshal"]
