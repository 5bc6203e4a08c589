"""Test doubles for Rath: a fake OpenAI-compatible chat server over real loopback HTTP.

:class:`FakeChatServer` speaks the real OpenAI Chat Completions wire protocol (JSON and
server-sent-event streaming) on ``127.0.0.1``, so tests and benchmarks drive Rath through the
official ``openai`` SDK while scripting every model reply::

    from rath.testing import FakeChatServer, text_reply, tool_call_reply

    script = [tool_call_reply(("read_workspace_file", {"path": "a.txt"})), text_reply("done")]
    with FakeChatServer(script) as server:
        ...  # point a provider at server.base_url; inspect server.requests afterwards
"""

from rath.testing._replies import (
    Handler,
    RecordedRequest,
    Reply,
    ToolCallSpec,
    error_reply,
    function_handler,
    gated,
    raw_reply,
    scripted,
    text_reply,
    tool_call_reply,
)
from rath.testing._server import FakeChatServer

__all__ = [
    "FakeChatServer",
    "Handler",
    "RecordedRequest",
    "Reply",
    "ToolCallSpec",
    "error_reply",
    "function_handler",
    "gated",
    "raw_reply",
    "scripted",
    "text_reply",
    "tool_call_reply",
]
