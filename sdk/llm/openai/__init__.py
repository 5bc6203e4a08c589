"""OpenRath's ``rath.llm.openai``: the OpenAI chat client and its pure helpers."""

from rath.llm._wire import normalize_chat_completion
from rath.llm.openai.client import OPENAI_RETRYABLE, RathOpenAIChatClient
from rath.llm.openai.create_kwargs import to_create_kwargs, to_create_kwargs_stream

__all__ = [
    "OPENAI_RETRYABLE",
    "RathOpenAIChatClient",
    "normalize_chat_completion",
    "to_create_kwargs",
    "to_create_kwargs_stream",
]
