"""A real HTTP server on loopback speaking Anthropic's Messages protocol."""

from __future__ import annotations

from typing import ClassVar

from rath.testing._anthropic_wire import AnthropicWire
from rath.testing._server import FakeServer, Wire


class FakeAnthropicServer(FakeServer):
    """A scripted fake Anthropic Messages server (``POST /v1/messages``, JSON and streaming).

    Replies are the same :class:`Reply` values as :class:`FakeChatServer`'s: text becomes a
    ``text`` block, tool calls ``tool_use`` blocks, usage ``input_tokens``/``output_tokens``,
    errors Anthropic's ``{"type": "error", ...}`` bodies. Its :attr:`base_url` has no ``/v1``
    (the ``anthropic`` SDK adds it).

    Example::

        with FakeAnthropicServer([text_reply("hi")]) as server:
            client = anthropic.Anthropic(base_url=server.base_url, api_key="t", max_retries=0)
    """

    wire: ClassVar[Wire] = AnthropicWire()
