"""What OpenRath's direct chat clients share: the provider, retried calls, streamed deltas.

:class:`~rath.llm.openai.RathOpenAIChatClient` and
:class:`~rath.llm.anthropic.RathAnthropicChatClient` differ only in how a request becomes
the SDK's keyword arguments, which SDK call makes it, how the answer reads back and which
errors the SDK raises; those are the hooks here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar, Protocol

from rath.llm._direct import DirectTarget, retried
from rath.llm._http import SDKErrors, provider_errors
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMChatResponse, RathLLMStreamDelta
from rath.llm.provider import Provider

__all__ = ["DirectChatClient"]


class StreamAnswer(Protocol):
    """Folds a stream's events into deltas."""

    def feed(self, event: object) -> list[RathLLMStreamDelta]: ...


class DirectChatClient(ABC):
    """A chat client called from plain Python, with OpenRath's types and retries."""

    errors: ClassVar[SDKErrors]

    def __init__(self, provider: Provider, target: DirectTarget) -> None:
        self._provider = provider
        self._default_model = target.model
        self._site = target.site

    @property
    def provider(self) -> Provider:
        """The provider this client calls."""
        return self._provider

    def complete(self, req: RathLLMChatRequest) -> RathLLMChatResponse:
        """One completion.

        Raises:
            ProviderError: The endpoint failed (after retries when retrying may help).
        """
        kwargs = self._kwargs(req, stream=False)

        def call() -> Any:
            with provider_errors(self.errors, self._site):
                return self._create(kwargs)

        return self._normalize(retried(self._provider, call))

    def complete_stream(self, req: RathLLMChatRequest) -> Iterator[RathLLMStreamDelta]:
        """The completion as deltas (only opening the stream is retried)."""
        kwargs = self._kwargs(req, stream=True)

        def open_stream() -> Any:
            with provider_errors(self.errors, self._site):
                return self._create(kwargs)

        stream = retried(self._provider, open_stream)
        answer = self._stream_answer()
        with provider_errors(self.errors, self._site):
            for event in stream:
                yield from answer.feed(event.model_dump())

    @abstractmethod
    def close(self) -> None:
        """Close the HTTP client."""

    @abstractmethod
    def _kwargs(self, req: RathLLMChatRequest, *, stream: bool) -> dict[str, Any]:
        """The SDK call's keyword arguments for ``req``."""

    @abstractmethod
    def _create(self, kwargs: dict[str, Any]) -> Any:
        """Make the SDK call (a response, or a stream of events)."""

    @abstractmethod
    def _normalize(self, raw: Any) -> RathLLMChatResponse:
        """The SDK's response in OpenRath's types."""

    @abstractmethod
    def _stream_answer(self) -> StreamAnswer:
        """A fresh fold for one stream."""
