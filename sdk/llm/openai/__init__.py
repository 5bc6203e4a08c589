"""OpenRath's direct OpenAI client and its pure helpers (``rath.llm.openai``).

:class:`RathOpenAIChatClient` calls an OpenAI-compatible Chat Completions endpoint from plain
Python with OpenRath's data types (:mod:`rath.llm.chat_request`, :mod:`rath.llm.chat_response`)
and retries; failures are :class:`~rath.llm.ProviderError`, classified as Rath's durable calls
classify them. Rath's agents call models through activities instead.
"""

from __future__ import annotations

from typing import Any

import openai

from rath.errors import ConfigError
from rath.llm._azure import AZURE_KEY_ENVS, azure_style
from rath.llm._direct import direct_target
from rath.llm._direct_client import DirectChatClient
from rath.llm._openai_client import OPENAI_ERRORS, openai_sdk
from rath.llm._openai_stream import OpenAIStreamAnswer
from rath.llm._wire import normalize_chat_completion
from rath.llm.chat_request import RathLLMChatRequest, strip_additional_properties
from rath.llm.chat_response import RathLLMChatResponse
from rath.llm.provider import SAMPLING_FIELDS, Provider

__all__ = [
    "OPENAI_RETRYABLE",
    "RathOpenAIChatClient",
    "normalize_chat_completion",
    "to_create_kwargs",
    "to_create_kwargs_stream",
]

OPENAI_RETRYABLE: tuple[type[Exception], ...] = (
    openai.RateLimitError,
    openai.APIConnectionError,
    openai.APITimeoutError,
    openai.InternalServerError,
)
"""The ``openai`` exceptions OpenRath retried (Rath classifies by status: see ProviderError)."""


def to_create_kwargs(req: RathLLMChatRequest, *, default_model: str | None) -> dict[str, Any]:
    """``chat.completions.create`` keywords for ``req`` (``stream=False``).

    Raises:
        ConfigError: No model anywhere, or ``extra_create_args`` asks to stream (a
            ``ValueError``).
    """
    model = req.model or default_model
    if not model:
        raise ConfigError(
            "model is required: set it on the request or the Provider, or OPENAI_DEFAULT_MODEL"
        )
    kwargs: dict[str, Any] = {"model": model, "messages": [_message(m) for m in req.messages]}
    if req.tools is not None:
        kwargs["tools"] = [_tool(t) for t in req.tools]
    for name in SAMPLING_FIELDS:
        value = getattr(req, name)
        if value is not None:
            kwargs[name] = list(value) if name == "stop" and not isinstance(value, str) else value
    extra = dict(req.extra_create_args)
    if extra.get("stream"):
        raise ConfigError("extra_create_args may not set stream=True: use complete_stream()")
    kwargs.update(extra)
    kwargs["stream"] = False
    return kwargs


def to_create_kwargs_stream(
    req: RathLLMChatRequest, *, default_model: str | None
) -> dict[str, Any]:
    """:func:`to_create_kwargs` for a streamed answer (usage included unless asked otherwise)."""
    extra = {k: v for k, v in req.extra_create_args.items() if k != "stream"}
    plain = RathLLMChatRequest(
        **{**{f: getattr(req, f) for f in req.__dataclass_fields__}, "extra_create_args": extra}
    )
    kwargs = to_create_kwargs(plain, default_model=default_model)
    kwargs["stream"] = True
    kwargs.setdefault("stream_options", {"include_usage": True})
    return kwargs


class RathOpenAIChatClient(DirectChatClient):
    """Chat Completions from plain Python, with OpenRath's types and retries.

    The endpoint is the provider's, else ``OPENAI_BASE_URL``, else ``AZURE_OPENAI_ENDPOINT``,
    else the config file's first OpenAI provider's. The key is the provider's, else (for an
    Azure OpenAI endpoint) ``AZURE_OPENAI_API_KEY``, ``AZURE_API_KEY``, ``OPENAI_API_KEY`` or
    (for any other) ``OPENAI_API_KEY``, ``AZURE_OPENAI_API_KEY``, else the config file's. A
    server given by a base URL needs no key. Azure's older ``/openai`` endpoints go through
    ``AzureOpenAI`` (deployments, ``api-version`` from ``OPENAI_API_VERSION`` or
    ``AZURE_OPENAI_API_VERSION``); its ``/openai/v1`` ones through the plain client.

    Raises:
        ConfigError: No key and no base URL (a ``ValueError``: "No API key found").
    """

    def __init__(self, provider: Provider) -> None:
        target = direct_target(
            provider,
            "openai",
            label="OpenAI",
            key_envs=_key_envs,
            url_envs=("OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT"),
        )
        super().__init__(provider, target)
        self._client = openai_sdk(
            target.base_url, target.key or "unused", target.timeout, asynchronous=False
        )

    errors = OPENAI_ERRORS

    def _kwargs(self, req: RathLLMChatRequest, *, stream: bool) -> dict[str, Any]:
        build = to_create_kwargs_stream if stream else to_create_kwargs
        return build(req, default_model=self._default_model)

    def _create(self, kwargs: dict[str, Any]) -> Any:
        return self._client.chat.completions.create(**kwargs)

    def _normalize(self, raw: Any) -> RathLLMChatResponse:
        return normalize_chat_completion(raw)

    def _stream_answer(self) -> OpenAIStreamAnswer:
        return OpenAIStreamAnswer(where=self._site.where, model=self._site.model)

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()


def _key_envs(base_url: str | None) -> tuple[str, ...]:
    """The variables a key is read from: Azure's first for an Azure endpoint, else OpenAI's."""
    if azure_style(base_url):
        return (*AZURE_KEY_ENVS, "OPENAI_API_KEY")
    return ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY")


def _message(message: Any) -> dict[str, Any]:
    fields = ("role", "content", "name", "tool_call_id", "tool_calls")
    out = {k: getattr(message, k) for k in fields if getattr(message, k) is not None}
    if "tool_calls" in out:
        out["tool_calls"] = [dict(call) for call in out["tool_calls"]]
    return out


def _tool(tool: Any) -> dict[str, Any]:
    function: dict[str, Any] = {
        "name": tool.name,
        "parameters": strip_additional_properties(tool.parameters),
    }
    if tool.description is not None:
        function["description"] = tool.description
    if tool.strict is not None:
        function["strict"] = tool.strict
    return {"type": "function", "function": function}
