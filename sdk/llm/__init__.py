"""Model providers: chat clients, their registry, and the types that describe LLM calls.

Chat clients exist for any OpenAI-compatible server and for Anthropic; image description and
embedders are built on the same providers. A client that can stream implements
:class:`StreamingChatClient`; its deltas are :class:`RathLLMStreamDelta` events (also in
:mod:`rath.streaming`, with the API for following a run).
"""

from rath.llm._client import ChatClient, ChatRequest
from rath.llm._embedding import embedder_for, register_embedder
from rath.llm._errors import ProviderError
from rath.llm._provider import Provider, ProviderSpec
from rath.llm._registry import (
    ChatClientFactory,
    ChatClients,
    chat_client_for,
    register_chat_client,
    registered_kinds,
)
from rath.llm._stream import RathLLMStreamDelta, StreamFold
from rath.llm._stream_clients import StreamingChatClient
from rath.llm._usage import TokenUsage, add_usage
from rath.llm._vlm import describe_image, describe_image_async, image_message
from rath.llm._wire import Completion, WireToolCall

__all__ = [
    "ChatClient",
    "ChatClientFactory",
    "ChatClients",
    "ChatRequest",
    "Completion",
    "Provider",
    "ProviderError",
    "ProviderSpec",
    "RathLLMStreamDelta",
    "StreamFold",
    "StreamingChatClient",
    "TokenUsage",
    "WireToolCall",
    "add_usage",
    "chat_client_for",
    "describe_image",
    "describe_image_async",
    "embedder_for",
    "image_message",
    "register_chat_client",
    "register_embedder",
    "registered_kinds",
]
