"""Fetches the development split of WCXB (Murrough-Foley/web-content-extraction-benchmark,
CC-BY-4.0: 1,497 pages of seven kinds) into the git-ignored bench/corpora/wcxb/, and reads it.

Only `dev/` is kept: the benchmark's `test/` split is this project's held-out test set, never
read, scored or tuned on. The clone is sparse (dev/, metadata.json, LICENSE, README.md) and
without blobs where the source allows it (GitHub does: test/'s pages are never downloaded; a local
copy ignores the filter, with a warning, and its test/ blobs stay packed in the scratch clone,
never checked out); the clone is deleted once dev/ is copied out, and metadata.json keeps only the dev entries (and
no count of the test split). What is written, bench/corpora/wcxb/:

- dev/html/ID.html.gz, the page as saved; dev/ground-truth/ID.json, its labels: the reference
  main text `ground_truth.main_content` and the page type `_internal.page_type.primary`;
- metadata.json ({"files": {ID: {"split": "dev", "page_type", "domain", ...}}, ...}), LICENSE.

bench/content.py scores it (its `wcxb` modes) with the benchmark's metric, `word_f1` below (the
benchmark's evaluate.py: word-level P/R/F1 of lowercase `\\w+` tokens, macro mean over pages).

Run: .venv/bin/python bench/wcxb.py [--from GIT_URL_OR_PATH] [--into FOLDER]   (default: the
GitHub URL, or TASKPLATE_WCXB_FROM; a local clone or bare mirror works the same, as for a
machine without the internet; --into: bench/corpora/wcxb)
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
FOLDER = HERE / "corpora" / "wcxb"
SOURCE = "https://github.com/Murrough-Foley/web-content-extraction-benchmark.git"
KEPT = ("/dev/", "/metadata.json", "/LICENSE", "/README.md")  # never /test/
TYPES = ("article", "forum", "product", "collection", "listing", "documentation", "service")


def _git(*argv: str, cwd: Path | None = None) -> None:
    subprocess.run(
        ["git", *argv],
        check=True,
        cwd=cwd,
        env={"GIT_TERMINAL_PROMPT": "0", "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )


def fetch(source: str, into: Path) -> int:
    """The dev split of the benchmark at source into `into` (replaced); how many pages."""
    if Path(source).exists():  # a local copy: as a file:// URL, so that --depth holds
        source = Path(source).resolve().as_uri()
    with tempfile.TemporaryDirectory() as scratch:
        checkout = Path(scratch) / "checkout"
        _git("clone", "--quiet", "--depth", "1", "--filter=blob:none", "--no-checkout",
             source, str(checkout))  # fmt: skip
        _git("sparse-checkout", "set", "--no-cone", *KEPT, cwd=checkout)
        _git("checkout", "--quiet", cwd=checkout)
        present = {p.name for p in checkout.iterdir()} - {".git"}
        if "test" in present or "dev" not in present:
            sys.exit(f"the sparse checkout of {source} holds {sorted(present)}: not dev/ alone")
        metadata = json.loads((checkout / "metadata.json").read_text(encoding="utf-8"))
        shutil.rmtree(into, ignore_errors=True)
        into.mkdir(parents=True)
        shutil.copytree(checkout / "dev", into / "dev")
        for name in ("LICENSE", "README.md"):
            if (checkout / name).is_file():
                shutil.copyfile(checkout / name, into / name)
    dev = {k: v for k, v in metadata.get("files", {}).items() if v.get("split") == "dev"}
    kept = {k: v for k, v in metadata.items() if k not in ("files", "splits", "total_domains")}
    kept |= {"splits": {"dev": {"count": len(dev)}}, "files": dev}
    (into / "metadata.json").write_text(json.dumps(kept, indent=1), encoding="utf-8")
    return len(list((into / "dev" / "ground-truth").glob("*.json")))


# --- Reading it -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    key: str  # the benchmark's file id
    url: str
    kind: str  # its page type, one of TYPES
    domain: str
    text: str  # the reference main content
    html: bytes


def page_type(label: dict[str, object]) -> str:
    """The benchmark's own reading of a ground-truth file's type (evaluate.py get_page_type)."""
    found = (label.get("_internal") or {}).get("page_type", {})  # type: ignore[union-attr]
    kind = found.get("primary", "article") if isinstance(found, dict) else found
    return "collection" if kind == "category" else str(kind or "article")


def load(folder: Path = FOLDER) -> list[Page]:
    """Every page of the dev split fetched into folder (none if it was not fetched)."""
    root = folder / "dev"
    if not (root / "ground-truth").is_dir():
        return []
    meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8")).get("files", {})
    pages = []
    for label_file in sorted((root / "ground-truth").glob("*.json")):
        key = label_file.stem
        label = json.loads(label_file.read_text(encoding="utf-8"))
        truth = label.get("ground_truth")
        if not isinstance(truth, dict):
            continue
        url = label.get("url") or f"https://pages.example/{key}/"
        domain = (meta.get(key) or {}).get("domain") or re.sub(r"^\w+://([^/]+).*", r"\1", url)
        html = gzip.decompress((root / "html" / f"{key}.html.gz").read_bytes())
        text = truth.get("main_content") or ""
        pages.append(Page(key, url, page_type(label), domain, text, html))
    return pages


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", (text or "").lower())


def word_f1(predicted: str, reference: str) -> tuple[float, float, float]:
    """(precision, recall, F1) of one page: the benchmark's metric (evaluate.py word_f1)."""
    got, want = tokens(predicted), tokens(reference)
    if not want:
        return (1.0, 1.0, 1.0) if not got else (0.0, 0.0, 0.0)
    if not got:
        return (0.0, 0.0, 0.0)
    overlap = sum((Counter(got) & Counter(want)).values())
    p, r = overlap / len(got), overlap / len(want)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def per_type(
    predicted: dict[str, str], pages: list[Page]
) -> dict[str, tuple[int, float, float, float]]:
    """{type or "all": (pages, mean P, mean R, mean F1)}: the benchmark's macro means."""
    groups: dict[str, list[tuple[float, float, float]]] = {"all": []}
    for page in pages:
        scored = word_f1(predicted.get(page.key, ""), page.text)
        groups["all"].append(scored)
        groups.setdefault(page.kind, []).append(scored)
    return {
        kind: (len(s), *(sum(x[i] for x in s) / len(s) for i in range(3)))  # type: ignore[misc]
        for kind, s in groups.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--from",
        dest="source",
        default=os.environ.get("TASKPLATE_WCXB_FROM", SOURCE),
        help="where the benchmark is cloned from: its URL (default) or a local copy",
    )
    parser.add_argument("--into", type=Path, default=FOLDER, help="the folder written (replaced)")
    options = parser.parse_args()
    count = fetch(options.source, options.into)
    print(f"{count} pages of the dev split in {options.into}", file=sys.stderr)


if __name__ == "__main__":
    main()
