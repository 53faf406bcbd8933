"""bench/wcxb.py keeps WCXB's dev split alone: fetched from a tiny local git repository shaped like
the benchmark (no internet), nothing of its test split reaches the folder it writes.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from pytest import MonkeyPatch

ROOT = Path(__file__).resolve().parent.parent


def _wcxb() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wcxb", ROOT / "bench" / "wcxb.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("wcxb", module)  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def _page(root: Path, split: str, key: str, kind: str, text: str) -> None:
    (root / split / "html").mkdir(parents=True, exist_ok=True)
    (root / split / "ground-truth").mkdir(parents=True, exist_ok=True)
    html = f"<html><body><main><p>{text}</p></main><footer>menu</footer></body></html>"
    (root / split / "html" / f"{key}.html.gz").write_bytes(gzip.compress(html.encode()))
    label = {
        "url": f"https://{key}.example/page",
        "_internal": {"page_type": {"primary": kind}},
        "ground_truth": {"main_content": text},
    }
    (root / split / "ground-truth" / f"{key}.json").write_text(json.dumps(label))


def _benchmark(root: Path) -> Path:
    """A git repository with a dev split of two pages, a test split of one, and metadata naming
    all three (as the real one does)."""
    _page(root, "dev", "0001", "article", "first dev page words")
    _page(root, "dev", "0002", "category", "second dev page words")
    _page(root, "test", "0900", "forum", "held out test words")
    files = {
        "0001": {"split": "dev", "page_type": "article", "domain": "one.example"},
        "0002": {"split": "dev", "page_type": "collection", "domain": "two.example"},
        "0900": {"split": "test", "page_type": "forum", "domain": "held.example"},
    }
    metadata = {"name": "WCXB", "splits": {"dev": {"count": 2}, "test": {"count": 1}}}
    metadata |= {"total_domains": 3, "files": files}
    (root / "metadata.json").write_text(json.dumps(metadata))
    (root / "LICENSE").write_text("CC-BY-4.0")
    (root / "evaluate.py").write_text("# the benchmark's own scorer\n")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(root)}
    for argv in (["init", "-q"], ["add", "."], ["commit", "-qm", "v1"]):
        subprocess.run(["git", *argv], cwd=root, check=True, env=env)
    return root


def test_the_fetch_keeps_the_dev_split_alone(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    wcxb = _wcxb()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    source = _benchmark(tmp_path / "benchmark")
    into = tmp_path / "corpora" / "wcxb"
    assert wcxb.fetch(str(source), into) == 2
    written = {p.relative_to(into).as_posix() for p in into.rglob("*") if p.is_file()}
    assert written == {
        "LICENSE",
        "metadata.json",
        "dev/html/0001.html.gz",
        "dev/html/0002.html.gz",
        "dev/ground-truth/0001.json",
        "dev/ground-truth/0002.json",
    }
    everything = b"".join(p.read_bytes() for p in into.rglob("*") if p.is_file())
    assert b"0900" not in everything and b"held" not in everything
    metadata = json.loads((into / "metadata.json").read_text())
    assert set(metadata["files"]) == {"0001", "0002"}
    assert metadata["splits"] == {"dev": {"count": 2}} and "total_domains" not in metadata
    assert not list(scratch.iterdir())  # the clone (test/'s objects with it) is gone


def test_the_fetched_split_reads_with_the_benchmarks_labels_and_metric(tmp_path: Path) -> None:
    wcxb = _wcxb()
    into = tmp_path / "wcxb"
    wcxb.fetch(str(_benchmark(tmp_path / "benchmark")), into)
    pages = wcxb.load(into)
    assert [(p.key, p.kind, p.domain) for p in pages] == [
        ("0001", "article", "one.example"),
        ("0002", "collection", "two.example"),  # the benchmark's "category", as it reads it
    ]
    assert b"first dev page words" in pages[0].html
    p, r, f1 = wcxb.word_f1("First dev page, menu", "first dev page words")
    assert (p, r) == (0.75, 0.75) and f1 == 0.75
    assert wcxb.word_f1("", "") == (1.0, 1.0, 1.0) and wcxb.word_f1("x", "") == (0.0, 0.0, 0.0)
    scored = wcxb.per_type({"0001": "first dev page words"}, pages)
    assert scored["article"] == (1, 1.0, 1.0, 1.0) and scored["all"][0] == 2


def test_the_product_paths_check_names_pages_that_answered_another_pages_text() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import content  # bench/content.py
    finally:
        sys.path.remove(str(ROOT / "bench"))
    long = " ".join(f"word{n}" for n in range(60))
    other = " ".join(f"other{n}" for n in range(60))
    product = {"a": long, "b": long, "c": other, "d": other, "e": "short", "f": "short"}
    saved = {"a": long, "b": other, "c": other, "d": other, "e": "x", "f": "y"}
    # a and b read apart on the saved HTML: one read the other's page; c and d are one page
    # saved twice; e and f answered too few words to tell
    assert content.same_answers(product, saved) == [["a", "b"]]
