"""Benchmark of static checking: templates validated per second (warm, in process) on the
shipped templates, and the cold start of `dsl validate login_keep_session.yaml` as a whole new
process, beside a bare `python -c pass` measured in the same rounds (interleaved), and what that
start imports: `-X importtime`'s heaviest modules, and FAIL when a module a check must not need
loads (a browser, the MCP SDK, Markdown conversion, an HTTP client; tests/cli/test_validate.py
runs the same audit).

Bytecode is compiled first (as pip does on install): with PYTHONDONTWRITEBYTECODE set, every
start would otherwise compile the sources again.

Run: .venv/bin/python bench/validate.py [rounds] [--against CHECKOUT]   (CHECKOUT: another
     taskplate checkout, measured in the same interleaved rounds, e.g. the code before a change)
     .venv/bin/python bench/validate.py imports   (the import audit alone; exit 1 on FAIL)
"""

from __future__ import annotations

import compileall
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from taskplate.dsl import check_source  # noqa: E402
from taskplate.stdlib import REGISTRY  # noqa: E402

TEMPLATES = sorted(
    p for p in (ROOT / "templates").glob("*.yaml") if not p.name.endswith(".test.yaml")
)
TARGET_MS = 2.0
COLD_TARGET_MS = 200.0
CHECKED = ROOT / "templates" / "login_keep_session.yaml"
# What `dsl validate` must never import: a module, or a package with everything under it.
FORBIDDEN = (
    "playwright",
    "mcp",
    "pygls",
    "trafilatura",
    "justext",
    "lxml",
    "readability",
    "markdown_it",
    "httpx",
    "httpcore",
    "jsonschema",  # only to explain a problem; the shipped templates have none
    "regex",  # lark's optional import, and the expression functions' at evaluation
    "multiprocessing",
    "concurrent.futures",
    "dataclasses",  # compiles five methods a class at import: the cold path's classes are records
    "taskplate.interpreter",
    "taskplate.server",
    "taskplate.providers._client",
    "taskplate.stdlib.content._conversion",
    "taskplate.stdlib.content._selection",
    "taskplate.stdlib.content._blocks",
    "taskplate.stdlib.content._voters",
    "taskplate.stdlib.content._pruning",
    "taskplate.stdlib.content._boilerplate",
    "taskplate.stdlib.content._markdown",
    "taskplate.stdlib.web._client",
)


def warm(rounds: int = 300) -> dict[str, float]:
    """Median milliseconds per check of each template, after one warm-up check."""
    medians = {}
    for path in TEMPLATES:
        text = path.read_text(encoding="utf-8")
        check_source(text, path.name, REGISTRY)
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            check_source(text, path.name, REGISTRY)
            times.append((time.perf_counter() - start) * 1000)
        medians[path.name] = statistics.median(times)
    return medians


def cold(
    rounds: int, against: Path | None = None
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall and CPU milliseconds of `dsl validate FILE`, of `python -c pass` and, given another
    checkout, of its `dsl validate FILE`: one of each per round, in a rotating order. CPU time
    (user + system) varies less than wall time on a machine that others load."""
    checkouts = [ROOT] if against is None else [ROOT, against]
    for checkout in checkouts:
        for folder in ("contract", "dsl", "stdlib", "cli", "browser", "providers"):
            if (checkout / folder).is_dir():
                compileall.compile_dir(checkout / folder, quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    dsl = str(Path(sys.executable).parent / "dsl")
    commands = {"dsl validate": ([dsl, "validate", str(CHECKED)], {**env, "PYTHONPATH": str(ROOT)})}
    commands["python -c pass"] = ([sys.executable, "-c", "pass"], env)
    if against is not None:
        commands[f"{against.name} validate"] = (
            [dsl, "validate", str(CHECKED)],
            {**env, "PYTHONPATH": str(against)},
        )

    def once(name: str) -> tuple[float, float]:
        cmd, cmd_env = commands[name]
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=cmd_env)
        wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return wall * 1000, cpu * 1000

    for name in commands:
        once(name)  # the first run may fill the OS file cache and the parser's cache
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    for i in range(rounds):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            wall_ms, cpu_ms = once(name)
            times[name].append(wall_ms)
            cpu[name].append(cpu_ms)
    return times, cpu


def imported(env: dict[str, str] | None = None) -> dict[str, int]:
    """Every module `dsl validate` leaves imported, with its cumulative microseconds as
    -X importtime reports them (which also lists imports that were tried and failed). A first
    run fills the parsed-expression cache, as a user's first validate does: only a cache miss
    loads lark (and, through it, dataclasses)."""
    code = (
        "import atexit, sys; atexit.register(lambda: print('MODULES', *sys.modules)); "
        f"sys.argv = ['dsl', 'validate', {str(CHECKED)!r}]; "
        "from taskplate.cli.main import main; main()"
    )
    env = env or {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, cwd=ROOT, check=True)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = next(line for line in done.stdout.splitlines() if line.startswith("MODULES "))
    found = re.findall(r"^import time:\s+\d+ \|\s+(\d+) \| *(\S+)$", done.stderr, re.M)
    timed = {name: int(cumulative) for cumulative, name in found}
    return {name: timed.get(name, 0) for name in loaded.split()[1:]}


def forbidden(modules: dict[str, int]) -> list[str]:
    return sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))


def audit(top: int = 15) -> bool:
    """Print the heaviest imports of `dsl validate` and whether a forbidden one loaded."""
    modules = imported()
    print(f"`dsl validate {CHECKED.name}` imports {len(modules)} modules; heaviest (cumulative):")
    for name, us in sorted(modules.items(), key=lambda m: -m[1])[:top]:
        print(f"  {us / 1000:7.1f} ms  {name}")
    bad = forbidden(modules)
    print(f"forbidden imports: {', '.join(bad) if bad else 'none'}: {'FAIL' if bad else 'ok'}")
    return not bad


def _spread(times: list[float]) -> str:
    return f"median {statistics.median(times):.0f} ms (rounds {min(times):.0f}–{max(times):.0f})"


def main() -> None:
    if sys.argv[1:] == ["imports"]:
        sys.exit(0 if audit() else 1)
    medians = warm()
    print("warm check, median per template:")
    for name, ms in medians.items():
        print(f"  {name:<28} {ms:7.3f} ms  ({1000 / ms:8.0f} templates/s)")
    worst = max(medians.values())
    overall = len(medians) / sum(medians.values()) * 1000
    print(
        f"  all shipped templates: {overall:.0f} templates/s; slowest {worst:.3f} ms "
        f"(target < {TARGET_MS} ms: {'met' if worst < TARGET_MS else 'MISSED'})"
    )
    args = sys.argv[1:]
    against = Path(args.pop(args.index("--against") + 1)).resolve() if "--against" in args else None
    rounds = int(next((a for a in args if a.isdigit()), 9))
    times, cpu = cold(rounds, against)
    checks, bare = times["dsl validate"], times["python -c pass"]
    command_ms = statistics.median(checks)
    print(f"cold `dsl validate {CHECKED.name}`, {rounds} interleaved rounds:")
    for kind, table in (("wall", times), ("CPU", cpu)):
        for name, measured in table.items():
            over = statistics.median(measured) - statistics.median(table["python -c pass"])
            extra = "" if name == "python -c pass" else f"; {over:+.0f} ms over python -c pass"
            print(f"  {kind:<4} {name:<22} {_spread(measured)}{extra}")
    print(
        f"  ratio {command_ms / statistics.median(bare):.1f}x; target < {COLD_TARGET_MS:.0f} ms: "
        f"{'met' if command_ms < COLD_TARGET_MS else 'MISSED'}"
    )
    if not audit():
        sys.exit(1)


if __name__ == "__main__":
    main()
