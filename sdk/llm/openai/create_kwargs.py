"""OpenRath's ``rath.llm.openai.create_kwargs``: ``chat.completions.create`` keywords."""

from __future__ import annotations

import dataclasses
from typing import Any

from rath.errors import ConfigError
from rath.llm.chat_request import RathLLMChatRequest, strip_additional_properties
from rath.llm.provider import SAMPLING_FIELDS

__all__ = ["to_create_kwargs", "to_create_kwargs_stream"]


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
        kwargs["tools"] = [strip_additional_properties(t.to_openai()) for t in req.tools]
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
    plain = dataclasses.replace(req, extra_create_args=extra)
    kwargs = to_create_kwargs(plain, default_model=default_model)
    kwargs["stream"] = True
    kwargs.setdefault("stream_options", {"include_usage": True})
    return kwargs


def _message(message: Any) -> dict[str, Any]:
    fields = ("role", "content", "name", "tool_call_id", "tool_calls")
    out = {k: getattr(message, k) for k in fields if getattr(message, k) is not None}
    if "tool_calls" in out:
        out["tool_calls"] = [dict(call) for call in out["tool_calls"]]
    return out
