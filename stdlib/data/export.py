"""The `export` action: store data (a step's items, a comparison) as a JSON or CSV artifact.

Data only: needs the run's artifact store, not a browser.
"""

from __future__ import annotations

import json
from typing import Any

from taskplate.contract import Level
from taskplate.dsl import ActionSpec

from .._schemas import INTEGER, STRING, args, result

MIME = {"json": "application/json", "csv": "text/csv"}


def encode(data: Any, fmt: str) -> bytes:
    """JSON as is; CSV from a list of maps, one column per key (first seen order)."""
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2).encode()
    rows = [
        r if isinstance(r, dict) else {"value": r}
        for r in (data if isinstance(data, list) else [data])
    ]
    import csv  # here, not for `dsl validate`
    import io

    columns = list(dict.fromkeys(k for row in rows for k in row))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {
                k: v if isinstance(v, str | int | float) or v is None else json.dumps(v)
                for k, v in row.items()
            }
        )
    return out.getvalue().encode()


async def run(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    fmt = args.get("format", "json")
    body = encode(args["data"], fmt)
    artifact_id = await ctx.save_artifact(args["name"], body, MIME[fmt])
    return {"artifactId": artifact_id, "name": args["name"], "size": len(body)}


ACTION = ActionSpec(
    name="export",
    level=Level.L0,
    summary="Store data as a JSON or CSV artifact of the run; answers its artifact id.",
    args_schema=args(
        {
            "name": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,100}$"},
            "format": {"enum": ["json", "csv"], "default": "json"},
            "data": {},
        },
        ["name", "data"],
    ),
    result_schema=result({"artifactId": STRING, "name": STRING, "size": INTEGER}),
    needs_browser=False,
    run=run,
)
