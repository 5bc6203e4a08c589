"""Test doubles for Rath: fake model servers over real loopback HTTP.

:class:`FakeChatServer` speaks the real OpenAI Chat Completions wire protocol and
:class:`FakeAnthropicServer` Anthropic's Messages protocol (JSON and server-sent-event
streaming) on ``127.0.0.1``, so tests and benchmarks drive Rath through the official ``openai``
and ``anthropic`` SDKs while scripting every model reply::

    from rath.testing import FakeChatServer, text_reply, tool_call_reply

    script = [tool_call_reply(("read_workspace_file", {"path": "a.txt"})), text_reply("done")]
    with FakeChatServer(script) as server:
        ...  # point a provider at server.base_url; inspect server.requests afterwards
"""

from rath.testing._anthropic_server import FakeAnthropicServer
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
from rath.testing._server import FakeChatServer, FakeServer

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
