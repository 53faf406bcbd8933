"""`make demo`: start the local fixture site, run batch_extract_pages on it through `dsl run`
and print the result summary. Nothing leaves this machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import _setup  # noqa: F401  (the checkout on the path)

from tests.fixtures.server import serve

PAGES = ["/article.html", "/recipe.html", "/js.html", "/latin1", "/lazy.html", "/status/404"]


def main() -> None:
    with serve() as site:
        urls = [site.url(p) for p in PAGES]
        print(
            f"fixture site at {site.base}; reading {len(urls)} pages with batch_extract_pages…",
            flush=True,
        )
        dsl = Path(sys.executable).parent / "dsl"
        done = subprocess.run(
            [
                str(dsl),
                "run",
                "batch_extract_pages",
                "--input",
                f"urls={json.dumps(urls)}",
                "--input",
                "concurrency=3",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    if not done.stdout.strip():
        print(done.stderr, file=sys.stderr)
        sys.exit(1)
    run = json.loads(done.stdout)
    result = run.get("result") or {}
    print(f"\nrun {run['runId']}: {run['status']} in {run['metrics']['elapsedMs']} ms")
    print(f"summary: {json.dumps(result.get('summary'))}")
    for item in result.get("items", []):
        mark = "ok  " if item.get("success") else "FAIL"
        detail = (
            f"{len(item.get('content') or '')} chars of Markdown"
            if item.get("success")
            else item.get("error", {}).get("message")
        )
        print(f"  {mark} {item['url']:<45} {str(item.get('title'))[:32]:<32} {detail}")
    for artifact in run.get("artifacts", []):
        print(
            f"artifact {artifact['artifactId']}: {artifact['name']} ({artifact['size']} bytes) — `dsl artifact get {artifact['artifactId']} -o {artifact['name']}`"
        )


if __name__ == "__main__":
    main()
