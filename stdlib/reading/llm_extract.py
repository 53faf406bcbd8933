"""The `llm_extract` action: data shaped by a JSON Schema, read from the page by a language model.

Declaration and implementation; the model is asked through the run's `Sampler` (the MCP
client's sampling, or the configured endpoint, chosen when the run starts), never called here.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from taskplate.contract import ErrorCode, Level, TaskplateError, valid_text
from taskplate.dsl import ActionSpec, listed, validator_for, violations

from .._sampling import NO_MODEL, Message, SamplingRequest, masked
from .._schemas import BOOLEAN, INTEGER, args, result
from . import get_page_content, snapshot

if TYPE_CHECKING:
    import jsonschema

    from .._context import ActionContext

SYSTEM = (
    "You extract structured data from a web page for a program. Follow the instruction, "
    "using only what the page says. Answer with one JSON value that matches the JSON Schema "
    "given, and nothing else: no explanation, no code fence."
)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
DEFAULT_MAX_INPUT_CHARS = 50_000


def parsed(answer: str) -> Any:
    """The JSON in a model's answer: the whole text, or the first ```json fenced block."""
    text = answer.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError as plain:
        fenced = _FENCE.search(text)
        if fenced is None:
            raise plain from None
        return json.loads(fenced.group(1))


def _validator(schema: Any) -> jsonschema.Draft202012Validator:
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"schema is not a valid JSON Schema: {exc.message}",
            "Fix the schema (JSON Schema 2020-12); `dsl validate` checks a schema written out.",
        ) from None
    return validator_for(schema)


async def _page_text(ctx: ActionContext, source: str) -> tuple[str, str]:
    """The page's URL and its main content as Markdown, or its snapshot as JSON lines."""
    if source == "snapshot":
        taken = await snapshot.run(ctx, {"maxBytes": 1_000_000})
        lines = [json.dumps(e, ensure_ascii=False) for e in taken["elements"]]
        return taken["url"], valid_text(f"# {taken['title']}\n" + "\n".join(lines))
    read = await get_page_content.run(ctx, {"format": "markdown"})
    tab = await ctx.tab()
    # The main content leaves out a first heading equal to the title: the model reads it here.
    title = f"# {read['title']}\n\n" if read.get("title") else ""
    return tab.page.url, valid_text(title + str(read["content"]))


def _problems(
    validator: jsonschema.Draft202012Validator, answer: str
) -> tuple[Any, list[dict[str, str]]]:
    try:
        data = parsed(answer)
    except json.JSONDecodeError as exc:
        return None, [{"pointer": "/", "message": f"not JSON: {exc.msg} at character {exc.pos}"}]
    return data, violations(validator, data)


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    schema = args["schema"]
    validator = _validator(schema)
    source = args.get("source", "content")
    limit = args.get("maxInputChars", DEFAULT_MAX_INPUT_CHARS)
    url, text = await _page_text(ctx, source)
    truncated = len(text) > limit
    text = text[:limit]
    secrets = [*ctx.secrets, *(json.dumps(s)[1:-1] for s in ctx.secrets if s)]
    question = (
        f"Instruction: {args['instruction']}\n\n"
        f"JSON Schema of the answer:\n{json.dumps(schema, ensure_ascii=False)}\n\n"
        f"The page {url} ({'main content as Markdown' if source == 'content' else 'interactive elements'}"
        f"{', cut short' if truncated else ''}):\n<page>\n{text}\n</page>"
    )
    messages = [Message("user", masked(question, secrets))]
    sampler = ctx.sampler if ctx.sampler is not None else NO_MODEL
    problems: list[dict[str, str]] = []
    answer = ""
    for attempt in (1, 2):
        sampled = await sampler.sample(
            SamplingRequest(masked(SYSTEM, secrets), tuple(messages), args.get("maxTokens", 4096))
        )
        answer = sampled.text
        data, problems = _problems(validator, answer)
        if not problems:
            # `model` first: the step row's result preview (200 characters) always shows it
            out: dict[str, Any] = {
                "model": sampled.who(),
                "data": data,
                "attempts": attempt,
                "truncated": truncated,
            }
            if truncated:
                out["warnings"] = [f"the page was cut at {limit} characters"]
            return out
        messages += [
            Message("assistant", masked(answer, secrets)),
            Message(
                "user",
                "Your answer does not match the JSON Schema: "
                + listed(problems, most=10)
                + ". Answer again with only the corrected JSON.",
            ),
        ]
    raise TaskplateError(
        ErrorCode.LLM_OUTPUT_INVALID,
        f"the model's answer did not match the schema after a second try: {listed(problems)}",
        "Make the instruction clearer or the schema looser, or raise maxInputChars if the page "
        "was cut; details.answer holds the last answer.",
        {
            "violations": problems,
            "answer": masked(answer, secrets)[:2000],
            "model": sampled.who(),
        },
    )


def result_schema_for(args_given: dict[str, Any]) -> dict[str, Any]:
    """The result with `data` typed by the schema, when the schema is written out."""
    schema = args_given.get("schema")
    if not isinstance(schema, dict):
        return RESULT
    return result({"model": MODEL, "data": schema, "attempts": INTEGER, "truncated": BOOLEAN})


MODEL = {
    "type": "object",
    "description": "Which model answered: via `client` (the MCP client sampled; name as it "
    "said) or `endpoint` (the [llm] endpoint of taskplate.toml; its model).",
    "required": ["via", "name"],
    "properties": {"via": {"enum": ["client", "endpoint"]}, "name": {"type": "string"}},
    "additionalProperties": False,
}
RESULT = result({"model": MODEL, "data": {}, "attempts": INTEGER, "truncated": BOOLEAN})

ACTION = ActionSpec(
    name="llm_extract",
    level=Level.L0,
    summary="Data matching a JSON Schema, read from the page's main content (or snapshot) by "
    "a language model: the client's (MCP sampling), or the [llm] endpoint of taskplate.toml "
    "when the client cannot sample; asked once more when the answer does not match.",
    args_schema=args(
        {
            "instruction": {
                "type": "string",
                "minLength": 1,
                "description": "What to extract, in words.",
            },
            "schema": {
                "type": "object",
                "x-json-schema": True,
                "description": "A JSON Schema (2020-12) the answer must match; types `data`.",
            },
            "source": {
                "enum": ["content", "snapshot"],
                "default": "content",
                "description": "content: the main content as Markdown; snapshot: the "
                "interactive elements.",
            },
            "maxInputChars": {
                "type": "integer",
                "minimum": 100,
                "maximum": 2_000_000,
                "default": DEFAULT_MAX_INPUT_CHARS,
                "description": "Cut the page text sent to the model at this many characters.",
            },
            "maxTokens": {
                "type": "integer",
                "minimum": 16,
                "maximum": 100_000,
                "default": 4096,
                "description": "The most tokens the model may answer with.",
            },
        },
        ["instruction", "schema"],
    ),
    result_schema=RESULT,
    pure=True,
    result_schema_for=result_schema_for,
    run=run,
)
