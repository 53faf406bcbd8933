"""Provider tools as actions `mcp.<provider>.<tool>`: the spec made of each listed tool and
the call that runs it, its answer turned into a step result (or a step failure).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import ActionSpec

from ._config import ProviderConfig
from ._lock import ServerListing, tool_spec

if TYPE_CHECKING:  # the live client (anyio, the SDK) loads only when providers start
    from ._client import Providers


def _text(result: Any) -> str:
    parts = []
    for block in getattr(result, "content", None) or []:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            parts.append(f"[{getattr(block, 'type', 'content')}]")
    return "\n".join(parts)


def step_result(provider: str, tool: str, result: Any, typed: bool) -> dict[str, Any]:
    """structuredContent when the tool declares an outputSchema, else `{text}`; an isError
    answer is a step failure carrying the provider's message."""
    if getattr(result, "is_error", False):
        message = _text(result) or "the tool reported an error"
        raise TaskplateError(
            ErrorCode.PROVIDER_ERROR,
            f"{tool} of provider {provider} failed: {message}",
            "See the provider's message; check the step's arguments.",
            {"provider": provider},
        )
    structured = getattr(result, "structured_content", None)
    if typed:
        if not isinstance(structured, dict):
            raise TaskplateError(
                ErrorCode.PROVIDER_ERROR,
                f"{tool} of provider {provider} declares an outputSchema but sent no structuredContent",
                "The server breaks its own declaration; report it to its authors.",
                {"provider": provider},
            )
        return dict(structured)
    return {"text": _text(result)}


def provider_specs(
    listings: dict[str, ServerListing],
    configs: dict[str, ProviderConfig],
    providers: Providers | None = None,
) -> list[ActionSpec]:
    """An action per tool; with `providers`, each runs by calling the live server."""
    specs = []
    for name, listing in sorted(listings.items()):
        for tool in listing.tools:
            run = _runner(providers, name, tool.name, tool.output_schema is not None)
            specs.append(tool_spec(name, tool, configs.get(name), run if providers else None))
    return specs


def _runner(providers: Providers | None, provider: str, tool: str, typed: bool) -> Any:
    async def run(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
        assert providers is not None
        answer = await providers.call(provider, tool, args)
        return step_result(provider, tool, answer, typed)

    return run
