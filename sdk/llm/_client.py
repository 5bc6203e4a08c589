"""The chat-client interface every provider implements, and the request it takes.

Rath's transcript renders to OpenAI chat messages (``role``/``content``/``tool_calls``/
``tool_call_id``, content parts for images); that is the lingua franca here. Each client
translates it to its own wire and its answer back into a :class:`Completion`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from rath.errors import ConfigError
from rath.llm._wire import Completion
from rath.llm.provider import ProviderSpec


@dataclass(frozen=True)
class ChatRequest:
    """One chat call, provider-neutral.

    Attributes:
        messages: OpenAI-style chat messages (``system``, ``user``, ``assistant``, ``tool``).
        tools: OpenAI function-tool schemas (``{"type": "function", "function": {...}}``).
        options: Sampling fields and extra request fields (``Provider.sampling_options()``).
        round_index: The loop round, used to name tool calls that arrive without an id.
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    round_index: int = 1

    def __post_init__(self) -> None:
        if self.options.get("stream"):
            raise ConfigError(
                "`stream` cannot be set in Provider options; use on_event for streaming"
            )


@runtime_checkable
class AsyncChatClient(Protocol):
    """A model endpoint that answers chat requests.

    Implementations raise :class:`~rath.llm.ProviderError` (classified: retryable or not) for
    endpoint failures and :class:`~rath.errors.ConfigError` for configuration mistakes, and
    nothing else. They never retry on their own: Temporal owns retries.
    """

    @property
    def kind(self) -> str:
        """The registered kind that built this client, e.g. ``"anthropic"``."""
        ...

    @property
    def model(self) -> str:
        """The model this client asks for."""
        ...

    async def complete(self, request: ChatRequest) -> Completion:
        """Run one chat call and return its normalised answer."""
        ...

    async def aclose(self) -> None:
        """Release the client's connections."""
        ...


AsyncChatClientFactory = Callable[[ProviderSpec, str | None], AsyncChatClient]
"""Builds a client for a provider and one resolved API key (``None`` when the worker has none)."""
