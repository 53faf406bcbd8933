"""Fits and cross-validates `pageType` (stdlib/content/_page_type.py) on WCXB's dev split (bench/wcxb.py
fetches it; its test split is never read): a multinomial logistic regression over the page's
structure and markup features, the product's own `features`.

The folds are grouped by domain (no domain in both a fold's training and its held-out pages):
five outer folds score the model whose regularisation was chosen by five inner folds on the
outer training pages alone; the held-out accuracy and the confusion per type are the figures to
quote. `write` then fits on every dev page with the regularisation the folds chose most often
and writes the weights to stdlib/content/_page_type_weights.py.

Needs scikit-learn, for the fit only (`pip install scikit-learn`; the product reads the weights
with no library). Run: .venv/bin/python bench/page_types.py [write]   (`speed`: the CPU
a page pageType adds to a reading answer's conversion, without scikit-learn)
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import _setup
import wcxb

from taskplate.stdlib.content import _page_type as classifier
from taskplate.stdlib.content import _parse as reader

WEIGHTS = _setup.ROOT / "stdlib" / "content" / "_page_type_weights.py"
STRENGTHS = (0.01, 0.03, 0.1, 0.3)  # sklearn's C: the inverse of the regularisation
FOLDS = 5


def _features(html: bytes) -> dict[str, float]:
    """The page's features as the product reads them: from the reader's parse."""
    scripts: list[str] = []
    doc = reader.parse(html.decode("utf-8", errors="replace"), scripts)
    return {} if doc is None else classifier.features(doc, scripts)


def table(pages: list[wcxb.Page]) -> tuple[list[str], list[list[float]]]:
    """Every page's features, kept in the corpus folder until _page_type.py changes."""
    read = (Path(m.__file__ or "").read_bytes() for m in (classifier, reader))
    source = hashlib.sha256(b"".join(read)).hexdigest()[:16]
    kept = wcxb.FOLDER / f"features-{source}.json"
    if kept.exists():
        found = json.loads(kept.read_text(encoding="utf-8"))
    else:
        with concurrent.futures.ProcessPoolExecutor(2) as pool:
            found = list(pool.map(_features, [p.html for p in pages], chunksize=20))
        kept.write_text(json.dumps(found), encoding="utf-8")
    names = sorted({name for f in found for name in f})
    return names, [[f.get(name, 0.0) for name in names] for f in found]


def model(strength: float):  # type: ignore[no-untyped-def]
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(
        StandardScaler(), LogisticRegression(C=strength, max_iter=3000, class_weight="balanced")
    )


def choose(x: list[list[float]], y: list[str], groups: list[str]) -> float:
    """The strength with the best mean per-type recall over inner folds grouped by domain."""
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import GroupKFold

    def merit(strength: float) -> float:
        got = []
        for train, test in GroupKFold(FOLDS).split(x, y, groups):
            fitted = model(strength).fit([x[i] for i in train], [y[i] for i in train])
            got.append(
                balanced_accuracy_score([y[i] for i in test], fitted.predict([x[i] for i in test]))
            )
        return statistics.mean(got)

    return max(STRENGTHS, key=merit)


def cross_validate(x: list[list[float]], y: list[str], groups: list[str]) -> list[float]:
    """Held-out predictions of the outer folds; prints accuracy and confusion per type."""
    from sklearn.model_selection import GroupKFold

    predicted = [""] * len(y)
    chosen = []
    for index, (train, test) in enumerate(GroupKFold(FOLDS).split(x, y, groups)):
        xs, ys, gs = [x[i] for i in train], [y[i] for i in train], [groups[i] for i in train]
        strength = choose(xs, ys, gs)
        chosen.append(strength)
        fitted = model(strength).fit(xs, ys)
        for i, kind in zip(test, fitted.predict([x[i] for i in test]), strict=True):
            predicted[i] = str(kind)
        right = sum(predicted[i] == y[i] for i in test)
        print(
            f"  fold {index + 1}: C {strength}, held out {right}/{len(test)} = {right / len(test):.3f}"
        )
    right = sum(a == b for a, b in zip(predicted, y, strict=True))
    from sklearn.metrics import balanced_accuracy_score

    balanced = balanced_accuracy_score(y, predicted)
    print(
        f"held-out accuracy {right}/{len(y)} = {right / len(y):.3f}; mean recall per type {balanced:.3f}"
    )
    kinds = [k for k in wcxb.TYPES if k in set(y)]
    print("confusion (rows: the benchmark's label; columns: pageType held out)")
    print(f"{'':<15}" + "".join(f"{k[:6]:>7}" for k in kinds) + f"{'recall':>8}{'precision':>10}")
    for kind in kinds:
        row = Counter(p for p, t in zip(predicted, y, strict=True) if t == kind)
        said = sum(p == kind for p in predicted)
        recall, precision = row[kind] / sum(row.values()), row[kind] / said if said else 0.0
        print(
            f"{kind:<15}"
            + "".join(f"{row[k]:>7}" for k in kinds)
            + f"{recall:>8.3f}{precision:>10.3f}"
        )
    return chosen


def write(names: list[str], x: list[list[float]], y: list[str], strength: float) -> None:
    fitted = model(strength).fit(x, y)
    scaler, regression = fitted[0], fitted[1]
    rows = {
        str(k): [float(w) for w in row]
        for k, row in zip(regression.classes_, regression.coef_, strict=True)
    }
    bias = {
        str(k): float(b) for k, b in zip(regression.classes_, regression.intercept_, strict=True)
    }
    sds = [float(sd) or 1.0 for sd in scaler.scale_]
    save(names, [float(m) for m in scaler.mean_], sds, bias, rows, len(y), strength)
    print(f"wrote {WEIGHTS} (C {strength}, {len(names)} features)")


def save(
    names: list[str], means: list[float], sds: list[float], bias: dict[str, float],
    rows: dict[str, list[float]], pages: int, strength: float,
) -> None:  # fmt: skip
    """The weights as _page_type_weights.py holds them: one row of numbers a type, in the order
    of FEATURES, wrapped (ruff leaves the module as written)."""

    def wrapped(values: list[str], indent: str = "    ") -> str:
        lines, line = [], indent
        for value in values:
            if len(line) + len(value) + 2 > 100 and line.strip():
                lines.append(line.rstrip())
                line = indent
            line += value + ", "
        return "\n".join([*lines, line.rstrip()])

    def numbers(values: list[float]) -> str:
        return wrapped([f"{v:.4g}" for v in values])

    text = (
        '"""The weights of `page_type`\'s linear scores: written by bench/page_types.py (fitted on'
        f" WCXB's dev\nsplit, {pages} pages, C {strength}; cross-validated by domain); not edited by"
        ' hand.\n"""\n\nfrom __future__ import annotations\n\n# fmt: off\n'
        f"FEATURES = (\n{wrapped([repr(n) for n in names])}\n)\n"
        f"MEANS = (\n{numbers(means)}\n)\nSDS = (\n{numbers(sds)}\n)\n"
        f"BIAS = {{{', '.join(f'{k!r}: {b:.4g}' for k, b in bias.items())}}}\n"
        "WEIGHTS = {\n"
        + "".join(f"    {k!r}: (\n{numbers(row)}\n    ),\n" for k, row in rows.items())
        + "}\n# fmt: on\n"
    )
    WEIGHTS.write_text(text, encoding="utf-8")


def speed(pages: list[wcxb.Page], rounds: int = 5, every: int = 30) -> None:
    """CPU ms a page of the conversion each reading answer runs (get_page_content's
    `render_typed`, Markdown of the main content and `pageType` from one parse) against the
    Markdown alone and `page_type` alone, on every
    `every`th dev page: interleaved page by page in a rotating order, the median of rounds and
    its spread; CPU time of this process, the machine being shared."""
    from taskplate.stdlib.content import to_markdown
    from taskplate.stdlib.reading.get_page_content import render_typed

    sample = [(p.html.decode("utf-8", errors="replace"), p.url) for p in pages[::every]]
    ways = {
        "markdown (to_markdown)": lambda h, u: to_markdown(h, u, True),
        "markdown + pageType (render_typed)": lambda h, u: render_typed(h, u, "markdown", True),
        "pageType alone": lambda h, u: classifier.page_type(h),
    }
    names, times = list(ways), {name: [] for name in ways}  # type: ignore[var-annotated]
    to_markdown(*sample[0], True)  # stopwords and models loaded, as in a warm worker
    for _ in range(rounds):
        spent = dict.fromkeys(names, 0.0)
        for index, (html, url) in enumerate(sample):
            for name in names[index % 3 :] + names[: index % 3]:
                start = time.process_time()
                ways[name](html, url)
                spent[name] += time.process_time() - start
        for name in names:
            times[name].append(spent[name] / len(sample) * 1000)
        shown = ", ".join(f"{name} {t[-1]:.1f}" for name, t in times.items())
        print(f"  round {len(times[names[0]])}: {shown}", flush=True)
    print(f"CPU ms a page, {len(sample)} dev pages, median of {rounds} interleaved rounds (min-max);"
          f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    for name, t in times.items():
        print(f"  {name:<36} {statistics.median(t):7.1f}  ({min(t):.1f}-{max(t):.1f})")
    ratio = [a / b for a, b in zip(times[names[1]], times[names[0]], strict=True)]
    print(
        f"  with / without pageType: {statistics.median(ratio):.3f} (rounds {min(ratio):.3f}-{max(ratio):.3f})"
    )


def main() -> None:
    pages = wcxb.load()
    if not pages:
        sys.exit(f"no WCXB pages in {wcxb.FOLDER}: run bench/wcxb.py first")
    if sys.argv[1:] == ["speed"]:
        speed(pages)
        return
    names, x = table(pages)
    y, groups = [p.kind for p in pages], [p.domain for p in pages]
    print(
        f"{len(pages)} pages, {len(set(groups))} domains, {len(names)} features; {dict(Counter(y))}"
    )
    chosen = cross_validate(x, y, groups)
    if sys.argv[1:] == ["write"]:
        write(names, x, y, Counter(chosen).most_common(1)[0][0])


if __name__ == "__main__":
    main()
