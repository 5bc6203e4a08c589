"""OpenRath's direct OpenAI client and its pure helpers (``rath.llm.openai``).

:class:`RathOpenAIChatClient` calls an OpenAI-compatible Chat Completions endpoint from plain
Python with OpenRath's data types (:mod:`rath.llm.chat_request`, :mod:`rath.llm.chat_response`)
and retries; failures are :class:`~rath.llm.ProviderError`, classified as Rath's durable calls
classify them. Rath's agents call models through activities instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import openai

from rath.errors import ConfigError
from rath.llm._azure import AZURE_KEY_ENVS, azure_style
from rath.llm._direct import direct_target
from rath.llm._direct_client import DirectChatClient
from rath.llm._openai_client import OPENAI_ERRORS, openai_sdk
from rath.llm._openai_stream import OpenAIStreamAnswer
from rath.llm._wire import _KNOWN_REASONS
from rath.llm.chat_request import RathLLMChatRequest, strip_additional_properties
from rath.llm.chat_response import (
    RathLLMAssistantMessage,
    RathLLMChatChoice,
    RathLLMChatResponse,
    RathLLMTokenUsage,
    RathLLMToolCallFunction,
    RathLLMToolCallPart,
)
from rath.llm.provider import SAMPLING_FIELDS, Provider
from rath.llm.tool_args import parse_tool_arguments

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


def normalize_chat_completion(completion: Any) -> RathLLMChatResponse:
    """A :class:`RathLLMChatResponse` from an SDK ``ChatCompletion`` (or its dict).

    Unknown finish reasons become ``"stop"``; tool-call arguments are parsed with
    :func:`~rath.llm.tool_args.parse_tool_arguments`; a usage block, even an empty one, gives
    counts (zero when missing). ``raw`` is the completion as a JSON-ready dict.
    """
    data: dict[str, Any] = (
        completion.model_dump(mode="json")
        if hasattr(completion, "model_dump")
        else dict(completion)
    )
    choices = tuple(_choice(c) for c in data.get("choices") or ())
    return RathLLMChatResponse(
        id=str(data.get("id") or ""),
        choices=choices,
        created=int(data.get("created") or 0),
        model=str(data.get("model") or ""),
        object_type=str(data.get("object") or "chat.completion"),
        service_tier=data.get("service_tier"),
        system_fingerprint=data.get("system_fingerprint"),
        usage=_usage(data.get("usage")),
        raw=data,
    )


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


def _choice(data: Mapping[str, Any]) -> RathLLMChatChoice:
    message = data.get("message") or {}
    calls = tuple(_tool_call(c) for c in message.get("tool_calls") or ())
    reason = data.get("finish_reason")
    return RathLLMChatChoice(
        index=int(data.get("index") or 0),
        finish_reason=reason if reason in _KNOWN_REASONS else "stop",
        message=RathLLMAssistantMessage(
            content=message.get("content"),
            refusal=message.get("refusal"),
            reasoning_content=message.get("reasoning_content"),
            tool_calls=calls or None,
            function_call=message.get("function_call"),
            annotations=tuple(message["annotations"]) if message.get("annotations") else None,
        ),
        logprobs=data.get("logprobs"),
    )


def _tool_call(data: Mapping[str, Any]) -> RathLLMToolCallPart:
    function = data.get("function") or {}
    arguments = function.get("arguments") or ""
    parsed, error = parse_tool_arguments(arguments)
    return RathLLMToolCallPart(
        id=str(data.get("id") or ""),
        type=str(data.get("type") or "function"),
        function=RathLLMToolCallFunction(
            name=str(function.get("name") or ""),
            arguments=arguments,
            arguments_parsed=parsed,
            arguments_parse_error=error,
        ),
    )


def _usage(data: Any) -> RathLLMTokenUsage | None:
    if not isinstance(data, Mapping):
        return None
    return RathLLMTokenUsage(
        prompt_tokens=int(data.get("prompt_tokens") or 0),
        completion_tokens=int(data.get("completion_tokens") or 0),
        total_tokens=int(data.get("total_tokens") or 0),
        completion_tokens_details=data.get("completion_tokens_details"),
        prompt_tokens_details=data.get("prompt_tokens_details"),
    )
