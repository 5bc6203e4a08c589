"""OpenRath's ``provider_into_chat_request``: preferences into a request. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rath.llm.chat_request import RathLLMChatRequest, RathLLMFunctionTool, RathLLMMessage
from rath.llm.provider import SAMPLING_FIELDS, Provider

__all__ = ["provider_into_chat_request"]

# The provider fields a request carries as they are (``tool_choice`` has a default of its own).
# The model, every sampling field of a Provider (``tool_choice`` has its own default here), and
# its extras.
_COPIED_FIELDS = (
    "model",
    *(name for name in SAMPLING_FIELDS if name != "tool_choice"),
    "extra_create_args",
)


def provider_into_chat_request(
    messages: Sequence[RathLLMMessage],
    tools: Sequence[RathLLMFunctionTool] | None,
    prefs: Provider,
    *,
    default_tool_choice: Any,
) -> RathLLMChatRequest:
    """A chat request of ``messages`` and ``tools`` with every sampling field of ``prefs``."""
    copied = {name: getattr(prefs, name) for name in _COPIED_FIELDS}
    tool_choice = prefs.tool_choice if prefs.tool_choice is not None else default_tool_choice
    return RathLLMChatRequest(messages=messages, tools=tools, tool_choice=tool_choice, **copied)
