"""Parsed expressions are kept on disk as their trees (dsl/expr/_saved.py): a process that
meets only texts an earlier one parsed does not import lark and gets the same trees; a file of
another key, a damaged file or one over the caps is never read as it is."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from taskplate.dsl.expr import _saved as saved
from taskplate.dsl.expr._lark import read_expression

TEXTS = [
    "inputs.url",
    "steps.a.outputs['k'][0] + -1.5 * 2",
    "!(a == null) ? 'x\\n' : \"y\"",
    "filter(inputs.items, x, x.n > 1 && x.s in ['a', 'b'])",
    "sortBy(steps.s.outputs.rows, r, r.k)",
    "{'a': 1, b: [true, false, null], 'c': {}}",
    "format('{0}', len(inputs.xs))",
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_kept_tree_reads_back_as_lark_built_it(text: str) -> None:
    node = read_expression(text)
    encoded = saved._encode(node)
    assert saved._decode(marshal.loads(marshal.dumps(encoded))) == node


def _run(code: str, cache: Path) -> str:
    env = {"XDG_CACHE_HOME": str(cache), "PATH": "/usr/bin:/bin"}
    env.update({k: v for k, v in os.environ.items() if k == "PYTHONPATH"})
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_second_process_reads_the_trees_without_lark(tmp_path: Path) -> None:
    code = (
        "import sys; from taskplate.dsl import parse_expression as p; "
        f"print(repr([p(t) for t in {TEXTS!r}]), 'lark' in sys.modules)"
    )
    first = _run(code, tmp_path)
    second = _run(code, tmp_path)
    assert first.endswith(" True")
    assert second == first[: -len("True")] + "False"
    error = "import sys; from taskplate.dsl import parse_expression as p\ntry: p('a +')\nexcept Exception as e: print(e, 'lark' in sys.modules)"
    assert _run(error, tmp_path).endswith("True")  # a syntax error is never kept


def _fresh_store(monkeypatch: pytest.MonkeyPatch, cache: Path) -> saved._Store:
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    store = saved._Store()
    assert store.path is not None and store.path.parent == cache / "taskplate"
    return store


def test_a_file_of_another_key_or_damaged_is_not_read_and_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _fresh_store(monkeypatch, tmp_path)
    assert store.path is not None
    store.path.parent.mkdir(parents=True)
    for content in (marshal.dumps(("another grammar", {"a": ["Name", 0, 1, "z"]})), b"\x00bad"):
        store.path.write_bytes(content)
        again = saved._Store()
        assert again.trees == {}
        again.new["a"] = saved._encode(read_expression("a"))
        again.write()
        assert saved._Store().trees == {"a": ["Name", 0, 1, "a"]}


def test_the_file_keeps_the_newest_within_its_caps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _fresh_store(monkeypatch, tmp_path)
    monkeypatch.setattr(saved, "MAX_ENTRIES", 10)
    for i in range(25):
        store.new[f"x{i}"] = saved._encode(read_expression(f"x{i}"))
    store.write()
    assert list(saved._Store().trees) == [f"x{i}" for i in range(15, 25)]
    store.new = {"x3": store.new["x3"]}  # parsed again: the newest now
    store.write()
    assert list(saved._Store().trees) == [*(f"x{i}" for i in range(16, 25)), "x3"]
    assert store.path is not None
    cap = store.path.stat().st_size - 20
    monkeypatch.setattr(saved, "MAX_BYTES", cap)
    store.write()
    kept = saved._Store().trees
    assert 0 < len(kept) < 10 and list(kept)[-1] == "x3" and store.path.stat().st_size <= cap
    monkeypatch.setattr(saved, "MAX_BYTES", store.path.stat().st_size - 1)
    assert saved._Store().trees == {}  # a file over the cap is not read


def test_the_key_names_grammar_ast_and_lark_files() -> None:
    key = saved._key()
    assert key is not None
    for name in ("expr.lark", "_ast.py", "_lark.py", f"lark{os.sep}__init__.py"):
        assert name in key
