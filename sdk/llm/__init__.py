"""Model providers: chat clients, their registry, and the types that describe LLM calls.

OpenRath's synchronous names; the async face is :mod:`rath.llm.aio` (docs/providers.md). The
names load on first use (PEP 562), so value modules import without the vendor SDKs.
"""

from typing import TYPE_CHECKING

from rath.utils.lazy import lazy_dir, lazy_names

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


# Each name loads from the module the TYPE_CHECKING block names, on first use.
__getattr__ = lazy_names(__name__)
__dir__ = lazy_dir(__name__)
