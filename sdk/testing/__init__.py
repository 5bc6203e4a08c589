"""Test doubles for Rath: fake model servers over real loopback HTTP. See docs/modules.md."""

from rath.testing._replies import (
    Handler,
    RecordedRequest,
    Reply,
    ToolCallSpec,
    error_reply,
    function_handler,
    gated,
    hung_up,
    raw_reply,
    scripted,
    text_reply,
    tool_call_reply,
    truncated,
)
from rath.testing._server import FakeAnthropicServer, FakeChatServer, FakeServer

__all__ = [
    "FakeAnthropicServer",
    "FakeChatServer",
    "FakeServer",
    "Handler",
    "RecordedRequest",
    "Reply",
    "ToolCallSpec",
    "error_reply",
    "function_handler",
    "gated",
    "hung_up",
    "raw_reply",
    "scripted",
    "text_reply",
    "tool_call_reply",
    "truncated",
]
