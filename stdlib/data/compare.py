"""The `compare` action: which fields agree across items and how the others differ.

Data only: runs without a browser.
"""

import json
from typing import Any

from taskplate.contract import Level
from taskplate.dsl import ActionSpec

from .._schemas import args, result


def _same(values: list[Any]) -> bool:
    marks = {json.dumps(v, sort_keys=True, ensure_ascii=False) for v in values}
    return len(marks) <= 1


async def run(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    items = [i if isinstance(i, dict) else {} for i in args["items"]]
    key, within = args.get("key"), args.get("within")
    values_of: list[dict[str, Any]] = [
        v if isinstance(v, dict) else {} for v in (i.get(within) if within else i for i in items)
    ]
    same, differences = [], []
    for field in args["fields"]:
        values = [v.get(field) for v in values_of]
        if _same(values):
            same.append(field)
            continue
        differences.append(
            {
                "field": field,
                "values": [
                    {"key": item.get(key) if key else index, "value": value}
                    for index, (item, value) in enumerate(zip(items, values, strict=True))
                ],
            }
        )
    return {"same": same, "differences": differences}


ACTION = ActionSpec(
    name="compare",
    level=Level.L0,
    summary="Compare fields across items: the fields that agree, and per-item values of the rest.",
    args_schema=args(
        {
            "items": {"type": "array", "items": {"type": "object"}},
            "fields": {"type": "array", "minItems": 1, "items": {"type": "string"}},
            "key": {"type": "string", "description": "The field that names each item (e.g. url)."},
            "within": {
                "type": "string",
                "description": "The map inside each item that holds the fields.",
            },
        },
        ["items", "fields"],
    ),
    result_schema=result(
        {
            "same": {"type": "array", "items": {"type": "string"}},
            "differences": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"field": {"type": "string"}, "values": {"type": "array"}},
                },
            },
        }
    ),
    needs_browser=False,
    pure=True,
    run=run,
)
