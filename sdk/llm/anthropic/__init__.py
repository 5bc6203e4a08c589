"""OpenRath's direct Anthropic client and its pure helpers (``rath.llm.anthropic``).

They follow OpenRath's table, not the durable loop's live-API wire (docs/openrath.md).
"""

from __future__ import annotations

from typing import Any

import anthropic

from rath.llm._anthropic_client import ANTHROPIC_ERRORS, anthropic_sdk
from rath.llm._anthropic_stream import AnthropicStreamAnswer
from rath.llm._anthropic_table import (
    anthropic_event_to_deltas,
    build_anthropic_kwargs,
    build_anthropic_stream_kwargs,
    normalize_anthropic_response,
)
from rath.llm._direct import direct_target
from rath.llm._direct_client import DirectChatClient
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse
from rath.llm.provider import Provider

__all__ = [
    "ANTHROPIC_RETRYABLE",
    "RathAnthropicChatClient",
    "anthropic_event_to_deltas",
    "build_anthropic_kwargs",
    "build_anthropic_stream_kwargs",
    "normalize_anthropic_response",
]

ANTHROPIC_RETRYABLE: tuple[type[Exception], ...] = (
    anthropic.RateLimitError,
    anthropic.APIConnectionError,
    anthropic.APITimeoutError,
    anthropic.InternalServerError,
)
"""The ``anthropic`` exceptions OpenRath retried (Rath classifies by status)."""


class RathAnthropicChatClient(DirectChatClient):
    """Anthropic's Messages API from plain Python, with OpenRath's types and retries.

    The key is the provider's, else ``ANTHROPIC_API_KEY``, else the config file's first
    Anthropic provider's; ``ANTHROPIC_DEFAULT_MODEL`` applies only when the provider names no
    model. A server given by a base URL needs no key.

    Raises:
        ConfigError: No key and no base URL (a ``ValueError``: "No Anthropic api_key found").
    """

    def __init__(self, provider: Provider) -> None:
        target = direct_target(
            provider, "anthropic", label="Anthropic", key_envs=lambda url: ("ANTHROPIC_API_KEY",)
        )
        super().__init__(provider, target)
        self._client = anthropic_sdk(
            target.base_url, target.key or "unused", target.timeout, asynchronous=False
        )

    errors = ANTHROPIC_ERRORS

    def _kwargs(self, req: RathLLMChatRequest, *, stream: bool) -> dict[str, Any]:
        kwargs = build_anthropic_kwargs(req, default_model=self._default_model)
        # ``messages.create`` streams only when asked (OpenRath used ``messages.stream``).
        return {**kwargs, "stream": True} if stream else kwargs

    def _create(self, kwargs: dict[str, Any]) -> Any:
        return self._client.messages.create(**kwargs)

    def _normalize(self, raw: Any) -> RathLLMChatResponse:
        return normalize_anthropic_response(raw)

    def _stream_answer(self) -> AnthropicStreamAnswer:
        return AnthropicStreamAnswer(where=self._site.where, model=self._site.model)

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()
