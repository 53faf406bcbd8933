"""The repair benchmark's runs mode (#56 item 6): templates without test cases, `heal: apply`;
each site's fingerprints learned from one succeeded run of its original page; then for each
seed the changed page run twice: with healing off (does the change move a value?) and as the
template says (apply), the fingerprints reset to the learned ones before each.

Right: the run finishes with every value as the original page gave. Wrong: a value the healing
changed (from the same page's run without it) to one the original did not have (a list: an item
it did not hold). Partly: healing changed a value towards the original (a look-alike taken out
of a list) and another change still keeps it from it (an item unwrapped out of the list). Unseen: a value moved and no selector lost its element (a look-alike
now first): the run cannot tell, nothing is healed. Healing's cost: the healed run's time less
the same page's run with healing off (median).
"""

from __future__ import annotations

import os
import statistics
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import anyio
from _repair_changes import as_shown, change, original
from _repair_pages import SITES

from taskplate.interpreter import RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY
from tests.fixtures.static_site import static_site


def healing(site: str) -> str:
    """The site's template, without a case, choosing heal: apply."""
    text = SITES[site][1]
    return text.replace("version: 1.0.0\n", "version: 1.0.0\nheal: apply\n", 1)


async def run(runs: RunManager, site: str, url: str, heal: str | None = None) -> dict[str, Any]:
    options = {"heal": heal} if heal else {}
    run_id = await runs.submit(f"bench_{site}", {"url": url}, options=options)
    with anyio.fail_after(120):
        await runs.wait(run_id)
    return await runs.describe(run_id)


async def one(
    runs: RunManager, pages: Path, base: str, site: str, seed: int, learned: dict[str, Any]
) -> dict[str, Any]:
    made = change(site, seed)
    (pages / f"{site}.html").write_text(made.html, encoding="utf-8")
    url = f"{base}/{site}.html"
    template = f"bench_{site}"
    plain = await run(runs, site, url, heal="off")
    await runs.store.keep_fingerprints(template, "1.0.0", learned["seen"])
    healed = await run(runs, site, url)
    await runs.store.keep_fingerprints(template, "1.0.0", learned["seen"])
    right = healed["status"] == "succeeded" and healed.get("result") == learned["result"]
    row: dict[str, Any] = {"site": site, "seed": seed, "kinds": made.kinds, "said": made.said}
    shown = as_shown(learned["result"] or {}, made.shown)
    row["shown"] = healed["status"] == "succeeded" and healed.get("result") == shown
    row["moved"] = plain["status"] != "succeeded" or plain.get("result") != learned["result"]
    row["healed"] = bool(healed.get("repairs"))
    before, was = learned["result"] or {}, plain.get("result") or {}
    now = healed.get("result") or {}
    row["lost"] = plain["status"] != "succeeded" or any(
        was.get(k) in (None, []) and v not in (None, []) for k, v in before.items()
    )
    # a value the healing changed (from the run without it) to one the original did not have
    # (a list: an item it did not hold); changed, yet not as the original: partly
    changed = [k for k in before if now.get(k) != was.get(k) and now.get(k) != before[k]]
    wrong = [k for k in changed if not _within(now.get(k), before[k])]
    row["outcome"] = (
        "right" if right else "wrong" if wrong else "partly" if changed
        else "unseen" if healed["status"] == "succeeded" else "failed"
    )  # fmt: skip
    row["warned"] = bool(healed.get("warnings"))  # what it could not heal, said
    if row["healed"]:
        row["added_s"] = (healed["metrics"]["elapsedMs"] - plain["metrics"]["elapsedMs"]) / 1000
    if row["outcome"] != "right":
        row["why"] = (
            f"{healed.get('result')} vs {learned['result']}; {healed.get('warnings', [])}; "
            f"{healed.get('error') or ''} {healed.get('repairDiff', '')}"
        )
    return row


def _within(value: Any, original: Any) -> bool:
    """Whether a list read holds only items the original held (in their order)."""
    if not isinstance(value, list) or not isinstance(original, list):
        return False
    items = iter(original)
    return all(any(v == o for o in items) for v in value)


async def runs_mode(seeds: range, sites: list[str], verbose: bool) -> None:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="taskplate-bench-heal-") as tmp:
        folder, pages = Path(tmp) / "templates", Path(tmp) / "pages"
        folder.mkdir()
        pages.mkdir()
        for site in sites:
            (folder / f"bench_{site}.yaml").write_text(healing(site), encoding="utf-8")
        runs = RunManager(Path(tmp) / "home", TemplateLibrary(REGISTRY).load([folder]))
        with static_site(pages) as base:
            async with runs.running():
                learned: dict[str, dict[str, Any]] = {}
                for site in sites:
                    (pages / f"{site}.html").write_text(original(site), encoding="utf-8")
                    first = await run(runs, site, f"{base}/{site}.html")
                    assert first["status"] == "succeeded", first
                    seen = await runs.store.fingerprints(f"bench_{site}", "1.0.0")
                    learned[site] = {"result": first["result"], "seen": seen}
                for seed in seeds:
                    for site in sites:
                        row = await one(runs, pages, base, site, seed, learned[site])
                        rows.append(row)
                        if verbose and row["outcome"] != "right":
                            print(f"  {site}/{seed} {row['said']}: {row['outcome']}{' (warned)' if row['warned'] else ''} {row.get('why', '')[:4000]}", flush=True)  # fmt: skip
    summarize(rows, seeds, sites)


def summarize(rows: list[dict[str, Any]], seeds: range, sites: list[str]) -> None:
    outcomes = Counter(r["outcome"] for r in rows)
    moved = [r for r in rows if r["moved"]]
    moved_right = sum(r["outcome"] == "right" for r in moved)
    added = [r["added_s"] for r in rows if "added_s" in r]
    print(
        f"runs that heal: {len(rows)} changes ({', '.join(sites)}; seeds {seeds.start}-{seeds.stop - 1}); "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    share = {
        k: f"{100 * outcomes[k] / len(rows):.1f}%"
        for k in ("right", "wrong", "partly", "unseen", "failed")
    }
    print(f"  every value as before: {outcomes['right']} ({share['right']}); wrong after healing {outcomes['wrong']}; partly healed {outcomes['partly']}; unseen drift {outcomes['unseen']} ({share['unseen']}); failed {outcomes['failed']} ({share['failed']})")  # fmt: skip
    shown = sum(r["shown"] for r in rows)
    print(f"  every value as the changed page shows it (a list the site reordered, in its new order): {shown} ({100 * shown / len(rows):.1f}%)")  # fmt: skip
    unsaid = [r for r in rows if r["outcome"] in ("unseen", "partly")]
    print(f"  a run that succeeded with a value other than before: {len(unsaid)}; its answer warned: {sum(r['warned'] for r in unsaid)}")  # fmt: skip
    print(f"  a value moved without healing: {len(moved)}; of those, every value as before with healing: {moved_right} ({100 * moved_right / max(1, len(moved)):.1f}%)")  # fmt: skip
    lost = [r for r in rows if r["lost"]]
    lost_right = sum(r["outcome"] == "right" for r in lost)
    print(f"  a selector lost its element (a field empty, or the run failed, without healing): {len(lost)}; every value as before with healing: {lost_right} ({100 * lost_right / max(1, len(lost)):.1f}%)")  # fmt: skip
    print(f"  runs healed: {sum(r['healed'] for r in rows)}")
    if added:
        print(f"  healing adds to a run: median {statistics.median(added):.2f} s (spread {min(added):.2f}-{max(added):.2f})")  # fmt: skip
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for r in moved:
        for kind in set(r["kinds"]):
            by_kind[kind][r["outcome"]] += 1
    for kind, counts in sorted(by_kind.items()):
        print(f"    {kind:17} moved {sum(counts.values()):3}: right {counts['right']:3}, wrong {counts['wrong']}, partly {counts['partly']}, unseen {counts['unseen']}, failed {counts['failed']}")  # fmt: skip
    for site in sites:
        mine = [r for r in rows if r["site"] == site]
        print(f"    {site:13} {len(mine):3} changes: right {sum(r['outcome'] == 'right' for r in mine):3}")  # fmt: skip
