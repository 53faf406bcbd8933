"""Fetches the public main-content corpora bench/content.py scores beside ../shared/data, into the
git-ignored bench/corpora/ (nothing of them is committed); never the article-extraction benchmark.

Each corpus becomes bench/corpora/NAME/: pages/KEY.html (the page as saved) and truth.json
({KEY: {"text": gold main text, "url": the page's address or a stand-in}}).

- readability: mozilla/readability's test pages (test/test-pages/*/source.html), the gold text
  being the text of each expected.html (what Readability.js keeps).

Dragnet's data (dragnet-org/dragnet_data, seomoz/dragnet_data) is not fetched: its HTML is held
as Git LFS objects, which a plain clone or a mirror does not bring.

Run: .venv/bin/python bench/corpora.py [--from GIT_URL_OR_PATH]   (default: the corpus's GitHub
URL; a local clone or bare mirror of it works the same, as for a machine without the internet)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import lxml.html

HERE = Path(__file__).parent
CORPORA = HERE / "corpora"
READABILITY = "https://github.com/mozilla/readability.git"


def _clone(source: str, into: Path) -> Path:
    """A shallow checkout of source (a git URL, or a local clone or bare mirror)."""
    target = into / "checkout"
    if Path(source).exists():  # a local copy: as a file:// URL, so that --depth holds
        source = Path(source).resolve().as_uri()
    subprocess.run(
        ["git", "clone", "--quiet", "--depth", "1", source, str(target)],
        check=True,
        env={"GIT_TERMINAL_PROMPT": "0", "PATH": "/usr/bin:/bin:/usr/local/bin"},
    )
    return target


def gold_text(html: str) -> str:
    """The text of an expected page, as a reader sees it: one space between words, blocks apart."""
    root = lxml.html.fromstring(html)
    for gone in root.xpath("//script|//style"):
        gone.drop_tree()
    for block in root.iter("p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "tr"):
        block.tail = "\n" + (block.tail or "")
    return "\n".join(" ".join(line.split()) for line in root.text_content().splitlines()).strip()


def readability(source: str) -> int:
    """mozilla/readability's test pages into bench/corpora/readability/; how many."""
    out = CORPORA / "readability"
    with tempfile.TemporaryDirectory() as scratch:
        pages = _clone(source, Path(scratch)) / "test" / "test-pages"
        shutil.rmtree(out, ignore_errors=True)
        (out / "pages").mkdir(parents=True)
        truth = {}
        for folder in sorted(p for p in pages.iterdir() if (p / "expected.html").is_file()):
            text = gold_text((folder / "expected.html").read_text(encoding="utf-8"))
            if len(text.split()) < 20:  # a page Readability.js finds nothing in: no gold text
                continue
            key = folder.name
            shutil.copyfile(folder / "source.html", out / "pages" / f"{key}.html")
            truth[key] = {"text": text, "url": f"https://pages.example/{key}/"}
    (out / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False), "utf-8")
    return len(truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--from",
        dest="source",
        default=READABILITY,
        help="where mozilla/readability is cloned from: its URL (default) or a local copy",
    )
    options = parser.parse_args()
    count = readability(options.source)
    print(f"{count} pages in {CORPORA / 'readability'}", file=sys.stderr)


if __name__ == "__main__":
    main()
