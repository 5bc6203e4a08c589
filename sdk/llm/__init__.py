"""Model providers: chat clients, their registry, and the types that describe LLM calls.

OpenRath's synchronous names; the async face is :mod:`rath.llm.aio` (docs/providers.md). The
names load on first use (PEP 562), so value modules import without the vendor SDKs.
"""

from typing import TYPE_CHECKING

from rath.utils.lazy import lazy_names

if TYPE_CHECKING:
    from rath.errors import BudgetExceededError
    from rath.llm.anthropic import (
        RathAnthropicChatClient,
        build_anthropic_kwargs,
        build_anthropic_stream_kwargs,
        normalize_anthropic_response,
    )
    from rath.llm.base import ChatClient, ChatClientFactory, StreamingChatClient
    from rath.llm.chat_request import (
        RathLLMChatRequest,
        RathLLMFunctionTool,
        RathLLMMessage,
        RathLLMRole,
    )
    from rath.llm.chat_response import RathLLMAssistantMessage as RathLLMAssistantMessage
    from rath.llm.chat_response import RathLLMChatChoice as RathLLMChatChoice
    from rath.llm.chat_response import RathLLMChatResponse as RathLLMChatResponse
    from rath.llm.chat_response import RathLLMFinishReason as RathLLMFinishReason
    from rath.llm.chat_response import RathLLMStreamDelta as RathLLMStreamDelta
    from rath.llm.chat_response import RathLLMTokenUsage as RathLLMTokenUsage
    from rath.llm.chat_response import RathLLMToolCallFunction as RathLLMToolCallFunction
    from rath.llm.chat_response import RathLLMToolCallPart as RathLLMToolCallPart
    from rath.llm.chat_response import add_usage as add_usage
    from rath.llm.embedding import (
        DEFAULT_EMBEDDING_MODEL,
        EmbeddingProvider,
        embedder_for,
        register_embedder,
    )
    from rath.llm.errors import ProviderError
    from rath.llm.openai import RathOpenAIChatClient, normalize_chat_completion, to_create_kwargs
    from rath.llm.openai.embedding import RathOpenAIEmbeddingClient
    from rath.llm.openai.vlm import RathOpenAIVLMClient
    from rath.llm.pool import ChatClients
    from rath.llm.provider import Provider, ProviderSpec
    from rath.llm.registry import chat_client_for, register_chat_client, registered_kinds
    from rath.llm.stream import StreamFold
    from rath.llm.vlm import VLMProvider, describe_image, describe_image_async, image_message

__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "BudgetExceededError",
    "ChatClient",
    "ChatClientFactory",
    "ChatClients",
    "EmbeddingProvider",
    "Provider",
    "ProviderError",
    "ProviderSpec",
    "RathAnthropicChatClient",
    "RathLLMAssistantMessage",
    "RathLLMChatChoice",
    "RathLLMChatRequest",
    "RathLLMChatResponse",
    "RathLLMFinishReason",
    "RathLLMFunctionTool",
    "RathLLMMessage",
    "RathLLMRole",
    "RathLLMStreamDelta",
    "RathLLMTokenUsage",
    "RathLLMToolCallFunction",
    "RathLLMToolCallPart",
    "RathOpenAIChatClient",
    "RathOpenAIEmbeddingClient",
    "RathOpenAIVLMClient",
    "StreamFold",
    "StreamingChatClient",
    "VLMProvider",
    "add_usage",
    "build_anthropic_kwargs",
    "build_anthropic_stream_kwargs",
    "chat_client_for",
    "describe_image",
    "describe_image_async",
    "embedder_for",
    "image_message",
    "normalize_anthropic_response",
    "normalize_chat_completion",
    "register_chat_client",
    "register_embedder",
    "registered_kinds",
    "to_create_kwargs",
]

# name -> defining module
_EXPORTS: dict[str, str] = {
    "BudgetExceededError": "rath.errors",
    "ChatClient": "rath.llm.base",
    "ChatClientFactory": "rath.llm.base",
    "ChatClients": "rath.llm.pool",
    "DEFAULT_EMBEDDING_MODEL": "rath.llm.embedding",
    "EmbeddingProvider": "rath.llm.embedding",
    "Provider": "rath.llm.provider",
    "ProviderError": "rath.llm.errors",
    "ProviderSpec": "rath.llm.provider",
    "RathAnthropicChatClient": "rath.llm.anthropic",
    "RathLLMAssistantMessage": "rath.llm.chat_response",
    "RathLLMChatChoice": "rath.llm.chat_response",
    "RathLLMChatRequest": "rath.llm.chat_request",
    "RathLLMChatResponse": "rath.llm.chat_response",
    "RathLLMFinishReason": "rath.llm.chat_response",
    "RathLLMFunctionTool": "rath.llm.chat_request",
    "RathLLMMessage": "rath.llm.chat_request",
    "RathLLMRole": "rath.llm.chat_request",
    "RathLLMStreamDelta": "rath.llm.chat_response",
    "RathLLMTokenUsage": "rath.llm.chat_response",
    "RathLLMToolCallFunction": "rath.llm.chat_response",
    "RathLLMToolCallPart": "rath.llm.chat_response",
    "RathOpenAIChatClient": "rath.llm.openai",
    "RathOpenAIEmbeddingClient": "rath.llm.openai.embedding",
    "RathOpenAIVLMClient": "rath.llm.openai.vlm",
    "StreamFold": "rath.llm.stream",
    "StreamingChatClient": "rath.llm.base",
    "VLMProvider": "rath.llm.vlm",
    "add_usage": "rath.llm.chat_response",
    "build_anthropic_kwargs": "rath.llm.anthropic",
    "build_anthropic_stream_kwargs": "rath.llm.anthropic",
    "chat_client_for": "rath.llm.registry",
    "describe_image": "rath.llm.vlm",
    "describe_image_async": "rath.llm.vlm",
    "embedder_for": "rath.llm.embedding",
    "image_message": "rath.llm.vlm",
    "normalize_anthropic_response": "rath.llm.anthropic",
    "normalize_chat_completion": "rath.llm.openai",
    "register_chat_client": "rath.llm.registry",
    "register_embedder": "rath.llm.embedding",
    "registered_kinds": "rath.llm.registry",
    "to_create_kwargs": "rath.llm.openai",
}


__getattr__ = lazy_names(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
