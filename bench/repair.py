"""How well `dsl test --live --suggest` repairs changes nobody scripted: five pages written for
the benchmark (bench/_repair_pages.py) each recorded once with `dsl record`, then, for each seed,
one to three generated changes of one page; the case run live on the changed page (drift
detected: it fails), a repair suggested (`suggest_repair`, as `dsl test --suggest` calls it) and
the repaired template run live again.

Repaired: the fix reads every value as recorded. Wrong: a fix that passes the case's
expectations and reads some value otherwise, or changes the selector of a field whose value
was still read right. Missed: a change that moved a value read and the case did not fail.
Reports the rates, the live runs per suggestion and the time per suggestion (median, spread),
by kind of change. Seeds are split: tune on 0-99 (`--seeds 0:100`), report on the others.

Run: .venv/bin/python bench/repair.py [--seeds 100:300] [--sites product,listing]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import _setup  # noqa: F401  (the checkout first on sys.path)
import anyio
from _repair_changes import as_shown, change, original
from _repair_drawn import DRAWN  # noqa: F401  (the drawn sites in SITES)
from _repair_pages import SITES
from _repair_runs import runs_mode

from taskplate.cli._common import library_for
from taskplate.dsl import check_source, load_cases
from taskplate.interpreter import RunManager, suggest_repair
from taskplate.interpreter.cases import run_once
from taskplate.interpreter.cases._expectations import broken
from taskplate.interpreter.cases._repair import recorded_elements
from tests.fixtures.static_site import static_site

DSL = str(Path(sys.executable).parent / "dsl")


def record(folder: Path, site: str, url: str) -> None:
    template = folder / f"bench_{site}.yaml"
    template.write_text(SITES[site][1], encoding="utf-8")
    env = {**os.environ, "TASKPLATE_HOME": str(folder / "home")}
    done = subprocess.run(
        [DSL, "record", template.name, "--input", f"url={url}"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"dsl record {site} failed: {done.stderr}")


async def one(
    runs: RunManager, folder: Path, pages: Path, site: str, seed: int, base: str
) -> dict[str, Any]:
    made = change(site, seed)
    (pages / f"{site}.html").write_text(made.html, encoding="utf-8")
    case = load_cases(folder / f"bench_{site}.test.yaml")[0]
    template = runs.library.add_case_file(case.template)
    assert template is not None
    recorded = case.expect.get("output", {}).get("equals")
    answer = await run_once(runs, case, template, live=True)
    row: dict[str, Any] = {"site": site, "seed": seed, "kinds": made.kinds, "said": made.said}
    row["moved"] = answer.get("result") != recorded or answer["status"] != case.expect["status"]
    row["detected"] = bool(broken(case.expect, answer))
    # the page reordered a list and the template reads it in its new order: nothing to repair
    shown = as_shown(recorded or {}, made.shown)
    row["reordered"] = shown != recorded and answer.get("result") == shown
    row["stands"] = made.stands(recorded_reads(case.recording))
    if not row["detected"]:
        return row
    started = time.monotonic()
    try:
        repair = await suggest_repair(runs, case, template)
    except Exception as exc:  # no repair: a TaskplateError; anything else is the bench's news
        row["seconds"] = time.monotonic() - started
        row["outcome"] = "none"
        row["why"] = str(exc)[:300]
        return row
    row["seconds"] = time.monotonic() - started
    row["runs"] = repair.live_runs
    patched = check_source(repair.after, str(case.template), runs.wiring.catalog).template
    assert patched is not None
    again = await run_once(runs, case, patched, live=True)
    right = again.get("result") == recorded
    still = answer.get("result") or {}
    needless = [
        s.path[-1]
        for s in repair.changes
        if s.path[0] == "fields" and isinstance(still, dict) and s.path[-1] in still
        and still.get(s.path[-1]) == (recorded or {}).get(s.path[-1])
    ]  # fmt: skip
    row["outcome"] = "repaired" if right and not needless else "wrong"
    if repair.reordered and not needless and again.get("result") == shown != recorded:
        row["outcome"] = "reordered"  # the rest repaired; the site's new order said, as shown
        row["why"] = f"the lists at {', '.join(repair.reordered)} in the page's new order"
    if row["outcome"] == "wrong":
        row["why"] = f"read {again.get('result')}; needless {needless}\n{repair.diff}"
    return row


def recorded_reads(recording: Path) -> list[str | list[Any]]:
    """What each selector read as the case was recorded (its fingerprints): a text or attribute
    value, or a list's items."""
    reads: list[str | list[Any]] = []
    for seen in (recorded_elements(recording) or {}).values():
        if seen.read is not None:
            reads.append(json.loads(seen.read) if seen.many else seen.read)
    return reads


async def main(seeds: range, sites: list[str], verbose: bool) -> None:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="taskplate-bench-repair-") as tmp:
        folder, pages = Path(tmp) / "cases", Path(tmp) / "pages"
        folder.mkdir()
        pages.mkdir()
        for site in sites:
            (pages / f"{site}.html").write_text(original(site), encoding="utf-8")
        with static_site(pages) as base:
            for site in sites:
                record(folder, site, f"{base}/{site}.html")
            lib = library_for(*(folder / f"bench_{s}.yaml" for s in sites))
            runs = RunManager(Path(tmp) / "home2", lib)
            async with runs.running():
                for seed in seeds:
                    for site in sites:
                        row = await one(runs, folder, pages, site, seed, base)
                        rows.append(row)
                        if verbose and (
                            row.get("outcome") in ("none", "wrong", "reordered")
                            or (row["moved"] and not row["detected"])
                        ):
                            stands = "" if row["stands"] else " (recorded values gone)"
                            print(f"  {site}/{seed} {row['said']}{stands}: {row.get('outcome', 'MISSED')} {row.get('why', '')}", flush=True)  # fmt: skip
                (pages / f"{site}.html").write_text(original(site), encoding="utf-8")
    summarize(rows, seeds, sites)


def summarize(rows: list[dict[str, Any]], seeds: range, sites: list[str]) -> None:
    moved = [r for r in rows if r["moved"]]
    detected = [r for r in rows if r["detected"]]
    missed = [r for r in moved if not r["detected"]]
    outcomes = Counter(r["outcome"] for r in detected)
    seconds = [r["seconds"] for r in detected]
    live = [r["runs"] for r in detected if "runs" in r]
    print(
        f"repair bench: {len(rows)} changes ({', '.join(sites)}; seeds {seeds.start}-{seeds.stop - 1}); "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"  a value read moved: {len(moved)}; drift detected: {len(detected)} (missed {len(missed)})"
    )
    if detected:
        share = {
            k: f"{100 * outcomes[k] / len(detected):.0f}%"
            for k in ("repaired", "reordered", "wrong", "none")
        }
        print(f"  repaired {outcomes['repaired']} ({share['repaired']}), wrong {outcomes['wrong']} ({share['wrong']}), none {outcomes['none']} ({share['none']})")  # fmt: skip
        print(f"  repaired but for a list the site also reordered (the repair offered, the new order said): {outcomes['reordered']} ({share['reordered']})")  # fmt: skip
        said = sum(r["reordered"] and r["outcome"] == "none" for r in detected)
        shown = outcomes["repaired"] + outcomes["reordered"] + said
        print(f"  of the none, the page reordered a list the template reads in its new order (nothing to repair, and no repair offered): {said}; as the page shows: {shown} ({100 * shown / len(detected):.0f}%)")  # fmt: skip
        stand = [r for r in detected if r["stands"]]
        kept = sum(r["outcome"] == "repaired" for r in stand)
        print(f"  drifts after which every recorded value still stands on the page as read (a list in its order: a repair can give the recorded output): {len(stand)}; repaired {kept} ({100 * kept / max(len(stand), 1):.0f}%); the other {len(detected) - len(stand)} (a value dropped, a list reordered): repaired {outcomes['repaired'] - kept}, wrong {sum(r['outcome'] == 'wrong' for r in detected if not r['stands'])}")  # fmt: skip
        print(f"  seconds per suggestion: median {statistics.median(seconds):.2f} (spread {min(seconds):.2f}-{max(seconds):.2f})")  # fmt: skip
    if live:
        print(
            f"  live runs per repair: median {statistics.median(live)} (spread {min(live)}-{max(live)})"
        )
    for site in sites:
        times = [r["seconds"] for r in detected if r["site"] == site]
        done = sum(r["outcome"] == "repaired" for r in detected if r["site"] == site)
        if times:
            print(
                f"    {site:8} detected {len(times):3}: repaired {done:3}; seconds per "
                f"suggestion median {statistics.median(times):.2f} "
                f"(spread {min(times):.2f}-{max(times):.2f})"
            )
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for r in detected:
        for kind in set(r["kinds"]):
            by_kind[kind][r["outcome"]] += 1
    for kind, counts in sorted(by_kind.items()):
        total = sum(counts.values())
        print(f"    {kind:17} detected {total:3}: repaired {counts['repaired']:3}, wrong {counts['wrong']}, none {counts['none']}")  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--seeds", default="100:140", help="FIRST:END, each seed a change of each site"
    )
    parser.add_argument("--sites", default=",".join(SITES))
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument(
        "--mode",
        choices=["suggest", "runs"],
        default="suggest",
        help="suggest: dsl test --suggest on recorded cases; runs: runs that heal (heal: apply)",
    )
    given = parser.parse_args()
    first, end = (int(x) for x in given.seeds.split(":"))
    chosen = runs_mode if given.mode == "runs" else main
    anyio.run(chosen, range(first, end), given.sites.split(","), given.verbose)
